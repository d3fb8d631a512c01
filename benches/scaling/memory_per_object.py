"""`python -m benches.scaling.memory_per_object`: resident memory a stored object costs, and why.

In process, no HTTP: 100,000 ConfigMaps (benches/objects.py) go into an embedded store through its
recovery path, twice. "prepared": every object's bytes exist before the measurement starts, so the
growth is the store's own structures beside the bytes (add the JSON bytes for the whole cost).
"made one by one": each object is built and encoded just before it is stored, as a write does, so
its short-lived garbage is allocated between the objects that stay; what exceeds the bytes plus the
store's structures is memory the allocator keeps (freed, but not handed back).

    python -m benches.scaling.memory_per_object [--objects 100000]
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile

import orjson
import psutil

from apiserver.storage.embedded import EmbeddedStore, StoreOptions, WalRecord
from benches.objects import configmap


def _grown(count: int, prepared: bool) -> tuple[float, float]:
    """RSS bytes per object the store grew by, and the stored JSON bytes per object."""
    process = psutil.Process()
    with tempfile.TemporaryDirectory() as directory:
        store = EmbeddedStore(StoreOptions(directory))
        ready = [orjson.dumps(configmap("ns", f"cm-{i:06d}", i)) for i in range(count)] if prepared else []
        gc.collect()
        before = process.memory_info().rss
        stored = 0
        for i in range(count):
            data = ready[i] if prepared else orjson.dumps(configmap("ns", f"cm-{i:06d}", i))
            stored += len(data)
            store._replay(WalRecord(i + 1, False, "configmaps", "ns", f"cm-{i:06d}", data))  # noqa: SLF001
        gc.collect()
        return (process.memory_info().rss - before) / count, stored / count


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benches.scaling.memory_per_object", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--objects", type=int, default=100_000)
    args = p.parse_args(argv)
    print("| objects' bytes | RSS bytes per stored object | stored JSON bytes per object |")
    print("|---|---:|---:|")
    for prepared in (True, False):
        grown, stored = _grown(args.objects, prepared)
        print(f"| {'prepared' if prepared else 'made one by one'} | {grown:,.0f} | {stored:,.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
