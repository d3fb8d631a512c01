"""Server-side apply's algorithm on decoded values, as sigs.k8s.io/structured-merge-diff defines it.

Field sets are sets of Paths named as managedfields names them ("f:<field>", "k:<keys>", "v:<value>").
`typed_errors` checks an applied configuration against the schema, `field_set` is the set a
configuration claims, `merge` lays a configuration over the live object by the schema's list and map
types, and `remove` cuts paths (whole subtrees) out of a value. No storage, no HTTP, no managers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from apiserver.kinds import fieldnodes, schemas
from apiserver.registry.field import go_type_name
from apiserver.wire import goprint

Path = fieldnodes.Path
Schema = schemas.Schema | None
ABSENT: Any = object()

item_element = fieldnodes.item_element


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _granular_map(value: Any, field: Schema) -> bool:
    return isinstance(value, dict) and fieldnodes.granular(value, field)


def _list_kind(field: Schema) -> tuple[str, list[str]]:
    return fieldnodes.list_keys(field) if field is not None else ("atomic", [])


def _named(field: Schema, key: str) -> bool:
    """Whether key is a declared field of a struct (upstream's "named field"), not a map key."""
    return key in ((schemas.resolve(field) or {}).get("properties") or {})


def _items(value: list[Any], field: Schema) -> Iterator[tuple[str, Any]]:
    kind, keys = _list_kind(field)
    item_schema = schemas.child_schema(field, None)
    for item in value:
        yield item_element(item, kind, keys, item_schema), item


# -- path text, as fieldpath.Path.String writes it -----------------------------------------------

def path_string(path: Path) -> str:
    out = []
    for element in path:
        kind, text = element[:2], element[2:]
        if kind == "f:":
            out.append("." + text)
        elif kind == "k:":
            fields = json.loads(text)
            out.append("[" + ",".join(f"{k}={_json(v)}" for k, v in fields.items()) + "]")
        elif kind == "v:":
            out.append("[=" + text + "]")
        else:
            out.append("[" + text + "]")
    return "".join(out)


# -- the typed configuration ---------------------------------------------------------------------

def typed_errors(value: Any, field: Schema) -> str | None:
    """Upstream's refusal to type a configuration (typed/validate.go), or None: every wrong value,
    undeclared field and duplicate key, one per line under "errors:" when there are several.

    A map's fields are visited in the configuration's order (Go visits them in random order)."""
    found = _validated(value, _typed_node(field), (), False)
    if not found:
        return None
    return found[0] if len(found) == 1 else "errors:\n" + "\n".join("  " + e for e in found)


class _TypedNode:
    """What typing a value at one schema node takes, compiled once: its atom, its fields and whether it
    declares them all, how a list there is keyed, and its children's nodes."""

    __slots__ = (
        "_children",
        "atom",
        "closed",
        "extra",
        "item_schema",
        "keys",
        "list_kind",
        "named",
        "opens",
        "props",
        "schema",
    )

    def __init__(self, schema: schemas.Schema) -> None:
        self.schema = schema  # held, so that the id this node is cached under is never reused
        self.atom = _atom(schema)
        self.named = schemas.ref_name(schema) is not None
        resolved = schemas.resolve(schema) or {}
        self.opens = bool(resolved.get("x-kubernetes-preserve-unknown-fields"))
        props = resolved.get("properties") or {}
        if resolved.get("x-kubernetes-embedded-resource"):
            props = {**schemas.TYPE_META_PROPERTIES, **props}
        self.props = props
        extra = resolved.get("additionalProperties")
        self.extra = extra if isinstance(extra, dict) else None
        self.closed = bool(props) and self.extra is None and not self.opens
        self.list_kind, self.keys = _list_kind(schema)
        self.item_schema = schemas.child_schema(schema, None)
        self._children: dict[str | None, _TypedNode | None] = {}

    def child(self, key: str | None) -> _TypedNode | None:
        """A field's node (None: a list's items'), compiled on first use."""
        try:
            return self._children[key]
        except KeyError:
            pass
        schema = self.item_schema if key is None else self.props.get(key, self.extra)
        found = self._children[key] = _typed_node(schema)
        return found


_TYPED_NODES: dict[object, tuple[schemas.Schema, _TypedNode]] = {}


def _typed_node(schema: Schema) -> _TypedNode | None:
    return schemas.compiled(_TYPED_NODES, schema, _TypedNode)


def _validated(value: Any, node: _TypedNode | None, path: Path, open_fields: bool) -> list[str]:
    """`open_fields`: below an x-kubernetes-preserve-unknown-fields, which opens every map of the same
    schema under it to fields it does not declare (a definition referred to keeps its own rules)."""
    if node is None:
        return []
    atom = _deduced(node.atom, value)
    if atom is None:
        return []
    scalar, _, is_map = atom
    if is_map:
        return _validated_map(value, node, path, open_fields and not node.named)
    if scalar is not None:
        problem = _scalar_error(scalar, value)
        return [] if problem is None else [f"{path_string(path)}: {problem}"]
    return _validated_list(value, node, path, open_fields and not node.named)


def _validated_map(value: Any, node: _TypedNode, path: Path, open_fields: bool) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, dict):
        return [f"{path_string(path)}: expected map, got &{{{goprint.plain(value)}}}"]
    open_fields = open_fields or node.opens
    closed = node.closed and not open_fields
    props = node.props
    found: list[str] = []
    for key, child in value.items():
        if closed and key not in props:
            found.append(f"{path_string(path + ('f:' + key,))}: field not declared in schema")
            break  # upstream stops visiting the map there
        found += _validated(child, node.child(key), path + ("f:" + key,), open_fields)
    return found


