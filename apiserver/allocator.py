"""Keeps glibc's malloc from turning short bursts of large buffers into resident memory for good.

Every TLS connection holds a 256 KiB read buffer (asyncio's and uvloop's SSL protocols alike), and
asyncio's asks for 256 KiB on each read before shrinking it to what arrived. glibc serves requests from 128 KiB up
with mmap, but raises that threshold to the size of any such block freed, so after the first
connection closes every later buffer comes from the heap. Connections that open and close together
(watches timing out at once after the server was stalled) then grow the heap, and the few small
objects allocated among those buffers keep it from shrinking: `python -m benches.soak` stepped up
by 4 to 10 MiB at each stall and stayed there, with the growth in glibc's free heap space, never in
Python's objects (benches/README.md, "The soak's steps").

Pinning the threshold at glibc's own default keeps large blocks in mmap, returned to the system
when freed, so a burst costs memory only while it lasts.
"""

from __future__ import annotations

import ctypes
import ctypes.util

# glibc's malloc.h: the mallopt parameter, and its default value, which a fixed setting keeps.
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD_BYTES = 128 * 1024


def pin_mmap_threshold() -> bool:
    """Fixes glibc's mmap threshold at its default; False where the C library has no `mallopt` (not glibc)."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    mallopt = getattr(ctypes.CDLL(name), "mallopt", None)
    if mallopt is None:
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES))
