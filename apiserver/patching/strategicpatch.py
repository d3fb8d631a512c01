"""Strategic merge patch (application/strategic-merge-patch+json) on built-in kinds.

A JSON merge patch, except that lists follow the schema's patch strategy: a list with strategy
`merge` and a merge key (containers by name, ports by containerPort) merges element by element; a
`merge` list of primitives is a union; every other list is replaced. Directives, as kubectl sends
them: `$patch` (replace, delete, merge) in a map or a list element, `$retainKeys`,
`$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>`.
"""

from __future__ import annotations

import copy
from typing import Any

from apiserver import errors
from apiserver.kinds import schemas

_PATCH = "$patch"
_RETAIN_KEYS = "$retainKeys"
_DELETE_FROM = "$deleteFromPrimitiveList/"
_ELEMENT_ORDER = "$setElementOrder/"


def apply(original: dict[str, Any], patch: dict[str, Any], schema: schemas.Schema) -> dict[str, Any]:
    merged = _merge_map(copy.deepcopy(original), patch, schema)
    if merged is None:
        raise errors.bad_request("the patch deletes the whole object ($patch: delete at the top)")
    return merged


def _child(schema: schemas.Schema | None, key: str) -> schemas.Schema | None:
    return schemas.property_schema(schema, key) if schema is not None else None


def _merge_map(original: dict[str, Any], patch: dict[str, Any], schema: schemas.Schema | None) -> dict[str, Any] | None:
    directive = patch.get(_PATCH)
    if directive == "delete":
        return None
    if directive == "replace":
        return _merge_map({}, {k: v for k, v in patch.items() if k != _PATCH}, schema)
    if directive not in (None, "merge"):
        raise errors.bad_request(f"Unknown patch type: {directive} in map: {patch}")
    retain = patch.get(_RETAIN_KEYS)
    orders: dict[str, list[Any]] = {}
    live = {k[len(_ELEMENT_ORDER):]: original.get(k[len(_ELEMENT_ORDER):]) for k in patch if k.startswith(_ELEMENT_ORDER)}
    for key, value in patch.items():
        if key in (_PATCH, _RETAIN_KEYS):
            continue
        if key.startswith(_ELEMENT_ORDER):
            orders[key[len(_ELEMENT_ORDER):]] = value
            continue
        if key.startswith(_DELETE_FROM):
            field = key[len(_DELETE_FROM):]
            if isinstance(original.get(field), list) and isinstance(value, list):
                original[field] = [v for v in original[field] if v not in value]
            continue
        if value is None or (isinstance(value, dict) and value.get(_PATCH) == "delete"):
            original.pop(key, None)
            continue
        original[key] = _merge_value(original.get(key), value, _child(schema, key), _field(schema, key))
    for field, order in orders.items():
        if isinstance(original.get(field), list):
            before = live.get(field)
            original[field] = _reorder(original[field], order, before if isinstance(before, list) else [],
                                       _field(schema, field))
    if isinstance(retain, list):
        for key in list(original):
            if key not in retain:
                del original[key]
    return original


def _field(schema: schemas.Schema | None, key: str) -> schemas.Schema | None:
    """The field's own schema as written (where x-kubernetes-patch-strategy lives), not its type's."""
    resolved = schemas.resolve(schema)
    props = (resolved or {}).get("properties") or {}
    found = props.get(key)
    return found if isinstance(found, dict) else None


def _merge_value(original: Any, patch: Any, schema: schemas.Schema | None, field: schemas.Schema | None) -> Any:
    if isinstance(patch, dict):
        if not isinstance(original, dict):
            original = {}
        merged = _merge_map(original, patch, schema)
        return {} if merged is None else merged
    if isinstance(patch, list):
        return _merge_list(original if isinstance(original, list) else [], patch, field)
    return patch


def _merge_list(original: list[Any], patch: list[Any], field: schemas.Schema | None) -> list[Any]:
    strategies, merge_key = schemas.patch_strategy(field)
    items = schemas.items_schema(field)
    if "merge" not in strategies:
        return [_strip(v, items) for v in patch if not (isinstance(v, dict) and _PATCH in v)]
    if any(isinstance(v, dict) and v.get(_PATCH) == "replace" for v in patch):
        return [_strip(v, items) for v in patch if not (isinstance(v, dict) and _PATCH in v)]
    if merge_key is None:
        merged = []
        for v in original + patch:
            if v not in merged:
                merged.append(v)
        return _reorder(merged, patch, original, field)
    merged = list(original)
    for element in patch:
        if not isinstance(element, dict) or merge_key not in element:
            raise errors.bad_request(f"map: {element} does not contain declared merge key: {merge_key}")
        at = next((i for i, o in enumerate(merged) if isinstance(o, dict) and o.get(merge_key) == element[merge_key]),
                  None)
        if element.get(_PATCH) == "delete":
            if at is not None:
                del merged[at]
            continue
        if at is None:
            merged.append(_strip(element, items))
        else:
            merged[at] = _merge_map(merged[at], element, items) or {}
    # Upstream's mergeSlice ends in normalizeElementOrder even without $setElementOrder: the patch's
    # elements in the patch's order, the server's others slotted in where the server had them.
    return _reorder(merged, patch, original, field)


def _reorder(merged: list[Any], order: list[Any], live: list[Any], field: schemas.Schema | None) -> list[Any]:
    """Elements the client listed come in its order; the ones only the server had are slotted in where
    the live list had them relative to the listed ones (upstream's normalizeElementOrder)."""
    _, merge_key = schemas.patch_strategy(field)

    def identity(v: Any) -> str:
        return repr(v.get(merge_key) if merge_key is not None and isinstance(v, dict) else v)

    rank = {identity(v): i for i, v in enumerate(order)}
    live_rank = {identity(v): i for i, v in enumerate(live)}
    listed = sorted((v for v in merged if identity(v) in rank), key=lambda v: rank[identity(v)])
    server_only = sorted((v for v in merged if identity(v) not in rank), key=lambda v: live_rank.get(identity(v), -1))
    out: list[Any] = []
    while listed or server_only:
        if not listed:
            out.append(server_only.pop(0))
        elif not server_only:
            out.append(listed.pop(0))
        else:
            left, right = live_rank.get(identity(server_only[0])), live_rank.get(identity(listed[0]))
            take_left = left is not None and right is not None and left < right
            out.append((server_only if take_left else listed).pop(0))
    return out


def _strip(value: Any, schema: schemas.Schema | None) -> Any:
    """A value new to the object: directives have nothing to apply to, so they only come out."""
    if isinstance(value, dict):
        merged = _merge_map({}, value, schema)
        return {} if merged is None else merged
    if isinstance(value, list):
        return [_strip(v, schemas.items_schema(schema)) for v in value]
    return value
