"""Watch streams: `{"type":..,"object":..}` lines, object bytes spliced from the store.

A watch subscribes to its resource in the same step as it reads the backlog, so no change falls
between the two. Each watcher has a bounded queue; one that falls that far behind is closed and
its client re-lists, so a slow reader never holds up writers or other watchers.
"""

from __future__ import annotations

import asyncio
import time
from typing import AsyncIterator

from apiserver import errors
from apiserver.selection import Selection
from apiserver.resources import ResourceType
from apiserver.shape import Shape
from apiserver.storage.interface import Change, Expired, Store, StoredObject

QUEUE_LIMIT = 10_000
_CLOSED = object()


def event_line(event_type: str, object_bytes: bytes) -> bytes:
    return b'{"type":"' + event_type.encode() + b'","object":' + object_bytes + b"}\n"


def parse_rv(value: str) -> int:
    try:
        rv = int(value)
    except ValueError:
        raise errors.bad_request(f'resourceVersion: Invalid value: "{value}": must be an integer') from None
    if rv < 0:
        raise errors.bad_request(f'resourceVersion: Invalid value: "{value}": must be non-negative')
    return rv


def open_watch(store: Store, rt: ResourceType, selection: Selection, resource_version: str | None,
               timeout_seconds: float | None, shape: Shape) -> AsyncIterator[bytes]:
    """Starts the watch now (backlog read and subscription happen before the first await)."""
    storage_key = rt.storage_key
    queue: asyncio.Queue[Change | object] = asyncio.Queue()
    initial: list[StoredObject] = []
    expired: Expired | None = None
    if resource_version in (None, "", "0"):
        _, items = store.list(storage_key, selection.namespace)
        initial = [obj for key, obj in items if selection.matches_key(key)]
    else:
        try:
            for change in store.changes_since(storage_key, parse_rv(resource_version)):
                queue.put_nowait(change)
        except Expired as exc:
            expired = exc

    def deliver(change: Change) -> None:
        if queue.qsize() >= QUEUE_LIMIT:
            queue.put_nowait(_CLOSED)
            unsubscribe()
            return
        queue.put_nowait(change)

    unsubscribe = store.subscribe(storage_key, deliver) if expired is None else (lambda: None)
    deadline = None if timeout_seconds is None else time.monotonic() + timeout_seconds

    async def stream() -> AsyncIterator[bytes]:
        try:
            if expired is not None:
                yield event_line("ERROR", errors.gone(str(expired)).to_bytes())
                return
            first = True
            for obj in initial:
                yield event_line("ADDED", shape.event_object(rt, obj, first))
                first = False
            while True:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return
                try:
                    item = await asyncio.wait_for(queue.get(), remaining)
                except asyncio.TimeoutError:
                    return
                if item is _CLOSED:
                    return
                assert isinstance(item, Change)
                if selection.matches_key(item.key):
                    yield event_line(item.type, shape.event_object(rt, StoredObject(item.rv, item.data), first))
                    first = False
        finally:
            unsubscribe()

    return stream()
