"""The shape of a field as managedFields and server-side apply see it, from the schema: how a list is
keyed (map, set or atomic), whether a map is atomic, how one list item is named as a path element
(`k:<keys as JSON>`, `v:<value>`), compiled once per schema node (`Node`).
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from typing import Any

from apiserver.kinds import schemas

# A path to a field as FieldsV1 names it: `f:<field>`, `k:<keys as JSON>`, `v:<value>` elements.
Path = tuple[str, ...]


def list_keys(field: schemas.Schema | None) -> tuple[str, list[str]]:
    """("map", keys), ("set", []) or ("atomic", []) for a list field."""
    if field is None:
        return "atomic", []
    kind = field.get("x-kubernetes-list-type")
    if kind == "map":
        return "map", list(field.get("x-kubernetes-list-map-keys") or ())
    if kind in ("set", "atomic"):
        return kind, []
    strategies, merge_key = schemas.patch_strategy(field)
    if "merge" in strategies:
        return ("map", [merge_key]) if merge_key else ("set", [])
    return "atomic", []


_ATOMIC: dict[object, tuple[schemas.Schema, bool]] = {}


def _atomic(field: schemas.Schema | None) -> bool:
    if field is None:
        return _atomic_uncached(field)
    # Held with the schema, so that an identity the cache is keyed by is never reused.
    cache_key = schemas.node_key(field)
    found = _ATOMIC.get(cache_key)
    if found is None:
        found = _ATOMIC[cache_key] = (field, _atomic_uncached(field))
    return found[1]


# A RawExtension holds whatever JSON it was given, which upstream's schema conversion types as one
# atomic value (schemaconv's hard-coded untyped definition), not as the object its OpenAPI says.


def _atomic_uncached(field: schemas.Schema | None) -> bool:
    if field is not None and schemas.ref_name(field) == schemas.RAW_EXTENSION:
        return True
    resolved = schemas.resolve(field) or {}
    # A field may override its type's map type (a volume's claimRef is granular, other references atomic).
    map_type = (field or {}).get("x-kubernetes-map-type") or resolved.get("x-kubernetes-map-type")
    if map_type is not None:
        return bool(map_type == "atomic")
    if "object" in schemas.types_of(resolved):
        return False  # an object a custom resource's schema leaves open is still tracked key by key
    return "properties" not in resolved and not isinstance(resolved.get("additionalProperties"), dict) \
        and "array" not in schemas.types_of(resolved)


@functools.cache
def _list_key_defaults() -> dict[str, dict[str, Any]]:
    with (importlib.resources.files("apiserver") / "data" / "list_key_defaults.json").open("rb") as f:
        return json.load(f)  # type: ignore[no-any-return]


NO_DEFAULT: Any = object()


def key_default(item: schemas.Schema | None, key: str) -> Any:
    """The default of a keyed list item's key field, which names an item that leaves the key out
    (NO_DEFAULT when there is none): a built-in definition's from upstream's OpenAPI v3, a custom
    resource's from its own schema."""
    if item is None:
        return NO_DEFAULT
    name = schemas.ref_name(item)
    if name is not None:
        return _list_key_defaults().get(name, {}).get(key, NO_DEFAULT)
    field = ((item.get("properties") or {}).get(key)) or {}
    return field.get("default", NO_DEFAULT) if isinstance(field, dict) else NO_DEFAULT


# What json.dumps(value, separators=(",", ":")) builds for each call, built once.
_COMPACT = json.JSONEncoder(separators=(",", ":"))


def item_element(item: Any, kind: str, keys: list[str], item_schema: schemas.Schema | None) -> str:
    """The path element naming one item of a set or keyed list; an omitted key field takes its default."""
    if kind == "set":
        return "v:" + _COMPACT.encode(item)
    key: dict[str, Any] = {}
    for name in sorted(keys):
        if isinstance(item, dict) and name in item:
            key[name] = item[name]
            continue
        default = key_default(item_schema, name)
        if default is not NO_DEFAULT:
            key[name] = default
    return "k:" + _COMPACT.encode(key)


def granular(value: Any, field: schemas.Schema | None) -> bool:
    if field is None:
        return isinstance(value, dict)  # inside an open object: maps key by key, lists whole
    if isinstance(value, list):
        return list_keys(field)[0] != "atomic"
    return isinstance(value, dict) and not _atomic(field)


class Node:
    """What comparing values at one schema node (as written, a `$ref` or inline) takes, compiled once:
    how a list there is keyed, whether a map there is atomic, and the nodes of its fields and items."""

    __slots__ = ("schema", "list_kind", "keys", "atomic", "_children")

    def __init__(self, schema: schemas.Schema) -> None:
        self.schema = schema  # held, so that the id this node is cached under is never reused
        self.list_kind, self.keys = list_keys(schema)
        self.atomic = _atomic_uncached(schema)
        self._children: dict[str | None, Node | None] = {}

    def child(self, key: str | None) -> Node | None:
        """A field's node (None: a list's items'), compiled on first use; None where there is no schema."""
        try:
            return self._children[key]
        except KeyError:
            pass
        node = self._children[key] = _compiled(schemas.child_schema(self.schema, key))
        return node


_NODES: dict[object, tuple[schemas.Schema, Node]] = {}


def _compiled(schema: schemas.Schema | None) -> Node | None:
    return schemas.compiled(_NODES, schema, Node)


def root(schema: schemas.Schema | None) -> Node | None:
    """The node a comparison starts from. A schema made for one write (a custom resource's, with its
    ObjectMeta added) is compiled for that write alone, so that the cache does not keep every one."""
    if schema is None:
        return None
    if isinstance(schemas.node_key(schema), str):
        return _compiled(schema)
    return Node(schema)
