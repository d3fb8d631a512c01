"""The store's objects are frozen out of garbage collection once loaded and as the store doubles."""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

from apiserver import collector
from apiserver.storage.embedded import EmbeddedStore, StoreOptions


def test_the_recovered_store_is_frozen_out_of_collection(tmp_path: Any) -> None:
    async def write() -> None:
        store = EmbeddedStore(StoreOptions(str(tmp_path)))
        for i in range(50):
            await store.submit(("configmaps", "ns", f"a{i}"), {"metadata": {"name": f"a{i}"}}, None)
        await store.close()

    asyncio.run(write())
    thresholds = gc.get_threshold()
    recovered = EmbeddedStore(StoreOptions(str(tmp_path)))
    try:
        stored = recovered.get(("configmaps", "ns", "a7"))
        assert stored is not None and gc.is_tracked(stored)
        before = gc.get_freeze_count()
        collector.freeze()
        assert gc.get_freeze_count() >= before + 50  # every stored version at least
        assert not any(obj is stored for obj in gc.get_objects())  # no generation holds it any more
        # Writes' objects, alive across their fsync, are not promoted by a collection every 700 allocations.
        assert gc.get_threshold()[0] == collector.YOUNG_THRESHOLD
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        asyncio.run(recovered.close())


class _Version:
    """Stands for a stored version: no cycles, so reference counting frees it, frozen or not."""


def test_frozen_objects_without_cycles_are_freed_when_dropped() -> None:
    kept = [_Version()]
    probe = weakref.ref(kept[0])
    thresholds = gc.get_threshold()
    try:
        collector.freeze()
        assert probe() is not None
        kept.clear()
        assert probe() is None
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
