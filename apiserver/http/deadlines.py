"""The bound on a request's time (kube-apiserver's --request-timeout), kept by one timer for all requests.

`asyncio.timeout` arms and cancels a timer of the event loop per request, which costs more than a
small get's own work. Here every running request is noted with its deadline, and one sweep, running
only while requests do, cancels those past it: a request is cut between its deadline and one sweep
interval later (a quarter of the bound, at most a second). A cut request raises TimeoutError, as
under `asyncio.timeout`, and a cancellation from elsewhere stays a cancellation.
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, TypeVar

T = TypeVar("T")

_LONGEST_SWEEP_INTERVAL = 1.0


class Deadlines:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._interval = min(_LONGEST_SWEEP_INTERVAL, seconds / 4)
        self._running: dict[asyncio.Task[Any], float] = {}
        self._expired: set[asyncio.Task[Any]] = set()
        self._sweeper: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def within(self, work: Awaitable[T]) -> T:
        """`work`'s result, or TimeoutError once it has run past the bound."""
        # The server's one loop, kept: asking for the running loop costs a getpid() system call each time.
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        task = asyncio.current_task(loop)
        assert task is not None, "a request runs in a task"
        cancelling = task.cancelling()
        self._running[task] = loop.time() + self.seconds
        if self._sweeper is None:
            self._sweeper = loop.call_later(self._interval, self._sweep)
        try:
            return await work
        except asyncio.CancelledError:
            if task in self._expired:
                self._expired.discard(task)
                # Ours alone: a cancellation asked for by someone else as well goes on as one.
                if task.uncancel() <= cancelling:
                    raise TimeoutError from None
            raise
        finally:
            self._running.pop(task, None)
            if task in self._expired:
                # Cut, but the work had finished (or swallowed the cancellation): take ours back.
                self._expired.discard(task)
                task.uncancel()

    def _sweep(self) -> None:
        loop = self._loop
        assert loop is not None, "swept only after a request started the sweeper"
        now = loop.time()
        overdue = [task for task, deadline in self._running.items() if deadline <= now]
        for task in overdue:
            del self._running[task]
            self._expired.add(task)
            task.cancel()
        self._sweeper = loop.call_later(self._interval, self._sweep) if self._running else None