def _validated_list(value: Any, node: _TypedNode, path: Path, open_fields: bool) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        return [f"{path_string(path)}: expected list, got &{{{goprint.plain(value)}}}"]
    kind, keys, item_schema = node.list_kind, node.keys, node.item_schema
    item_node = node.child(None)
    found: list[str] = []
    seen: set[str] = set()
    for index, item in enumerate(value):
        if kind == "atomic":
            element = f"i:{index}"
        else:
            unnamed = _unkeyed(item, keys, item_schema) if kind == "map" else _unset(item)
            if unnamed:
                return found + [f"{path_string(path)}: element {index}: {unnamed}"]  # and no further items
            element = item_element(item, kind, keys, item_schema)
            if element in seen:
                found.append(f"{path_string(path)}: duplicate entries for key {path_string((element,))}")
            seen.add(element)
        found += _validated(item, item_node, path + (element,), open_fields)
    return found


def _unset(item: Any) -> str | None:
    """Why an item of a set cannot be named by its value (setItemToPathElement), or None."""
    if isinstance(item, dict):
        return "associative list without keys has an element that's a map type"
    if isinstance(item, list):
        return "not supported: associative list with lists as elements"
    if item is None:
        return "associative list without keys has an element that's an explicit null"
    return None


def untypable(value: Any, field: Schema) -> bool:
    """Whether an object cannot be typed for a keyed list's item naming none of its keys (or not a
    map): what fails upstream's field manager on an object. Only maps and lists are descended into, and
    only where a schema says something: below a node without one (a managedFields entry's fieldsV1) no
    keyed list can be."""
    if field is None:
        return False
    if isinstance(value, dict):
        for key, child in value.items():
            if isinstance(child, (dict, list)) and untypable(child, schemas.child_schema(field, key)):
                return True
        return False
    if not isinstance(value, list):
        return False
    kind, keys = _list_kind(field)
    item_schema = schemas.child_schema(field, None)
    for item in value:
        if kind == "map" and _unkeyed(item, keys, item_schema):
            return True
        if isinstance(item, (dict, list)) and untypable(item, item_schema):
            return True
    return False


