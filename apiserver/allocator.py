"""Gives the pages glibc's heap holds free back to the system, every second.

Every TLS connection holds a 256 KiB read buffer (asyncio's and uvloop's SSL protocols alike). glibc
puts such blocks in its heap once an mmapped block of that size has been freed, and when many
connections open together (watches reconnecting after the server was stalled) the heap grows; the
small objects allocated among the buffers keep it from shrinking when they close. The heap's free
space then stays resident: `python -m benches.soak` stepped up by up to 10 MiB at each stall and
stayed there, with the growth in glibc's free space, never in live objects (benches/README.md, "The
soak's creep"). `malloc_trim` hands those free pages back (about 1 ms on the soak's heap).

Pinning glibc's mmap threshold instead, so that those buffers never enter the heap, kept the heap flat
but cost 21 to 34% of get and list throughput: every TLS read and every large answer then paid for
an mmap and its page faults.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
from typing import Callable

# Between two trims the pages that finished requests freed stay resident, so the more requests a
# second, the more resident memory: at the soak's 900 requests/s, every 10 s held its median 13 MiB
# above every 1 s (142 against 129 MiB), which made a loaded machine's slow minutes read lower than its
# quiet ones (benches/README.md, "The soak's creep"). A trim takes about 1 ms; read throughput did not
# move in perf-compare against every 10 s.
TRIM_EVERY_SECONDS = 1.0


def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    trim = None if name is None else getattr(ctypes.CDLL(name), "malloc_trim", None)
    if trim is None:  # not glibc
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim  # type: ignore[no-any-return]


_TRIM = _malloc_trim()


def release_free_memory() -> bool:
    """Returns the heap's free pages to the system; False where the C library cannot (not glibc)."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True


async def release_periodically(every: float = TRIM_EVERY_SECONDS) -> None:
    """Runs until cancelled; the trim runs in a thread (ctypes lets go of the GIL), not on the loop."""
    if _TRIM is None:
        return
    while True:
        await asyncio.sleep(every)
        await asyncio.to_thread(release_free_memory)
