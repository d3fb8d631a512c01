"""A resource as it stood at an earlier revision: the current objects with the later changes undone.

A paged list reads every page at the revision of its first page. Instead of copying the resource,
a Snapshot keeps the current key order and, for the few keys written since, their state back then;
iterating merges the two. Built and consumed within one synchronous step, so the store cannot move
underneath it.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Iterator, Mapping

from apiserver.storage.interface import Change, Key, StoredObject

ObjectKey = tuple[str, str]  # (namespace, name)


@dataclass
class Snapshot:
    storage_key: str
    revision: int
    keys: list[ObjectKey]  # current keys in order
    lo: int  # the namespace's slice of `keys`
    hi: int
    objects: Mapping[ObjectKey, StoredObject]
    past: dict[ObjectKey, StoredObject | None]  # keys written after `revision`: their state at it
    past_keys: list[ObjectKey]  # keys of `past` that existed at `revision`, in order
    # The revision of the resource's newest write: equal values, equal current objects. None when the
    # store does not say (a store that leaves it out never has its lists reused).
    changed: int | None = None

    @property
    def version(self) -> int | None:
        """What identifies this snapshot's objects: equal versions list equal objects; None when the
        snapshot reads an older state (changes since `revision` are undone), which is not shared."""
        return None if self.past else self.changed

    def items(self, start: ObjectKey | None = None) -> Iterator[tuple[Key, StoredObject]]:
        """Objects at `revision` whose key is `start` or later, in key order."""
        i = self.lo if start is None else max(self.lo, bisect.bisect_left(self.keys, start, self.lo, self.hi))
        j = 0 if start is None else bisect.bisect_left(self.past_keys, start)
        keys, past, past_keys = self.keys, self.past, self.past_keys
        while True:
            while i < self.hi and keys[i] in past:
                i += 1
            current = keys[i] if i < self.hi else None
            older = past_keys[j] if j < len(past_keys) else None
            if current is None and older is None:
                return
            if older is None or (current is not None and current < older):
                assert current is not None
                yield (self.storage_key, *current), self.objects[current]
                i += 1
            else:
                stored = past[older]
                assert stored is not None
                yield (self.storage_key, *older), stored
                j += 1

    def unchanged_items(self) -> list[tuple[Key, StoredObject]] | None:
        """Every object at once when nothing changed since `revision` (the common, unpaged case), else None."""
        if self.past:
            return None
        sk, objects = self.storage_key, self.objects
        return [((sk, ns, name), objects[(ns, name)]) for ns, name in self.keys[self.lo:self.hi]]

    def count(self, start: ObjectKey) -> int:
        """How many objects at `revision` have a key `start` or later."""
        current = self.hi - max(self.lo, bisect.bisect_left(self.keys, start, self.lo, self.hi))
        changed_now = sum(1 for k in self.past if k >= start and k in self.objects)
        return current - changed_now + len(self.past_keys) - bisect.bisect_left(self.past_keys, start)


def undo(changes_newest_first: list[Change], namespace: str | None) -> dict[ObjectKey, StoredObject | None]:
    """Each changed key's state before the oldest of `changes`: what a reader at that revision saw."""
    past: dict[ObjectKey, StoredObject | None] = {}
    for change in changes_newest_first:
        if namespace is not None and change.key[1] != namespace:
            continue
        past[(change.key[1], change.key[2])] = (None if change.prev is None
                                                else StoredObject(change.prev_rv, change.prev))
    return past
