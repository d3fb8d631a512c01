"""Keeps the stored objects loaded at start out of the garbage collector's full passes.

Every stored object lives until it is overwritten, and each full collection walks all of them: at
100,000 objects a cold list spent several µs per object in collections, growing with the store
(`python -m benches.scaling.gc_share`). The objects alive once the store has been recovered, before
any request or watch exists, are frozen (`gc.freeze`) so collections skip them; they are still freed
by reference counting when overwritten (stored objects hold no cycles).

After the freeze the youngest generation is collected every 10,000 net allocations instead of 700.
A write's objects live across its fsync, and with 32 writes in flight a collection every 700
allocations found most of them alive and promoted them, then on to the oldest generation, whose
growth by a quarter sets off a full collection: every 2,000 writes or so, each a pause of 50 to
180 ms of CPU at a few hundred thousand objects, and a fifth of a write's CPU in all
(`python -m benches.request_cost --writes`). Collected less often, the young generation holds
mostly garbage by then: full collections all but stop, a young collection takes a few ms.

Objects stored later are not frozen: a freeze while the server runs would also keep, for good, the
cyclic garbage of whatever was alive then (every open watch stream). Tried as "freeze again each
time the store doubles", it made `python -m benches.soak` grow 11.7% across its second half,
against 7.1% without it.
"""

from __future__ import annotations

import gc
import logging

log = logging.getLogger("apiserver.collector")
YOUNG_THRESHOLD = 10_000


def freeze() -> None:
    """Collects what is garbage now, then moves everything alive out of the collector's generations."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)
    log.info("%d objects frozen out of garbage collection", gc.get_freeze_count())
