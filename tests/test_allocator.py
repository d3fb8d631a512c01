"""The heap's free pages go back to the system: a burst of freed buffers stops being resident (glibc).

The burst runs in a fresh interpreter: in a pytest process that has run other tests, the heap's free
space could hold the small live blocks, and glibc would then hand the buffers back by itself, leaving
nothing to show.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import textwrap

from support import REPO, unavailable

BURST = textwrap.dedent("""
    import json, os
    from apiserver import allocator

    BUFFER = 64 * 1024  # under glibc's mmap threshold, so from the heap
    COUNT = 512  # 32 MiB

    def resident():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    buffers, live = [], []
    for i in range(COUNT):
        buffers.append(bytearray(BUFFER))  # written through (zeroed), so resident
        live.append(bytes(1024) + bytes([i % 256]))  # from malloc too: keeps the heap from shrinking when the buffers go
    del buffers
    before = resident()
    released = allocator.release_free_memory()
    print(json.dumps({"before": before, "after": resident(), "released": released, "live": len(live),
                      "buffers": COUNT * BUFFER}))
""")


def test_freed_buffers_held_among_live_objects_are_given_back() -> None:
    if platform.libc_ver()[0] != "glibc":
        unavailable("glibc's malloc_trim is not here")  # CI's Debian has it: there this must be proven
    out = subprocess.run([sys.executable, "-c", BURST], cwd=REPO, capture_output=True, text=True, timeout=60,
                         check=True)
    figures = json.loads(out.stdout)
    assert figures["released"] is True
    assert figures["before"] - figures["after"] >= figures["buffers"] // 2, figures
    assert figures["live"] == 512