def _unkeyed(item: Any, keys: list[str], item_schema: Schema) -> str | None:
    """Why an item of a keyed list cannot be named by its keys, or None (structured-merge-diff's
    keyedAssociativeListItemToPathElement: a key may be left out while another or a default names it)."""
    if item is None:
        return "associative list with keys may not have a null element"
    if not isinstance(item, dict):
        return "associative list with keys may not have non-map elements"
    named = [name for name in keys
             if name in item or fieldnodes.key_default(item_schema, name) is not fieldnodes.NO_DEFAULT]
    if keys and not named:
        quoted = " ".join(f'"{name}"' for name in keys)
        return (f"associative list with keys has an element that omits all key fields [{quoted}] "
                "(and doesn't have default values for any key fields)")
    return None


# A schema node as structured-merge-diff types it (kube-openapi's schemaconv): the scalar it may be
# ("numeric", "string", "boolean", "untyped" or None), whether it may be a list, whether a map.
Atom = tuple[str | None, bool, bool]
_ANY: Atom = ("untyped", True, True)
_SCALARS = {"integer": "numeric", "number": "numeric", "boolean": "boolean"}


def _atom(field: Schema) -> Atom | None:
    """The node's atom; None where anything goes (no schema, or a deduced type: RawExtension)."""
    if field is None:
        return None
    name = schemas.ref_name(field)
    if name == schemas.RAW_EXTENSION:
        return None
    if name == schemas.QUANTITY:
        return ("untyped", False, False)
    resolved = schemas.resolve(field) or {}
    types = schemas.types_of(resolved) - {"null"}
    if len(types) != 1 or resolved.get("x-kubernetes-int-or-string"):
        return _ANY
    kind = next(iter(types))
    if kind == "object":
        return (None, False, True)
    if kind == "array":
        return (None, True, False)
    if kind == "string":
        return ("string" if resolved.get("format") in (None, "", "byte") else "untyped", False, False)
    return (_SCALARS.get(kind, "untyped"), False, False)


def _deduced(atom: Atom | None, value: Any) -> Atom | None:
    """deduceAtom: the one of the node's types the value is, or the whole atom for a later error."""
    if atom is None or value is None:
        return atom
    scalar, is_list, is_map = atom
    if isinstance(value, dict):
        return (None, False, True) if is_map else atom
    if isinstance(value, list):
        return (None, True, False) if is_list else atom
    return (scalar, False, False) if scalar is not None else atom


def _scalar_error(scalar: str, value: Any) -> str | None:
    """validateScalar's error, the value printed as Go prints the value.Value holding it."""
    if value is None:
        return None
    is_scalar = not isinstance(value, (dict, list))
    if scalar == "numeric":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return None
        return f"expected numeric (int or float), got {go_type_name(value)}"
    if scalar == "string":
        return None if isinstance(value, str) else \
            f"expected string, got &value.valueUnstructured{{Value:{goprint.sharp(value)}}}"
    if scalar == "boolean":
        return None if isinstance(value, bool) else f"expected boolean, got &{{{goprint.plain(value)}}}"
    return None if is_scalar else f"expected any scalar, got &{{{goprint.plain(value)}}}"


# -- the set a value claims (ToFieldSet) ---------------------------------------------------------

def field_set(value: Any, field: Schema, path: Path = ()) -> set[Path]:
    out: set[Path] = set()
    _collect(value, field, path, out)
    return out


def _collect(value: Any, field: Schema, path: Path, out: set[Path]) -> None:
    if isinstance(value, dict) and _granular_map(value, field):
        for key, child in value.items():
            child_path = path + ("f:" + key,)
            _collect(child, schemas.child_schema(field, key), child_path, out)
            if child is None or child == {} or not _named(field, key):
                out.add(child_path)
    elif isinstance(value, list) and _list_kind(field)[0] != "atomic":
        item_schema = schemas.child_schema(field, None)
        for element, item in _items(value, field):
            _collect(item, item_schema, path + (element,), out)
            out.add(path + (element,))
    else:
        out.add(path)


def with_named_parents(paths: set[Path], root: Schema) -> set[Path]:
    """The set plus every struct field on the way to a member (EnsureNamedFieldsAreMembers)."""
    out = set(paths)
    for path in paths:
        field = root
        for depth, element in enumerate(path[:-1]):
            if element.startswith("f:") and _named(field, element[2:]):
                out.add(path[:depth + 1])
            field = schemas.child_schema(field, element[2:] if element.startswith("f:") else None)
    return out


