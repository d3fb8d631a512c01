"""List answers assembled once per collection version, reused until the collection changes.

A view of a collection (a resource as one type serves it, a namespace, selectors, a page) read
while the resource's objects are at one version always selects the same items and gives the same
item bytes in every shape. The first list of a view keeps what it selected and, per shape, its
items' joined bytes; later lists at that version splice in only their own parts (resourceVersion,
continue token, ages). A write to the resource makes a new version: the next list of it drops every
entry of the older one. Memory is bounded by bytes, least recently used first out.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field

from apiserver import metrics
from apiserver.storage.interface import Key, StoredObject

# What one selected item costs in an entry beside the bytes it references (which the store holds):
# a list slot, the (key, object) pair and the key tuple, on 64-bit CPython.
_ITEM_BYTES = 8 + 56 + 64

_SELECTION_HITS, _SELECTION_MISSES = (c.labels("selection") for c in (metrics.ASSEMBLED_HITS, metrics.ASSEMBLED_MISSES))
_BODY_HITS, _BODY_MISSES = (c.labels("body") for c in (metrics.ASSEMBLED_HITS, metrics.ASSEMBLED_MISSES))

DEFAULT_LIMIT_BYTES = 256 * 1024 * 1024
DEFAULT_MAX_ENTRIES = 4096


@dataclass(eq=False)
class Pieces:
    """What one view gave at one version: its items, its page's end, and joined bytes per shape.

    `more` is the first key of the next page (None: this is the last one) and `remaining` how many
    objects follow this page, both as the list found them."""

    resource: str
    view: Hashable
    version: int
    items: list[tuple[Key, StoredObject]]
    more: tuple[str, str] | None
    remaining: int | None
    _cache: AssemblyCache
    _parts: dict[Hashable, tuple[Hashable, bytes]] = field(default_factory=dict)
    _kept: dict[Hashable, tuple[object, int]] = field(default_factory=dict)
    size: int = 0

    def get(self, key: Hashable, moment: Hashable = None) -> bytes | None:
        """The bytes kept under `key`; with `moment`, only those made at that same moment (a Table's second)."""
        hit = self._parts.get(key)
        if hit is None or hit[0] != moment:
            _BODY_MISSES.inc()
            return None
        _BODY_HITS.inc()
        return hit[1]

    def put(self, key: Hashable, value: bytes, moment: Hashable = None) -> bytes:
        """Keeps `value` under `key` (replacing what an earlier moment made) and returns it."""
        old = self._parts.get(key)
        self._parts[key] = (moment, value)
        self._cache.grew(self, len(value) - (0 if old is None else len(old[1])))
        return value

    def kept(self, key: Hashable) -> object | None:
        """What `keep` put under `key`: something a shape assembles its bytes from (a Table's rows)."""
        hit = self._kept.get(key)
        return None if hit is None else hit[0]

    def keep(self, key: Hashable, value: object, size: int) -> None:
        """Keeps `value`, counted as `size` bytes, for as long as this version is kept."""
        old = self._kept.get(key)
        self._kept[key] = (value, size)
        self._cache.grew(self, size - (0 if old is None else old[1]))


class AssemblyCache:
    """The bounded set of assembled views, by view, each valid for one version of its resource."""

    def __init__(self, limit_bytes: int = DEFAULT_LIMIT_BYTES, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        self.limit_bytes = limit_bytes
        self.max_entries = max_entries
        self.size = 0
        self._entries: OrderedDict[Hashable, Pieces] = OrderedDict()
        self._views: dict[str, tuple[int, set[Hashable]]] = {}  # resource -> (version, its views)

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, view: Hashable, version: int) -> Pieces | None:
        entry = self._entries.get(view)
        if entry is None or entry.version != version:
            _SELECTION_MISSES.inc()
            return None
        _SELECTION_HITS.inc()
        self._entries.move_to_end(view)
        return entry

    def remember(self, resource: str, view: Hashable, version: int, items: list[tuple[Key, StoredObject]],
                 more: tuple[str, str] | None, remaining: int | None) -> Pieces:
        """Keeps what a view selected at `version` of `resource`; entries of its older versions go."""
        known = self._views.get(resource)
        if known is None or known[0] < version:
            if known is not None:
                for stale in list(known[1]):
                    self._drop(stale)
            known = self._views[resource] = (version, set())
        entry = Pieces(resource, view, version, items, more, remaining, self)
        if known[0] != version:
            # Read at a version older than one already kept (cannot happen within one synchronous
            # read): serve it, keep nothing.
            return entry
        self._drop(view)
        self._entries[view] = entry
        known[1].add(view)
        self.grew(entry, len(items) * _ITEM_BYTES)
        return entry

    def grew(self, entry: Pieces, delta: int) -> None:
        entry.size += delta
        if self._entries.get(entry.view) is entry:
            self.size += delta
        self._evict()

    def _evict(self) -> None:
        while self._entries and (self.size > self.limit_bytes or len(self._entries) > self.max_entries):
            self._drop(next(iter(self._entries)))
        metrics.ASSEMBLED_BYTES.set(self.size)
        metrics.ASSEMBLED_ENTRIES.set(len(self._entries))

    def _drop(self, view: Hashable) -> None:
        entry = self._entries.pop(view, None)
        if entry is None:
            return
        self.size -= entry.size
        known = self._views.get(entry.resource)
        if known is not None:
            known[1].discard(view)
