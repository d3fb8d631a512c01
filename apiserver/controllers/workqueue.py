"""A work queue of keys, as client-go's: a key waits at most once, and is never worked on twice at once.

Informer handlers add keys (the queue folds repeats into one); workers take a key, sync it, and call
`done`. A key added while it is being worked on is queued again when that work is done. Failed keys
come back after a per-key exponential backoff; `add_after` brings a key back at a given time (grace
periods, heartbeats, schedules) without polling.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)

_BASE_DELAY = 0.005
_MAX_DELAY = 30.0


class WorkQueue(Generic[K]):
    def __init__(self) -> None:
        self._queue: deque[K] = deque()
        self._dirty: set[K] = set()
        self._processing: set[K] = set()
        self._failures: dict[K, int] = {}
        self._timers: dict[K, asyncio.TimerHandle] = {}
        self._ready = asyncio.Event()

    def __len__(self) -> int:
        return len(self._queue)

    def unfinished(self) -> int:
        """Keys waiting or being synced; keys due later (`add_after`, retries) are not counted until due."""
        return len(self._dirty | self._processing)

    def add(self, key: K) -> None:
        if key in self._dirty:
            return
        self._dirty.add(key)
        if key not in self._processing:
            self._queue.append(key)
            self._ready.set()

    def add_after(self, key: K, seconds: float) -> None:
        if seconds <= 0:
            self.add(key)
            return
        timer = self._timers.get(key)
        loop = asyncio.get_running_loop()
        when = loop.time() + seconds
        if timer is not None:
            if timer.when() <= when:
                return
            timer.cancel()
        self._timers[key] = loop.call_at(when, self._fire, key)

    def _fire(self, key: K) -> None:
        self._timers.pop(key, None)
        self.add(key)

    def retry(self, key: K) -> None:
        """Brings a failed key back later, waiting twice as long each time it fails in a row."""
        failures = self._failures.get(key, 0)
        self._failures[key] = failures + 1
        self.add_after(key, min(_BASE_DELAY * 2 ** failures, _MAX_DELAY))

    def forget(self, key: K) -> None:
        self._failures.pop(key, None)

    async def get(self) -> K:
        while not self._queue:
            self._ready.clear()
            await self._ready.wait()
        key = self._queue.popleft()
        self._processing.add(key)
        self._dirty.discard(key)
        return key

    def done(self, key: K) -> None:
        self._processing.discard(key)
        if key in self._dirty:
            self._queue.append(key)
            self._ready.set()

    def close(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