# -- merging a configuration into the live object -------------------------------------------------

def merge(live: Any, config: Any, field: Schema) -> Any:
    """The configuration laid over the live value: granular maps by key, sets and keyed lists by item."""
    if config is ABSENT:
        return live
    if live is ABSENT or live is None:
        return config
    if config is None:
        # A null is an empty list or map to the merge: a granular one with items keeps them.
        keeps = isinstance(live, (dict, list)) and bool(live) and fieldnodes.granular(live, field)
        return live if keeps else config
    if isinstance(live, dict) and isinstance(config, dict) and _granular_map(config, field):
        out = dict(live)
        for key, value in config.items():
            out[key] = merge(live.get(key, ABSENT), value, schemas.child_schema(field, key))
        return out
    if isinstance(live, list) and isinstance(config, list) and _list_kind(field)[0] != "atomic":
        return _merge_items(live, config, field)
    return config


def _merge_items(live: list[Any], config: list[Any], field: Schema) -> list[Any]:
    """Items in the configuration's order, live-only items where they stood (merge.go's visitListItems)."""
    item_schema = schemas.child_schema(field, None)
    lhs = _unique(_items(live, field))
    rhs = _unique(_items(config, field))
    lhs_index, rhs_index = dict(lhs), dict(rhs)
    shared = [e for e, _ in rhs if e in lhs_index]
    next_shared = shared.pop(0) if shared else None
    out: list[Any] = []
    merged: set[str] = set()
    li = ri = 0
    while li < len(lhs) or ri < len(rhs):
        if li < len(lhs) and ri < len(rhs):
            element = lhs[li][0]
            if element == rhs[ri][0]:
                merged.add(element)
                out.append(merge(lhs_index[element], rhs_index[element], item_schema))
                li += 1
                ri += 1
                next_shared = shared.pop(0) if shared else None
                continue
            if element in rhs_index and next_shared is not None and next_shared != element:
                li += 1
                continue
        if li < len(lhs):
            element = lhs[li][0]
            if element not in rhs_index:
                out.append(lhs_index[element])
                li += 1
                continue
            if element in merged:
                li += 1
                continue
        if ri < len(rhs):
            element = rhs[ri][0]
            merged.add(element)
            out.append(merge(lhs_index.get(element, ABSENT), rhs_index[element], item_schema))
            ri += 1
            if next_shared is not None and next_shared == element:
                next_shared = shared.pop(0) if shared else None
    return out


def _unique(items: Iterator[tuple[str, Any]]) -> list[tuple[str, Any]]:
    seen: dict[str, Any] = {}
    for element, item in items:
        seen.setdefault(element, item)
    return list(seen.items())


# -- removing paths -----------------------------------------------------------------------------

def remove(value: Any, paths: set[Path], field: Schema) -> Any:
    """The value without the given paths (each with all it holds); ABSENT if the value itself goes."""
    if () in paths:
        return ABSENT
    if not paths:
        return value
    if isinstance(value, dict):
        out = {}
        for key, child in value.items():
            element = "f:" + key
            below = {p[1:] for p in paths if p[0] == element}
            kept = remove(child, below, schemas.child_schema(field, key)) if below else child
            if kept is not ABSENT:
                out[key] = kept
        return out
    if isinstance(value, list) and _list_kind(field)[0] != "atomic":
        item_schema = schemas.child_schema(field, None)
        items = []
        for element, item in _items(value, field):
            below = {p[1:] for p in paths if p[0] == element}
            kept = remove(item, below, item_schema) if below else item
            if kept is not ABSENT:
                items.append(kept)
        return items
    return value


def under_any(path: Path, prefixes: set[Path]) -> bool:
    return any(path[:i] in prefixes for i in range(len(path) + 1))


def without_nulls(value: Any) -> Any:
    """The value as Go decodes it into a built-in type: a null field is the field left unset."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value
