"""Custom objects moved between their CRD's versions by its conversion webhook, where the request path
needs it: stored objects into the version a get, list or watch asks for, and a written object into
the storage version.

This is what upstream's storage codec does for a CRD with `strategy: Webhook` (decoding into the
request's version, encoding into the storage version), done as an await on the request path, so a
slow webhook holds only the requests that wait for it. A CRD with strategy None never gets here
(`converts` is false): its reads stay a splice of the stored bytes.

Objects are sent as upstream's store decodes them, without metadata.resourceVersion (the store's,
not the object's); it is put back on what the webhook answers. Nothing converted is kept: a webhook's
answer may change with the webhook, and the next read asks again.
"""

from __future__ import annotations

from typing import Any

import orjson

from apiserver.crd import webhookconversion  # as a module: it may still be loading (see calling.py)
from apiserver.kinds.resources import ResourceType
from apiserver.storage.interface import Key, StoredObject

Obj = dict[str, Any]


def converts(rt: ResourceType) -> bool:
    """Whether objects of this type may need the webhook: a version of a CRD with strategy Webhook."""
    return rt.custom is not None and rt.custom.conversion is not None


class CustomConversion:
    def __init__(self, converter: webhookconversion.Converter) -> None:
        self._converter = converter

    async def close(self) -> None:
        await self._converter.close()

    async def served(self, rt: ResourceType, stored: StoredObject) -> StoredObject:
        """A stored object in `rt`'s version (as it is when it already is)."""
        return (await self._served(rt, [stored], None))[0]

    async def served_items(self, rt: ResourceType,
                           items: list[tuple[Key, StoredObject]]) -> list[tuple[Key, StoredObject]]:
        """A list's objects in `rt`'s version, all sent in one ConversionReview."""
        if not items:
            return items
        served = await self._served(rt, [stored for _, stored in items], rt.list_kind)
        return [(key, obj) for (key, _), obj in zip(items, served)]

    async def served_all(self, rt: ResourceType, stored: list[StoredObject], listed: bool) -> list[StoredObject]:
        """Objects in `rt`'s version, in one ConversionReview; `listed` when they are a list's items."""
        return await self._served(rt, stored, rt.list_kind if listed else None)

    async def _served(self, rt: ResourceType, stored: list[StoredObject], list_kind: str | None) -> list[StoredObject]:
        assert rt.custom is not None and rt.custom.conversion is not None
        head = b'{"apiVersion":' + orjson.dumps(rt.api_version)
        if all(obj.data.startswith(head) for obj in stored):
            return stored  # already in the asked version: upstream sends none of them
        decoded = [orjson.loads(obj.data) for obj in stored]
        versions = [_take_resource_version(obj) for obj in decoded]
        storage = f"{rt.group}/{rt.custom.storage_version}"
        described = webhookconversion.gvk_text(storage, list_kind) if list_kind else webhookconversion.gvk_text(
            str(decoded[0].get("apiVersion") or storage), rt.kind)
        converted = await self._converter.convert(rt.custom.conversion, decoded, rt.api_version, described)
        out = []
        for original, sent, obj, version in zip(stored, decoded, converted, versions):
            if obj is sent:
                out.append(original)  # already in the version: not sent, not changed
                continue
            if version is not None:
                obj["metadata"]["resourceVersion"] = version
            # Keys sorted, as upstream writes unstructured objects (and as custom objects are stored).
            out.append(StoredObject(original.rv, orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)))
        return out

    async def to_storage(self, rt: ResourceType, obj: Obj) -> Obj:
        """An object about to be written, in the storage version."""
        assert rt.custom is not None
        sent = dict(obj)
        meta = sent.get("metadata")
        if isinstance(meta, dict):  # upstream's store takes it off before encoding
            sent["metadata"] = {k: v for k, v in meta.items() if k != "resourceVersion"}
        converted = await self.into(rt, sent, f"{rt.group}/{rt.custom.storage_version}")
        return obj if converted is sent else converted

    async def into(self, rt: ResourceType, obj: Obj, desired: str) -> Obj:
        """One object in the version `desired` names (as it is when it already is in it)."""
        assert rt.custom is not None and rt.custom.conversion is not None
        if obj.get("apiVersion") == desired:
            return obj
        described = webhookconversion.gvk_text(str(obj.get("apiVersion") or ""), rt.kind)
        return (await self._converter.convert(rt.custom.conversion, [obj], desired, described))[0]


def _take_resource_version(obj: Obj) -> str | None:
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return None
    return meta.pop("resourceVersion", None)  # type: ignore[no-any-return]
