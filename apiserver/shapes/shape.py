"""The seam between reading objects and writing them out: one Shape per representation.

Negotiation picks a Shape: plain JSON and YAML of any shape (here), Table (`table_shape`),
PartialObjectMetadata (`metadata_shape`). A Shape turns stored bytes into a get body, a list body
or a watch event object, and knows nothing of storage or HTTP. `key` identifies the encoding, so
watchers asking for the same one share bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Hashable, Protocol

import orjson

from apiserver.kinds.conversion import codec_for
from apiserver.kinds.resources import ResourceType
from apiserver.shapes.assembled import Pieces
from apiserver.storage.interface import Key, StoredObject
from apiserver.wire.yaml_wire import json_to_yaml


@dataclass
class Listing:
    """What a list selected: the objects, the revision they were read at, and where a next page starts.

    `pieces`, when the same objects were listed before, keeps what each shape joined of them."""

    revision: int
    items: list[tuple[Key, StoredObject]]
    continue_token: str | None = None
    remaining: int | None = None
    pieces: Pieces | None = None

    def joined(self, key: Hashable, make: Callable[[], bytes], moment: Hashable = None) -> bytes:
        """The items' bytes in the shape `key` names, made by `make` once per collection version (and
        `moment`, for bytes that also depend on the time: see `Shape.moment`)."""
        if self.pieces is None:
            return make()
        kept = self.pieces.get(key, moment)
        return kept if kept is not None else self.pieces.put(key, make(), moment)

    def answered(self, key: Hashable, moment: Hashable, make: Callable[[], list[bytes]]) -> list[bytes]:
        """The whole answer in the shape `key` names, as one part: joined once and reused by every list
        of these items at the same revision, page end and `moment` (a Table's second), whose metadata
        and bytes are then the same; so a repeated list is neither assembled nor copied again."""
        kept = self.kept_answer(key, moment)
        return kept if kept is not None else self.keep_answer(key, moment, make())

    def kept_answer(self, key: Hashable, moment: Hashable) -> list[bytes] | None:
        """The whole answer `answered` kept under `key` for this list at `moment`, None when there is none."""
        if self.pieces is None:
            return None
        kept = self.pieces.get(key, (self.revision, self.continue_token, self.remaining, moment))
        return None if kept is None else [kept]

    def keep_answer(self, key: Hashable, moment: Hashable, parts: list[bytes]) -> list[bytes]:
        """`parts`, kept as one whole answer for `kept_answer` when this list's items were assembled."""
        if self.pieces is None:
            return parts
        return [self.pieces.put(key, b"".join(parts), (self.revision, self.continue_token, self.remaining, moment))]

    def metadata(self) -> dict[str, object]:
        meta: dict[str, object] = {"resourceVersion": str(self.revision)}
        if self.continue_token:
            meta["continue"] = self.continue_token
        if self.remaining is not None:
            meta["remainingItemCount"] = self.remaining
        return meta


class Shape(Protocol):
    content_type: str

    @property
    def key(self) -> Hashable:
        """Equal keys produce equal bytes for the same stored object."""

    def object_body(self, rt: ResourceType, stored: StoredObject) -> bytes:
        """The answer to a get."""

    def list_body(self, rt: ResourceType, listing: Listing) -> bytes:
        """The answer to a list."""

    def list_parts(self, rt: ResourceType, listing: Listing) -> list[bytes]:
        """The answer to a list in the pieces it is assembled from: their join is `list_body`."""

    def event_object(self, rt: ResourceType, stored: StoredObject, first: bool) -> bytes:
        """The `object` of a watch event; `first` is true for the first event a watcher receives."""

    def moment(self, now: float) -> Hashable:
        """What, besides the stored objects, this shape's bytes depend on at time `now`: equal moments,
        equal bytes (a Table's ages change by the second); None when only the objects count."""


def typed_list_items(rt: ResourceType, stored: list[bytes]) -> bytes:
    """The items of a built-in kind's list, comma-joined: each object without kind and apiVersion.

    Upstream decodes items into typed lists, whose items carry no TypeMeta; custom resources'
    unstructured lists keep it. Stored bytes begin with exactly this kind/apiVersion prefix
    (objects.ordered puts them first), so dropping it is a slice, not a re-serialization.
    """
    codec = codec_for(rt)
    served = stored if codec.identity else [codec.served_bytes(data) for data in stored]
    prefix = orjson.dumps({"kind": rt.kind, "apiVersion": rt.api_version})[:-1] + b","
    cut = len(prefix)
    # Each tail is an object's bytes after its opening brace; the join puts the braces back.
    tails = [data[cut:] if data.startswith(prefix) else _without_type_meta(data)[1:] for data in served]
    return b"{" + b",{".join(tails) if tails else b""


def _without_type_meta(data: bytes) -> bytes:
    obj = orjson.loads(data)
    obj.pop("kind", None)
    obj.pop("apiVersion", None)
    return orjson.dumps(obj)


class JsonShape:
    """Plain objects and `<Kind>List`s: stored bytes spliced, never re-serialized (unless converted)."""

    content_type = "application/json"

    @property
    def key(self) -> Hashable:
        return "json"

    def object_body(self, rt: ResourceType, stored: StoredObject) -> bytes:
        return codec_for(rt).served_bytes(stored.data)

    def list_body(self, rt: ResourceType, listing: Listing) -> bytes:
        return b"".join(self.list_parts(rt, listing))

    def list_parts(self, rt: ResourceType, listing: Listing) -> list[bytes]:
        return listing.answered(_JSON_ANSWER, None, lambda: self._assemble(rt, listing))

    def _assemble(self, rt: ResourceType, listing: Listing) -> list[bytes]:
        items = listing.joined(self.key, lambda: _plain_items(rt, listing))
        head = orjson.dumps({"kind": rt.list_kind, "apiVersion": rt.api_version, "metadata": listing.metadata()})
        return [head[:-1] + b',"items":[', items, b"]}"]

    def event_object(self, rt: ResourceType, stored: StoredObject, first: bool) -> bytes:
        return codec_for(rt).served_bytes(stored.data)

    def moment(self, now: float) -> Hashable:
        return None


_JSON_ANSWER = ("answer", "json")


def _plain_items(rt: ResourceType, listing: Listing) -> bytes:
    stored = [obj.data for _, obj in listing.items]
    if rt.custom:
        serve = codec_for(rt).served_bytes
        return b",".join([serve(data) for data in stored])
    return typed_list_items(rt, stored)


JSON_SHAPE = JsonShape()


class YamlShape:
    """Any shape's answer written as YAML (upstream serves YAML for reads, never for watches)."""

    content_type = "application/yaml"

    def __init__(self, inner: Shape) -> None:
        self.inner = inner

    @property
    def key(self) -> Hashable:
        return ("yaml", self.inner.key)

    def object_body(self, rt: ResourceType, stored: StoredObject) -> bytes:
        return json_to_yaml(self.inner.object_body(rt, stored))

    def list_body(self, rt: ResourceType, listing: Listing) -> bytes:
        return json_to_yaml(self.inner.list_body(rt, listing))

    def list_parts(self, rt: ResourceType, listing: Listing) -> list[bytes]:
        return [self.list_body(rt, listing)]

    def event_object(self, rt: ResourceType, stored: StoredObject, first: bool) -> bytes:
        return json_to_yaml(self.inner.event_object(rt, stored, first))

    def moment(self, now: float) -> Hashable:
        return self.inner.moment(now)
