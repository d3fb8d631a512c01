"""Where a write's CPU goes, stage by stage: `python -m benches.request_cost --writes --stages`.

The functions that make up each stage of the write path are wrapped, for the run, in timers that charge
the calling thread's CPU time to the innermost stage entered (so a stage's figure excludes the stages
it calls, and the stages add up to the whole). One write is in flight at a time, so that no other
request runs while a timed coroutine waits. The log's append and fsync run in a worker thread and are
timed there. What no stage claims (routing, authentication, the ASGI exchange, the event loop) is
"request handling".
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from apiserver.http import admitting, endpoint
from apiserver.kinds import conversion, fieldmanager, fieldvalidation, objects, ownership, shaping
from apiserver.patching import apply, patch
from apiserver.storage import embedded, wal
from apiserver.wire import bodies

OTHER = "request handling"
LOG = "log append + fsync (thread)"

# (stage, owner, attribute): the owner's attribute is replaced for the run.
STAGES: list[tuple[str, Any, str]] = [
    ("decode", endpoint, "decode_body"),
    ("decode", bodies, "decode_object"),
    ("decode", apply, "decode_configuration"),
    ("patch", patch, "apply_patch"),
    ("field validation", fieldvalidation, "validate"),
    ("defaulting, strategy", objects, "check_identity"),
    ("defaulting, strategy", objects, "decoded_for_create"),
    ("defaulting, strategy", objects, "prepare_create"),
    ("defaulting, strategy", objects, "decoded_for_update"),
    ("defaulting, strategy", objects, "prepare_update"),
    ("kind validation", objects, "validate"),
    ("admission", admitting, "mutate"),
    ("admission", admitting, "validate"),
    ("shaping", objects, "reshaped"),
    ("shaping", shaping, "shaped_object"),
    ("managed fields", ownership, "track"),
    ("managed fields", fieldmanager, "apply"),
    ("encode, submit", embedded.EmbeddedStore, "submit"),
    ("apply, fan-out", embedded.EmbeddedStore, "_apply"),
    ("answer", conversion.Codec, "served_bytes"),
]


class StageClock:
    """Charges the main thread's CPU time to the innermost stage entered."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = defaultdict(float)
        self._stack = [OTHER]
        self._last = time.thread_time()

    def mark(self) -> None:
        now = time.thread_time()
        self.totals[self._stack[-1]] += now - self._last
        self._last = now

    def enter(self, stage: str) -> None:
        self.mark()
        self._stack.append(stage)

    def leave(self) -> None:
        self.mark()
        self._stack.pop()

    def reset(self) -> None:
        self.totals.clear()
        self._last = time.thread_time()


def _timed(clock: StageClock, stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            clock.enter(stage)
            try:
                return await fn(*args, **kwargs)
            finally:
                clock.leave()
        return timed_async

    @functools.wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        clock.enter(stage)
        try:
            return fn(*args, **kwargs)
        finally:
            clock.leave()
    return timed


@contextlib.contextmanager
def _installed(clock: StageClock, thread_totals: dict[str, float]) -> Iterator[None]:
    saved = [(owner, name, getattr(owner, name)) for _, owner, name in STAGES]
    append = wal.LogWriter.append_and_sync

    def timed_append(self: wal.LogWriter, frames: list[bytes]) -> None:
        started = time.thread_time()
        try:
            append(self, frames)
        finally:
            thread_totals[LOG] += time.thread_time() - started
    try:
        for stage, owner, name in STAGES:
            setattr(owner, name, _timed(clock, stage, getattr(owner, name)))
        wal.LogWriter.append_and_sync = timed_append  # type: ignore[method-assign]
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
        wal.LogWriter.append_and_sync = append  # type: ignore[method-assign]


Breakdown = dict[str, dict[str, float]]  # write -> stage -> CPU µs per write (least of the rounds)


async def measure(write_costs: Callable[..., Awaitable[list[tuple[str, float]]]], requests: int,
                  rounds: int) -> Breakdown:
    clock = StageClock()
    thread_totals: dict[str, float] = defaultdict(float)
    best: Breakdown = {}

    @contextlib.contextmanager
    def each(write: str) -> Iterator[None]:
        clock.reset()
        thread_totals.clear()
        yield
        clock.mark()
        stages = {stage: seconds / requests * 1e6 for stage, seconds in {**clock.totals, **thread_totals}.items()}
        total = sum(stages.values())
        if write not in best or total < sum(best[write].values()):
            best[write] = stages

    with _installed(clock, thread_totals):
        await write_costs(requests, rounds, 1, each)
    return best


def report(best: Breakdown, requests: int, rounds: int) -> None:
    stages = [OTHER] + list(dict.fromkeys(stage for stage, _, _ in STAGES)) + [LOG]
    writes = list(best)
    print(f"CPU µs per write by stage, in process, 1 in flight, the round of least total of {rounds} "
          f"rounds of {requests} (timers add about a microsecond per stage entered)")
    print("| stage | " + " | ".join(writes) + " |\n|---|" + "---:|" * len(writes))
    for stage in stages:
        print(f"| {stage} | " + " | ".join(f"{best[w].get(stage, 0.0):.1f}" for w in writes) + " |")
    print("| total | " + " | ".join(f"{sum(best[w].values()):.1f}" for w in writes) + " |")
