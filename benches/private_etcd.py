"""A private etcd for one bench run: Debian's etcd-server in a temporary directory, started and stopped
as tests/support.py's EtcdCluster does it for the tests."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator


@contextlib.contextmanager
def private_etcd(prefix: str) -> Iterator[str]:
    """The client URL of a fresh one-member etcd, while the block runs."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
    from support import EtcdCluster  # tests/support.py starts etcd for tests and benches alike

    cluster = EtcdCluster(tempfile.mkdtemp(prefix=prefix)).start()
    try:
        yield cluster.servers
    finally:
        cluster.stop()
