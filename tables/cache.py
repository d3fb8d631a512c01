"""A bounded least-recently-used map from one stored object version to what was computed from it.

Keys are (or contain) the stored bytes themselves: the store hands out the same bytes object for
an unchanged version, and CPython caches a bytes object's hash, so a hit costs a dict lookup.
Equal bytes always give equal results, so a key can never go stale; a new version is a new key
and the old one ages out.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, Hashable, TypeVar

V = TypeVar("V")

DEFAULT_LIMIT = 65_536


class VersionCache(Generic[V]):
    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self._entries: OrderedDict[Hashable, V] = OrderedDict()

    def get(self, key: Hashable) -> V | None:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key: Hashable, value: V) -> V:
        self._entries[key] = value
        if len(self._entries) > self.limit:
            self._entries.popitem(last=False)
        return value

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
