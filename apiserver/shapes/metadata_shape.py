"""The PartialObjectMetadata shapes: each object's stored `metadata` bytes, spliced, nothing else.

A get answers PartialObjectMetadata, a list PartialObjectMetadataList; asking for the other one
of the pair is refused with upstream's message, after the read (as upstream does), so a missing
object is still a 404.
"""

from __future__ import annotations

from collections.abc import Hashable

import orjson

from apiserver import errors
from apiserver.kinds.resources import ResourceType
from apiserver.reply import JSON_TYPE
from apiserver.shapes.shape import Listing
from apiserver.storage.interface import StoredObject
from tables.metadata import partial_object_metadata, pom_prefix

# The Go package of the internal types of a built-in group, where it is not the group's first label.
_GO_PACKAGES = {"": "core", "events.k8s.io": "core"}


def go_type(rt: ResourceType, is_list: bool) -> str:
    """The Go type upstream names in its errors: `*core.ConfigMapList`, `*unstructured.Unstructured`."""
    if rt.custom is not None:
        return "*unstructured.UnstructuredList" if is_list else "*unstructured.Unstructured"
    package = _GO_PACKAGES.get(rt.group, rt.group.split(".", 1)[0])
    return f"*{package}.{rt.list_kind if is_list else rt.kind}"


class MetadataShape:
    content_type = JSON_TYPE

    def __init__(self, api_version: str, as_list: bool, managed_fields: bool = True) -> None:
        self.api_version = api_version
        self.as_list = as_list
        self.managed_fields = managed_fields
        self._prefix = pom_prefix(api_version)
        self.key: Hashable = ("metadata", api_version, as_list, managed_fields)
        self._answer_key = ("answer", self.key)

    def object_body(self, rt: ResourceType, stored: StoredObject) -> bytes:
        if self.as_list:
            raise errors.not_acceptable("you requested PartialObjectMetadataList, but the requested object is "
                                        f"not a list ({go_type(rt, False)})")
        return partial_object_metadata(self._prefix, stored.data, self.managed_fields)

    def list_body(self, rt: ResourceType, listing: Listing) -> bytes:
        return b"".join(self.list_parts(rt, listing))

    def list_parts(self, rt: ResourceType, listing: Listing) -> list[bytes]:
        if not self.as_list:
            raise errors.not_acceptable("you requested PartialObjectMetadata, but the requested object is "
                                        f"a list ({go_type(rt, True)})")
        return listing.answered(self._answer_key, None, lambda: self._assemble(listing))

    def _assemble(self, listing: Listing) -> list[bytes]:
        prefix, managed = self._prefix, self.managed_fields
        head = orjson.dumps({"kind": "PartialObjectMetadataList", "apiVersion": self.api_version,
                             "metadata": listing.metadata()})
        items = listing.joined(self.key, lambda: b",".join(
            [partial_object_metadata(prefix, obj.data, managed) for _, obj in listing.items]))
        return [head[:-1] + b',"items":[', items, b"]}"]

    def event_object(self, rt: ResourceType, stored: StoredObject, first: bool) -> bytes:
        return partial_object_metadata(self._prefix, stored.data, self.managed_fields)

    def moment(self, now: float) -> Hashable:
        return None
