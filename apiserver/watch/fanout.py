"""The watch fan-out: one store subscription per resource, every change encoded once per representation.

The hub wraps each change in an `Event` and appends that same object to every watcher's queue (a
bounded deque: a writer never waits on a watcher). A watcher that falls `queue_limit` events behind
is dropped and told to close; its client re-lists, as with kube-apiserver's watch cache.
Each Event caches its encoded lines by (version, shape key, event type, first), so the first watcher to need
a representation pays for it and the rest write the very same bytes. (Initial events are shared the
same way through the assembled list pieces: see `stream.initial_events`.)
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Awaitable, Callable, Hashable

import orjson

from apiserver import metrics
from apiserver.kinds.resources import ResourceType
from apiserver.shapes.shape import Shape
from apiserver.storage.interface import Change, Store, StoredObject

log = logging.getLogger("apiserver.watch.stream")


def event_line(event_type: str, object_bytes: bytes) -> bytes:
    return b'{"type":"' + event_type.encode() + b'","object":' + object_bytes + b"}\n"


class Event:
    """One change as all watchers of its resource see it."""

    __slots__ = ("_converted", "_left", "_lines", "change")

    def __init__(self, change: Change) -> None:
        self.change = change
        self._lines: dict[Hashable, bytes] = {}
        self._left: bytes | None = None
        self._converted: dict[Hashable, asyncio.Future[StoredObject]] | None = None

    async def converted(self, key: Hashable, convert: Callable[[], Awaitable[StoredObject]]) -> StoredObject:
        """The object converted into another version (a CRD's webhook), once for every watcher of that
        version: this change's conversion, shared while the change is queued, never kept beyond it."""
        if self._converted is None:
            self._converted = {}
        task = self._converted.get(key)
        if task is None:
            task = self._converted[key] = asyncio.ensure_future(convert())
        # Shielded: a watcher that goes away while it waits must not cancel the others' conversion.
        return await asyncio.shield(task)

    def line(self, rt: ResourceType, shape: Shape, event_type: str, first: bool) -> bytes:
        # Watchers of one stored resource may ask for it in different versions (a CRD's, Events'), each
        # encoded apart.
        cache_key = (rt.api_version, shape.key, event_type, first)
        line = self._lines.get(cache_key)
        if line is None:
            change = self.change
            data = self.left_object() if event_type == "DELETED" and change.type != "DELETED" else change.data
            line = event_line(event_type, shape.event_object(rt, StoredObject(change.rv, data), first))
            self._lines[cache_key] = line
            metrics.EVENTS_ENCODED.labels(rt.storage_key).inc()
        return line

    def left_object(self) -> bytes:
        """The object before an update that took it out of a selection, at the update's revision.

        Clients resume from the last revision they saw, so the DELETED they get must carry this one;
        the rare leaving event is the one place an object is decoded, once for all watchers.
        """
        if self._left is None:
            assert self.change.prev is not None
            obj = orjson.loads(self.change.prev)
            obj["metadata"]["resourceVersion"] = str(self.change.rv)
            self._left = orjson.dumps(obj)
        return self._left


class Watcher:
    def __init__(self, fanout: Fanout, limit: int) -> None:
        self.queue: deque[Event] = deque()
        self.wakeup = asyncio.Event()
        self.closed = asyncio.Event()  # set when the hub drops this watcher: its stream must end now
        self._fanout = fanout
        self._limit = limit

    def offer(self, event: Event) -> None:
        if len(self.queue) >= self._limit:
            self._fanout.drop(self)
            return
        self.queue.append(event)
        self.wakeup.set()

    def stop(self) -> None:
        self._fanout.remove(self)


class Fanout:
    """The watchers of one resource."""

    def __init__(self, store: Store, storage_key: str) -> None:
        self.storage_key = storage_key
        self.watchers: set[Watcher] = set()
        self._unsubscribe: Callable[[], None] | None = None
        self._store = store

    def add(self, limit: int, backlog: list[Change]) -> Watcher:
        """A new watcher holding `backlog`; later changes follow it without a gap (no await in between)."""
        watcher = Watcher(self, limit)
        for change in backlog:
            watcher.queue.append(Event(change))
        if self._unsubscribe is None:
            self._unsubscribe = self._store.subscribe(self.storage_key, self._dispatch, self._restart)
        self.watchers.add(watcher)
        metrics.WATCHERS.labels(self.storage_key).inc()
        return watcher

    def remove(self, watcher: Watcher) -> None:
        if watcher in self.watchers:
            self.watchers.discard(watcher)
            metrics.WATCHERS.labels(self.storage_key).dec()
        if not self.watchers and self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def drop(self, watcher: Watcher) -> None:
        log.warning("closing a watch of %s that fell %d events behind", self.storage_key, len(watcher.queue))
        self._close(watcher)

    def _restart(self) -> None:
        # The store lost changes and reloaded: every watcher here may have missed some, so each client
        # must re-list (as kube-apiserver's cacher ends all watches when it re-lists).
        log.warning("closing %d watches of %s: the store reloaded", len(self.watchers), self.storage_key)
        for watcher in tuple(self.watchers):
            self._close(watcher)

    def _close(self, watcher: Watcher) -> None:
        self.remove(watcher)
        watcher.queue.clear()
        watcher.closed.set()
        watcher.wakeup.set()
        metrics.WATCHERS_DROPPED.labels(self.storage_key).inc()

    def _dispatch(self, change: Change) -> None:
        event = Event(change)
        for watcher in tuple(self.watchers):
            watcher.offer(event)


class WatchHub:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._fanouts: dict[str, Fanout] = {}

    def fanout(self, storage_key: str) -> Fanout:
        fanout = self._fanouts.get(storage_key)
        if fanout is None:
            fanout = self._fanouts[storage_key] = Fanout(self._store, storage_key)
        return fanout
