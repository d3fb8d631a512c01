"""A bounded map from one stored object version to what was computed from it.

Keys are (or contain) the stored bytes themselves: the store hands out the same bytes object for
an unchanged version, and CPython caches a bytes object's hash, so a hit costs one dict lookup.
Equal bytes always give equal results, so an entry never goes stale; a new version is a new key,
and the oldest entries leave first once the bound is reached (no bookkeeping on a hit).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import TypeVar

V = TypeVar("V")

# Above the objects of the largest collection listed: a list walks every object in key order, so a
# bound below that evicts each entry just before it is needed again and nothing is ever reused.
DEFAULT_LIMIT = 262_144


class VersionCache(OrderedDict[Hashable, V]):
    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        super().__init__()
        self.limit = limit

    def put(self, key: Hashable, value: V) -> V:
        self[key] = value
        if len(self) > self.limit:
            self.popitem(last=False)
        return value
