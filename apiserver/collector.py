"""Keeps the store's long-lived objects out of the garbage collector's full passes.

Every stored object lives until it is overwritten, and each full collection walked all of them: at
100,000 objects a cold list spent several µs per object in collections, growing with the store
(`python -m benches.scaling.gc_share`). Objects alive once the store has loaded, and again whenever
the store's revision has doubled since, are frozen (`gc.freeze`) so collections skip them. Frozen
objects are still freed by reference counting, and stored objects hold no cycles; what a freeze can
keep for good is cyclic garbage of something alive at that moment (a watch open then), so freezes
stay few: logarithmic in the number of writes.
"""

from __future__ import annotations

import asyncio
import gc
import logging

from apiserver.storage.interface import Store

log = logging.getLogger("apiserver.collector")

CHECK_SECONDS = 10.0
MIN_GROWTH = 10_000  # writes since the last freeze before another is worth a full collection


def freeze() -> None:
    """Collects what is garbage now, then moves everything alive out of the collector's generations."""
    gc.collect()
    gc.freeze()
    log.info("%d objects frozen out of garbage collection", gc.get_freeze_count())


async def freeze_as_the_store_grows(store: Store, check_seconds: float = CHECK_SECONDS,
                                    min_growth: int = MIN_GROWTH) -> None:
    """Freezes again each time the store's revision has at least doubled (runs until cancelled)."""
    frozen_at = store.revision
    while True:
        await asyncio.sleep(check_seconds)
        revision = store.revision
        if revision >= 2 * frozen_at and revision - frozen_at >= min_growth:
            freeze()
            frozen_at = revision
