"""Informers: one resource's objects, listed once and then kept current from the change feed.

An informer lists through the Endpoint and follows the resource's watch fan-out from that revision,
so no change falls between the two. Handlers run for every change, synchronously and in order, and
only queue keys. If the fan-out drops the informer for falling behind, it catches up from the
retained history after the last revision it saw; only when that history is gone does it list again,
the whole-store resync counted in /metrics as `apiserver_controller_relists`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable, Iterator

import orjson

from apiserver import metrics
from apiserver.http.endpoint import Endpoint, Target
from apiserver.kinds.resources import ResourceType
from apiserver.storage.interface import Change, Expired
from apiserver.watch.fanout import Watcher

log = logging.getLogger("apiserver.controllers")

Obj = dict[str, Any]
# (old state or None when added, new state or None when deleted)
Handler = Callable[[Obj | None, Obj | None], None]

# In-process followers keep up unless the loop is starved; a long queue costs only memory.
_QUEUE_LIMIT = 100_000


class Informer:
    def __init__(self, endpoint: Endpoint, rt: ResourceType) -> None:
        self.rt = rt
        self.revision = 0
        self.synced = asyncio.Event()
        self._endpoint = endpoint
        self._objects: dict[str, dict[str, Obj]] = {}  # namespace -> name -> object
        self._handlers: list[Handler] = []
        self._watcher: Watcher | None = None
        # Shown at zero from the start, so that /metrics proves the absence of resyncs.
        metrics.CONTROLLER_RELISTS.labels(rt.storage_key)
        metrics.CONTROLLER_CATCHUPS.labels(rt.storage_key)

    def add_handler(self, handler: Handler) -> None:
        """Calls `handler` for every later change, and at once as an add for every object already known."""
        self._handlers.append(handler)
        for obj in self.items():
            handler(None, obj)

    def get(self, namespace: str, name: str) -> Obj | None:
        return self._objects.get(namespace, {}).get(name)

    def items(self, namespace: str | None = None) -> list[Obj]:
        if namespace is not None:
            return list(self._objects.get(namespace, {}).values())
        return [obj for names in self._objects.values() for obj in names.values()]

    def __iter__(self) -> Iterator[Obj]:
        return iter(self.items())

    def prime(self) -> None:
        """The first list: every handler sees every object as added."""
        if not self.synced.is_set():
            self._list()

    async def run(self) -> None:
        self.prime()
        while True:
            watcher = self._watcher = self._follow()
            try:
                while not watcher.closed.is_set():
                    while watcher.queue:
                        self._apply(watcher.queue.popleft().change)
                    watcher.wakeup.clear()
                    await watcher.wakeup.wait()
            finally:
                watcher.stop()
            metrics.CONTROLLER_CATCHUPS.labels(self.rt.storage_key).inc()
            log.warning("informer of %s fell behind; catching up from revision %d", self.rt.storage_key,
                        self.revision)

    def backlog(self) -> int:
        """Changes the fan-out has handed this informer that its handlers have not yet seen."""
        return 0 if self._watcher is None else len(self._watcher.queue)

    def _follow(self) -> Watcher:
        try:
            return self._endpoint.follow(self.rt, self.revision, _QUEUE_LIMIT)
        except Expired:
            metrics.CONTROLLER_RELISTS.labels(self.rt.storage_key).inc()
            log.warning("history of %s no longer reaches revision %d; listing again", self.rt.storage_key,
                        self.revision)
            self._list()
            return self._endpoint.follow(self.rt, self.revision, _QUEUE_LIMIT)

    def _list(self) -> None:
        listing = self._endpoint.select(Target(self.rt, "", None, None, {}))
        fresh: dict[str, dict[str, Obj]] = {}
        for key, stored in listing.items:
            fresh.setdefault(key[1], {})[key[2]] = orjson.loads(stored.data)
        old = self._objects
        self._objects = fresh
        self.revision = listing.revision
        for namespace, names in old.items():
            for name, obj in names.items():
                if name not in fresh.get(namespace, {}):
                    self._notify(obj, None)
        for namespace, names in fresh.items():
            for name, obj in names.items():
                before = old.get(namespace, {}).get(name)
                if before is None or before["metadata"].get("resourceVersion") != obj["metadata"].get("resourceVersion"):
                    self._notify(before, obj)
        self.synced.set()

    def _apply(self, change: Change) -> None:
        if change.rv <= self.revision:
            return
        self.revision = change.rv
        _, namespace, name = change.key
        names = self._objects.setdefault(namespace, {})
        before = names.get(name)
        if change.type == "DELETED":
            names.pop(name, None)
            if not names:
                del self._objects[namespace]
            if before is not None:
                self._notify(before, None)
            return
        obj: Obj = orjson.loads(change.data)
        names[name] = obj
        self._notify(before, obj)

    def _notify(self, old: Obj | None, new: Obj | None) -> None:
        for handler in self._handlers:
            try:
                handler(old, new)
            except Exception:  # one controller's bug must not stop the others' feed
                log.exception("a handler of %s failed", self.rt.storage_key)


class Informers:
    """One informer per resource type, shared by every controller that watches it."""

    def __init__(self, endpoint: Endpoint) -> None:
        self._endpoint = endpoint
        self._informers: dict[str, Informer] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._started = False

    def for_type(self, rt: ResourceType) -> Informer:
        informer = self._informers.get(rt.storage_key)
        if informer is None:
            informer = self._informers[rt.storage_key] = Informer(self._endpoint, rt)
        return informer

    def backlogs(self) -> dict[str, int]:
        return {key: informer.backlog() for key, informer in self._informers.items()}

    def start(self) -> None:
        self._started = True
        for informer in list(self._informers.values()):  # a handler may ask for more while they prime
            self._run(informer)

    def follow(self, rt: ResourceType) -> Informer:
        """The type's informer, running at once if the others already do: for the types that appear
        while serving (custom resources, once their CRD is established)."""
        informer = self.for_type(rt)
        if self._started:
            self._run(informer)
        return informer

    def _run(self, informer: Informer) -> None:
        if not informer.synced.is_set():
            informer.prime()
            self._tasks.append(asyncio.create_task(informer.run(), name=f"informer {informer.rt.storage_key}"))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
