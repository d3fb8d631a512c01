"""The store's objects are frozen out of garbage collection once loaded and as the store doubles."""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

from apiserver import collector
from apiserver.storage.embedded import EmbeddedStore, StoreOptions


def test_a_store_that_doubled_is_frozen_again(tmp_path: Any) -> None:
    async def scenario() -> tuple[int, int, int]:
        store = EmbeddedStore(StoreOptions(str(tmp_path)))
        for i in range(10):
            await store.submit(("configmaps", "ns", f"a{i}"), {"metadata": {"name": f"a{i}"}}, None)
        collector.freeze()
        before = gc.get_freeze_count()
        task = asyncio.create_task(collector.freeze_as_the_store_grows(store, check_seconds=0.01, min_growth=10))
        for i in range(5):  # not doubled yet: no freeze
            await store.submit(("configmaps", "ns", f"b{i}"), {"metadata": {"name": f"b{i}"}}, None)
        await asyncio.sleep(0.1)
        unchanged = gc.get_freeze_count()
        keep = [[i] for i in range(1000)]  # alive and tracked (lists always are): frozen by the next freeze
        for i in range(10):
            await store.submit(("configmaps", "ns", f"c{i}"), {"metadata": {"name": f"c{i}"}}, None)
        for _ in range(100):
            await asyncio.sleep(0.02)
            if gc.get_freeze_count() > unchanged:
                break
        task.cancel()
        after = gc.get_freeze_count()
        assert keep
        await store.close()
        return before, unchanged, after

    try:
        before, unchanged, after = asyncio.run(scenario())
        assert unchanged <= before  # frozen objects freed since leave the count
        assert after >= unchanged + 1000
    finally:
        gc.unfreeze()


class _Version:
    """Stands for a stored version: no cycles, so reference counting frees it, frozen or not."""


def test_frozen_objects_without_cycles_are_freed_when_dropped() -> None:
    kept = [_Version()]
    probe = weakref.ref(kept[0])
    try:
        collector.freeze()
        assert probe() is not None
        kept.clear()
        assert probe() is None
    finally:
        gc.unfreeze()
