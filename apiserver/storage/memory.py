"""Every object of every resource in memory, as the bytes it was stored as, with a bounded history.

Both stores keep their readable state here: the embedded store fills it from its write-ahead log,
the etcd store from etcd's watch (a watch cache). Reads, snapshots for paging, history for watches
and the listeners of live changes all come from this one place.
"""

from __future__ import annotations

import bisect
import builtins
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from apiserver.storage.interface import Change, ChangeType, Expired, Key, Listener, StoredObject
from apiserver.storage.snapshot import Snapshot, undo


@dataclass
class _Resource:
    objects: dict[tuple[str, str], StoredObject] = field(default_factory=dict)
    sorted_keys: list[tuple[str, str]] | None = None
    history: deque[tuple[float, Change]] = field(default_factory=deque)
    history_floor: int = 0  # watches may start at this revision or later
    changed: int = 0  # the revision of the newest write to this resource: its objects' version
    listeners: list[Listener] = field(default_factory=list)
    reset_listeners: list[Callable[[], None]] = field(default_factory=list)

    def ordered_keys(self) -> list[tuple[str, str]]:
        if self.sorted_keys is None:
            self.sorted_keys = sorted(self.objects)
        return self.sorted_keys


class MemoryState:
    def __init__(self, history_size: int, history_seconds: float) -> None:
        self._history_size = history_size
        self._history_seconds = history_seconds
        self._resources: dict[str, _Resource] = {}
        self.revision = 0
        self._history_start = 0  # changes before it were not kept: where the state was loaded from

    def _resource(self, storage_key: str) -> _Resource:
        res = self._resources.get(storage_key)
        if res is None:
            # A resource first seen now has had no changes since the state was loaded, so none were dropped.
            res = self._resources[storage_key] = _Resource(history_floor=self._history_start)
        return res

    # -- reading -------------------------------------------------------------------------------

    def get(self, key: Key) -> StoredObject | None:
        res = self._resources.get(key[0])
        return None if res is None else res.objects.get((key[1], key[2]))

    def list(self, storage_key: str, namespace: str | None) -> tuple[int, builtins.list[tuple[Key, StoredObject]]]:
        res = self._resources.get(storage_key)
        if res is None:
            return self.revision, []
        keys = res.ordered_keys()
        if namespace is not None:
            lo = bisect.bisect_left(keys, (namespace, ""))
            hi = bisect.bisect_left(keys, (namespace + "\x00", ""))
            keys = keys[lo:hi]
        objects = res.objects
        return self.revision, [((storage_key, ns, name), objects[(ns, name)]) for ns, name in keys]

    def copied(self) -> builtins.list[tuple[str, dict[tuple[str, str], StoredObject]]]:
        """Every resource's objects as they stand now, copied (in C: quick enough for the event loop) so
        that another thread can go through them while the state moves on."""
        return [(storage_key, dict(res.objects)) for storage_key, res in self._resources.items()]

    def items(self) -> Iterator[tuple[Key, StoredObject]]:
        """Every object of every resource, in no particular order."""
        for storage_key, res in self._resources.items():
            for (ns, name), obj in res.objects.items():
                yield (storage_key, ns, name), obj

    def changes_since(self, storage_key: str, rv: int) -> builtins.list[Change]:
        res = self._resource(storage_key)
        # Trimmed here too, so the age bound holds for a resource nobody has written to lately.
        self._trim(res, time.monotonic())
        if rv < res.history_floor:
            raise Expired(rv, res.history_floor)
        out: list[Change] = []
        for _, change in reversed(res.history):
            if change.rv <= rv:
                break
            out.append(change)
        out.reverse()
        return out

    def version_at(self, storage_key: str, revision: int) -> int | None:
        """The `version` a snapshot at `revision` has, when it is the current objects (nothing written
        since); None otherwise, or when the snapshot would be Expired."""
        res = self._resources.get(storage_key)
        if res is None or revision < res.history_floor or res.changed > revision:
            return None
        return res.changed

    def snapshot(self, storage_key: str, namespace: str | None, revision: int) -> Snapshot:
        res = self._resource(storage_key)
        if revision < res.history_floor:
            raise Expired(revision, res.history_floor)
        later = []
        for _, change in reversed(res.history):
            if change.rv <= revision:
                break
            later.append(change)
        past = undo(later, namespace)
        keys = res.ordered_keys()
        lo, hi = 0, len(keys)
        if namespace is not None:
            lo = bisect.bisect_left(keys, (namespace, ""))
            hi = bisect.bisect_left(keys, (namespace + "\x00", ""))
        past_keys = sorted(k for k, v in past.items() if v is not None)
        return Snapshot(storage_key, revision, keys, lo, hi, res.objects, past, past_keys, res.changed)

    def subscribe(self, storage_key: str, listener: Listener,
                  on_reset: Callable[[], None] | None = None) -> Callable[[], None]:
        res = self._resource(storage_key)
        res.listeners.append(listener)
        if on_reset is not None:
            res.reset_listeners.append(on_reset)

        def unsubscribe() -> None:
            if listener in res.listeners:
                res.listeners.remove(listener)
            if on_reset is not None and on_reset in res.reset_listeners:
                res.reset_listeners.remove(on_reset)

        return unsubscribe

    # -- changing ------------------------------------------------------------------------------

    def apply(self, key: Key, rv: int, data: bytes, delete: bool, now: float) -> Change | None:
        """Records one change, remembers it for watches and tells the listeners; None for a no-op delete."""
        res = self._resource(key[0])
        object_key = (key[1], key[2])
        prev = res.objects.get(object_key)
        change_type: ChangeType
        if delete:
            if prev is None:
                self.revision = max(self.revision, rv)
                return None
            del res.objects[object_key]
            res.sorted_keys = None
            change_type = "DELETED"
        else:
            if prev is None:
                res.sorted_keys = None
            res.objects[object_key] = StoredObject(rv, data)
            change_type = "ADDED" if prev is None else "MODIFIED"
        # Never backwards, whatever a backend sends: the revision is what every list and watch starts from.
        self.revision = max(self.revision, rv)
        res.changed = rv
        change = Change(rv, change_type, key, data, None if prev is None else prev.data,
                        0 if prev is None else prev.rv)
        res.history.append((now, change))
        self._trim(res, now)
        for listener in tuple(res.listeners):
            listener(change)
        return change

    def load(self, key: Key, stored: StoredObject | None) -> None:
        """Sets one object while loading a state: no history, no listeners."""
        res = self._resource(key[0])
        if stored is None:
            res.objects.pop((key[1], key[2]), None)
        else:
            res.objects[(key[1], key[2])] = stored
        res.sorted_keys = None

    def loaded(self, revision: int) -> None:
        """The state is complete as of `revision`: history, and so watches, start there."""
        self.revision = max(self.revision, revision)
        self._history_start = self.revision
        for res in self._resources.values():
            res.history.clear()
            res.history_floor = res.changed = self.revision

    def replace(self, items: Iterable[tuple[Key, StoredObject]], revision: int) -> None:
        """Swaps the whole state for `items` as of `revision` (a reload after changes were lost); whoever
        follows a resource is told to start over, once the new state is in place."""
        for res in self._resources.values():
            res.objects.clear()
            res.sorted_keys = None
        for key, stored in items:
            self.load(key, stored)
        self.loaded(revision)
        for res in tuple(self._resources.values()):
            for on_reset in tuple(res.reset_listeners):
                on_reset()

    def _trim(self, res: _Resource, now: float) -> None:
        history = res.history
        horizon = now - self._history_seconds
        while history and (len(history) > self._history_size or history[0][0] < horizon):
            _, dropped = history.popleft()
            res.history_floor = dropped.rv


class MemoryReads:
    """The reads both stores serve alike, from the MemoryState each keeps current: they differ only in
    how a write reaches it (the embedded store's log, or etcd's watch) and in `latest`."""

    _state: MemoryState

    @property
    def revision(self) -> int:
        return self._state.revision

    def get(self, key: Key) -> StoredObject | None:
        return self._state.get(key)

    def list(self, storage_key: str, namespace: str | None) -> tuple[int, builtins.list[tuple[Key, StoredObject]]]:
        return self._state.list(storage_key, namespace)

    def changes_since(self, storage_key: str, rv: int) -> builtins.list[Change]:
        return self._state.changes_since(storage_key, rv)

    def snapshot(self, storage_key: str, namespace: str | None, revision: int) -> Snapshot:
        return self._state.snapshot(storage_key, namespace, revision)

    def version_at(self, storage_key: str, revision: int) -> int | None:
        return self._state.version_at(storage_key, revision)

    def subscribe(self, storage_key: str, listener: Listener,
                  on_reset: Callable[[], None] | None = None) -> Callable[[], None]:
        """`on_reset` is called after the state is replaced (only etcd's cache ever is, on a reload)."""
        return self._state.subscribe(storage_key, listener, on_reset)
