"""Large buffers stay in mmap after a larger one was freed, so a burst of them is given back (glibc)."""

from __future__ import annotations

import ctypes
import platform

import pytest

from apiserver import allocator

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt and mallinfo2 are glibc's")


class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def mallinfo2() -> MallInfo2:
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = MallInfo2
    return libc.mallinfo2()  # type: ignore[no-any-return]


BUFFER = 256 * 1024  # a TLS connection's read buffer


def test_a_burst_of_connection_buffers_is_mmapped_and_given_back() -> None:
    assert allocator.pin_mmap_threshold()
    # Unpinned, glibc would now raise its threshold to this block's size and grow the heap for the burst.
    larger = bytearray(4 * 1024 * 1024)
    del larger
    before = mallinfo2()
    # More than the heap's free space can hold, so that part of the burst needs new memory.
    beyond = 64
    burst = [bytearray(BUFFER) for _ in range(before.fordblks // BUFFER + beyond)]
    assert mallinfo2().hblkhd - before.hblkhd >= beyond // 2 * BUFFER
    del burst
    assert mallinfo2().hblkhd <= before.hblkhd  # freeing them gave them back
