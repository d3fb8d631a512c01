"""The heap's free pages go back to the system: a burst of freed buffers stops being resident (glibc)."""

from __future__ import annotations

import os
import platform

import pytest

from apiserver import allocator

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")

BUFFER = 64 * 1024  # under glibc's mmap threshold, so from the heap
COUNT = 512  # 32 MiB


def resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_freed_buffers_held_among_live_objects_are_given_back() -> None:
    buffers = []
    live = []
    for _ in range(COUNT):
        buffers.append(bytearray(BUFFER))  # written through (zeroed), so resident
        live.append(bytes(1024))  # from malloc too: keeps the heap from shrinking when the buffers go
    del buffers
    before = resident_bytes()
    assert allocator.release_free_memory()
    assert before - resident_bytes() >= COUNT * BUFFER // 2
    assert len(live) == COUNT
