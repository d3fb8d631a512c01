from __future__ import annotations

import os
import sys
from typing import Iterator

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from support import ServerProcess  # noqa: E402


@pytest.fixture
def server(tmp_path: object) -> Iterator[ServerProcess]:
    """A fresh server process with its own data directory, stopped after the test."""
    proc = ServerProcess(str(tmp_path))
    proc.start()
    try:
        yield proc
    finally:
        proc.stop_all()


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for a module whose tests do not disturb each other."""
    proc = ServerProcess(str(tmp_path_factory.mktemp("server")))
    proc.start()
    try:
        yield proc
    finally:
        proc.stop_all()
