"""Who owns what a write changed: metadata.managedFields, recorded for every write as upstream's field
manager records an Update, and the fields each endpoint resets (its strategy's GetResetFields).
"""

from __future__ import annotations

from typing import Any, Callable

import orjson

from apiserver.kinds import (
    conversion,
    fieldmanager,
    fieldnodes,
    fieldsv1,
    managedfields,
    schemas,
    shaping,
    structuredmerge,
)
from apiserver.kinds.resources import ResourceType
from apiserver.registry.lookup import strategy_for

Obj = dict[str, Any]

# A custom object's schema may leave parts open; upstream then tracks what it finds, maps key by key.
_OPEN_OBJECT: schemas.Schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


def ownership_schema(rt: ResourceType, obj: Obj) -> tuple[schemas.Schema | None, bool]:
    """The schema managedFields are computed by, and whether the kind's status is its subresource's."""
    if rt.custom is not None:
        return _with_object_meta(rt.custom.schema or _OPEN_OBJECT), rt.custom.has_status
    return shaping.kind_schema(obj), rt.subresource("status") is not None


def reset_fields(rt: ResourceType, subresource: str | None) -> tuple[fieldnodes.Path, ...]:
    """What a write through this endpoint cannot set, so never owns: status for the main resource,
    the spec (and some kinds' labels) for /status; a kind may say otherwise for an endpoint."""
    own = dict(strategy_for(rt).reset_fields).get(subresource)
    if own is not None:
        return own
    if subresource == "status":
        if strategy_for(rt).status_keeps_labels:
            return ("f:spec",), ("f:metadata", "f:labels")
        return (("f:spec",),)
    if subresource is None and ownership_schema(rt, {})[1]:
        return (("f:status",),)
    return ()


def track(rt: ResourceType, obj: Obj, old: Obj | None, manager: str | None, subresource: str | None,
          now: str, entries: list[dict[str, Any]] | None = None, shaped: bool = False) -> None:
    """Records in metadata.managedFields what `manager` changed going from old (None: created) to obj.

    `entries` are the managedFields to start from, when a write sets them itself; else old's.
    `shaped` says obj is already as shaping.shaped_object leaves it, so it is compared as it is.
    """
    schema, _ = ownership_schema(rt, obj)
    if manager is None or schema is None:
        return
    if rt.custom is None and structuredmerge.untypable(obj, schema):
        # Upstream's field manager cannot type the object (a keyed list's item without any of its
        # keys): UpdateNoErrors drops every managedFields entry rather than fail the write.
        obj["metadata"].pop("managedFields", None)
        return
    if entries is None:
        entries = [] if old is None else list(old["metadata"].get("managedFields") or ())
    if old is not None and not entries:
        # An object whose managedFields are empty is not tracked by updates: only a create or a
        # server-side apply starts its record (upstream's skipNonAppliedManager).
        obj["metadata"].pop("managedFields", None)
        return
    if subresource == "scale" and not _replicas_owned(rt, entries):
        # The Scale's own managedFields are the entries owning the replicas (ScaleHandler.ToSubresource):
        # none, and the Scale's update is not tracked either; the object's entries stay as they were.
        obj["metadata"]["managedFields"] = entries
        return
    request = fieldmanager.Request(manager, rt.api_version, subresource, now)
    views = conversion.converted_views(obj) if rt.custom is None else {}
    if views:
        updated = _record_versioned(entries, old, obj, views, request, reset_fields(rt, subresource))
    else:
        # The new object as decoded: an empty list or map a client sent is not yet the null storage makes it.
        # Shaped as views: the comparison only reads them, and old and obj stay as they are.
        updated = fieldmanager.record_update(entries, None if old is None else shaping.shaped_view(old),
                                             obj if shaped else shaping.shaped_view(obj, []), schema,
                                             request, reset_fields(rt, subresource))
    if subresource == "scale":
        updated = fieldmanager.sorted_entries([_untimed_scale_update(entry, manager) for entry in updated])
    if updated:
        obj["metadata"]["managedFields"] = updated
    else:
        obj["metadata"].pop("managedFields", None)


def _replicas_path(rt: ResourceType) -> fieldnodes.Path:
    paths = rt.custom.scale_paths if rt.custom is not None else None
    path = (paths or {}).get("specReplicasPath") or ".spec.replicas"
    return tuple("f:" + part for part in path.split(".") if part)


def _replicas_owned(rt: ResourceType, entries: list[dict[str, Any]]) -> bool:
    replicas = _replicas_path(rt)
    return any(replicas in fieldsv1.from_fields_v1(entry.get("fieldsV1") or {}) for entry in entries)


def _untimed_scale_update(entry: dict[str, Any], manager: str) -> dict[str, Any]:
    """An update through /scale is recorded without a time: ScaleHandler.ToParent takes each entry's time
    from the object's entries, where the Scale's manager (named with autoscaling/v1) never is."""
    if entry.get("manager", "") == manager and entry.get("operation") == "Update" \
            and entry.get("subresource") == "scale" and "time" in entry:
        return {k: v for k, v in entry.items() if k != "time"}
    return entry


def _record_versioned(entries: list[dict[str, Any]], old: Obj | None, new: Obj,
                      views: dict[str, Callable[[Obj], Obj]], request: fieldmanager.Request,
                      ignored: tuple[fieldnodes.Path, ...]) -> list[dict[str, Any]]:
    """An Update of a kind served through several versions, as upstream's field manager records it: the
    writer's fields in the version it wrote through, and every other version's managers losing what
    the write changed as their version shows it. Entries naming a version the kind is not served
    through are compared in the writer's."""
    by_version: dict[str, list[dict[str, Any]]] = {request.api_version: []}
    for entry in entries:
        version = entry.get("apiVersion", "")
        by_version.setdefault(version if version in views else request.api_version, []).append(entry)
    out: list[dict[str, Any]] = []
    for version, group in by_version.items():
        view = views.get(version, _as_stored)
        seen_old = None if old is None else shaping.shaped_view(view(old))
        seen_new = shaping.shaped_view(view(new), [])
        schema = shaping.kind_schema(seen_new)
        if schema is None:
            out += group
        elif version == request.api_version:
            out += managedfields.update(group, seen_old, seen_new, schema, request.manager, request.api_version,
                                        request.subresource, request.now, ignored)
        else:
            out += managedfields.release(group, seen_old, seen_new, schema, ignored)
    return fieldmanager.cap(fieldmanager.sorted_entries(out))


def _as_stored(obj: Obj) -> Obj:
    return obj


# Each CRD version's schema completed once and held with it, so that the walks compiled per schema node
# meet the same nodes on every write instead of new ones.
_COMPLETED: dict[int, tuple[schemas.Schema, schemas.Schema]] = {}


def _with_object_meta(schema: schemas.Schema) -> schemas.Schema:
    """A custom resource's schema as upstream's CRD schema builder completes it: its metadata is an
    ObjectMeta and its apiVersion and kind strings, whatever the CRD says of them."""
    found = _COMPLETED.get(id(schema))
    if found is None:
        found = _COMPLETED[id(schema)] = (schema, {**schema, "properties": {**(schema.get("properties") or {}),
                                                                           **schemas.TYPE_META_PROPERTIES}})
    return found[1]


def json_copy(obj: Obj) -> Obj:
    return orjson.loads(orjson.dumps(obj))  # type: ignore[no-any-return]
