"""What the API layer needs of a store: objects as compact JSON bytes under a global revision.

Implementations: `embedded.EmbeddedStore` (in memory, durable through a write-ahead log) and
`etcd.EtcdStore` (etcd, read through an in-memory watch cache). Reads are synchronous and served from
memory; `catch_up` is the one place a read waits, so that it shows what was written elsewhere first.
Nothing above this module names an implementation but the assembly in server.py.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Literal, Protocol

# (storage key of the resource, namespace or "", name)
Key = tuple[str, str, str]
ChangeType = Literal["ADDED", "MODIFIED", "DELETED"]


@dataclass(frozen=True, slots=True)
class StoredObject:
    rv: int
    data: bytes  # compact JSON of the whole object, metadata.resourceVersion included


@dataclass(frozen=True, slots=True)
class Change:
    rv: int
    type: ChangeType
    key: Key
    data: bytes  # the object after the change; for DELETED its last state at the deletion's revision
    prev: bytes | None  # the object before the change, so selector watches can tell leaving from staying
    prev_rv: int = 0  # the revision `prev` was written at, so a past state can be listed again


class PreconditionFailed(Exception):
    """The object changed (or appeared, or vanished) between reading it and writing it."""


class ResourceChanged(PreconditionFailed):
    """Another object of the resource was written after the revision a write was decided at (two servers
    allocating service IPs or node ports at once); deciding again on the newer state may succeed."""


class Expired(Exception):
    """The requested revision is older than the retained history."""

    def __init__(self, requested: int, oldest: int) -> None:
        super().__init__(f"too old resource version: {requested} ({oldest})")
        self.requested = requested
        self.oldest = oldest


class StorageUnavailable(Exception):
    """The write could not be made durable (a full disk, an I/O error); nothing was applied."""


class StoreUnreachable(Exception):
    """The store's backend did not answer in time (etcd down or without a leader); a write may or may not
    have been applied, as with any timeout."""


Listener = Callable[[Change], None]

if TYPE_CHECKING:
    from apiserver.storage.snapshot import Snapshot


class Store(Protocol):
    # Whether other processes write to the store too (etcd), so that a read may have to wait for
    # their writes (`catch_up`); the embedded store's one writer is this process.
    shared: bool

    @property
    def revision(self) -> int:
        """The revision of the newest durable write."""

    @property
    def ready(self) -> bool:
        """Whether reads are current: false while the backend is unreachable."""

    async def start(self) -> None:
        """Loads the state; reads may be made once this returns."""

    async def catch_up(self, revision: int | None) -> None:
        """Waits until reads show `revision`, or (None) every write acknowledged anywhere before the call.

        Raises StoreUnreachable when the backend cannot say how far it is; returns without reaching a
        given `revision` after a bounded wait (the caller answers "too large resource version").
        """

    def get(self, key: Key) -> StoredObject | None:
        """The durable state of one object."""

    def latest(self, key: Key) -> StoredObject | None:
        """The newest state including writes still being made durable: what a writer must check against."""

    def list(self, storage_key: str, namespace: str | None) -> tuple[int, list[tuple[Key, StoredObject]]]:
        """All objects of a resource (in one namespace or all), sorted by namespace and name, and the revision."""

    def submit(self, key: Key, obj: dict[str, Any], expected: StoredObject | None,
               delete: bool = False, unchanged_since: int | None = None) -> Awaitable[StoredObject]:
        """Writes `obj` (or deletes the key) if `latest(key)` is still `expected`, and, with `unchanged_since`,
        if no object of the key's resource was written after that revision (else ResourceChanged).

        Sets metadata.resourceVersion to the new revision. Raises PreconditionFailed at once when the
        object moved; the returned awaitable resolves once the write is durable, or raises
        StorageUnavailable.
        """

    def snapshot(self, storage_key: str, namespace: str | None, revision: int) -> Snapshot:
        """The resource (in one namespace or all) as of `revision`; Expired when not retained.

        Its `changed` is the revision of the resource's newest write, which lets lists reuse what
        they assembled until the next one (left None, nothing is reused)."""

    def version_at(self, storage_key: str, revision: int) -> int | None:
        """What `snapshot(storage_key, _, revision).version` would be, without making the snapshot: lists
        look up what they assembled before reading anything. None when that snapshot would not be the
        current objects (or would be Expired): then make it."""

    def changes_since(self, storage_key: str, rv: int) -> builtins.list[Change]:  # `list` is the method above
        """Durable changes of a resource after revision `rv`, oldest first; Expired when not retained."""

    def subscribe(self, storage_key: str, listener: Listener,
                  on_reset: Callable[[], None] | None = None) -> Callable[[], None]:
        """Calls `listener` with every later change of the resource; returns the unsubscribe function.

        `on_reset` is called when changes were lost (the backend compacted them away) and the state was
        loaded afresh: a follower must start over from a new list.
        """

    async def close(self) -> None:
        """Finishes pending writes and releases files."""
