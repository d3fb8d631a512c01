"""`python -m benches.scaling.gc_share`: how much of a cold list the garbage collector takes, by size.

In process, no HTTP: a store grows to 1,000, 10,000 and 100,000 ConfigMaps (benches/objects.py) and
each size is listed cold (nothing assembled yet: the first list after a write) `--rounds` times.
Reported per object: the list's time and the time spent in collections during it, as it runs today
and with the store's objects frozen out of the collector (`gc.freeze()`, what the server does once
its store is loaded at start).

    python -m benches.scaling.gc_share
    python -m benches.scaling.gc_share --sizes 1000 100000 --rounds 5
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from typing import Any

import orjson

from apiserver.http.endpoint import Endpoint, Target
from apiserver.kinds.resources import builtin_registry
from apiserver.shapes.assembled import AssemblyCache
from apiserver.shapes.shape import JSON_SHAPE
from apiserver.storage.embedded import EmbeddedStore, StoreOptions, WalRecord
from benches.objects import configmap


class _CollectorClock:
    """Seconds spent in collections, through gc.callbacks."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.collections = 0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._started
            self.collections += 1


def measure(sizes: list[int], rounds: int, freeze: bool) -> list[dict[str, float]]:
    registry = builtin_registry()
    rt = registry.lookup("", "v1", "configmaps")
    assert rt is not None
    with tempfile.TemporaryDirectory() as directory:
        store = EmbeddedStore(StoreOptions(directory))
        endpoint = Endpoint(store, registry)
        clock = _CollectorClock()
        gc.callbacks.append(clock)
        rows: list[dict[str, float]] = []
        try:
            grown = 0
            for size in sizes:
                for i in range(grown, size):
                    # Straight into memory as a recovery would (the write path is not measured here).
                    data = orjson.dumps(configmap("ns", f"cm-{i:06d}", i))
                    store._replay(WalRecord(i + 1, False, "configmaps", "ns", f"cm-{i:06d}", data))  # noqa: SLF001
                grown = size
                if freeze:
                    gc.collect()
                    gc.freeze()
                target = Target(rt, "ns", None, None, {})
                clock.seconds, clock.collections = 0.0, 0
                started = time.perf_counter()
                for _ in range(rounds):
                    endpoint.assembled = AssemblyCache()  # cold: nothing assembled
                    JSON_SHAPE.list_body(rt, endpoint.select(target))
                elapsed = time.perf_counter() - started
                rows.append({"objects": size, "us_per_object": 1e6 * elapsed / rounds / size,
                             "gc_us_per_object": 1e6 * clock.seconds / rounds / size,
                             "collections": clock.collections / rounds})
        finally:
            gc.callbacks.remove(clock)
            gc.unfreeze()
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benches.scaling.gc_share", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    p.add_argument("--rounds", type=int, default=10)
    args = p.parse_args(argv)
    print("| collector | objects | cold list µs/object | in collections µs/object | collections per list |")
    print("|---|---:|---:|---:|---:|")
    for freeze in (False, True):
        for row in measure(sorted(args.sizes), args.rounds, freeze):
            print(f"| {'store frozen' if freeze else 'as is'} | {row['objects']:,} | {row['us_per_object']:.2f} "
                  f"| {row['gc_us_per_object']:.2f} | {row['collections']:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
