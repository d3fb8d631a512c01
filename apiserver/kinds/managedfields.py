"""metadata.managedFields for Update operations (create, update, patch), as kube-apiserver records them.

A manager owns the fields its writes added or changed; a write takes the fields it changes away from
every other manager, and fields a write removes leave everyone. Fields are named as FieldsV1 does:
`f:<field>`, `k:<keys as JSON>` for an element of a keyed list, `v:<value>` for one of a set, and "."
for a node that itself came into being. The comparison is made as Go sees the objects: on create,
against the kind's zero value, whose value-typed fields (zero_fields.json) exist from the start.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from typing import Any, Iterable

import orjson

from apiserver.kinds import goshape, schemas

# The field manager kube-apiserver 1.36.2's own writers (bootstrap, controllers) are recorded as.
KUBE_APISERVER = "kube-apiserver-go1264"

Path = tuple[str, ...]
_ABSENT = object()
SERVER_OWNED: frozenset[Path] = frozenset({
    ("f:apiVersion",), ("f:kind",), ("f:metadata",), ("f:metadata", "f:name"), ("f:metadata", "f:namespace"),
    ("f:metadata", "f:creationTimestamp"), ("f:metadata", "f:selfLink"), ("f:metadata", "f:uid"),
    ("f:metadata", "f:generation"), ("f:metadata", "f:managedFields"), ("f:metadata", "f:resourceVersion"),
    ("f:metadata", "f:deletionTimestamp"), ("f:metadata", "f:deletionGracePeriodSeconds"),
})


@functools.cache
def _zero_fields() -> dict[str, list[str]]:
    with (importlib.resources.files("apiserver") / "data" / "zero_fields.json").open("rb") as f:
        return json.load(f)  # type: ignore[no-any-return]


_ZEROS: dict[object, Any] = {}


def zero(schema: schemas.Schema | None) -> Any:
    """A definition's Go zero value as it serializes: value-typed fields present, empty or zero.

    Shared between calls (every create compares with it): callers must not change it."""
    cache_key = None if schema is None else schemas.node_key(schema)
    try:
        return _ZEROS[cache_key]
    except KeyError:
        pass
    value = _ZEROS[cache_key] = _zero(schema)
    return value


def _zero(schema: schemas.Schema | None) -> Any:
    name = schemas.ref_name(schema) if schema is not None else None
    out: dict[str, Any] = {}
    for field in dict.fromkeys((*_zero_fields().get(name or "", ()), *goshape.struct_values(name or ""))):
        child = schemas.child_schema(schema, field)
        resolved = schemas.resolve(child) or {}
        out[field] = zero(child) if "properties" in resolved else None
    for field, value in goshape.always_written(name or "").items():
        out.setdefault(field, zero(schemas.child_schema(schema, field)) if value == {} else value)
    for field, value in goshape.scalars_written(name or ""):
        out.setdefault(field, value)
    return out


# -- the shape of a node, from the schema ---------------------------------------------------------

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
_RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension"


def _atomic_uncached(field: schemas.Schema | None) -> bool:
    if field is not None and schemas.ref_name(field) == _RAW_EXTENSION:
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


def _children(value: Any, field: schemas.Schema | None) -> Iterable[tuple[str, Any, schemas.Schema | None]]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield "f:" + key, child, schemas.child_schema(field, key)
    elif isinstance(value, list):
        kind, keys = list_keys(field)
        item = schemas.child_schema(field, None)
        for element in value:
            yield item_element(element, kind, keys, item), element, item


def granular(value: Any, field: schemas.Schema | None) -> bool:
    if field is None:
        return isinstance(value, dict)  # inside an open object: maps key by key, lists whole
    if isinstance(value, list):
        return list_keys(field)[0] != "atomic"
    return isinstance(value, dict) and not _atomic(field)



class _Node:
    """What comparing values at one schema node (as written, a `$ref` or inline) takes, compiled once:
    how a list there is keyed, whether a map there is atomic, and the nodes of its fields and items."""

    __slots__ = ("schema", "list_kind", "keys", "atomic", "_children")

    def __init__(self, schema: schemas.Schema) -> None:
        self.schema = schema  # held, so that the id this node is cached under is never reused
        self.list_kind, self.keys = list_keys(schema)
        self.atomic = _atomic_uncached(schema)
        self._children: dict[str | None, _Node | None] = {}

    def child(self, key: str | None) -> _Node | None:
        """A field's node (None: a list's items'), compiled on first use; None where there is no schema."""
        try:
            return self._children[key]
        except KeyError:
            pass
        node = self._children[key] = _compiled(schemas.child_schema(self.schema, key))
        return node


_NODES: dict[object, _Node] = {}


def _compiled(schema: schemas.Schema | None) -> _Node | None:
    if schema is None:
        return None
    cache_key = schemas.node_key(schema)
    node = _NODES.get(cache_key)
    if node is None:
        node = _NODES[cache_key] = _Node(schema)
    return node


def _root(schema: schemas.Schema | None) -> _Node | None:
    """The node a comparison starts from. A schema made for one write (a custom resource's, with its
    ObjectMeta added) is compiled for that write alone, so that the cache does not keep every one."""
    if schema is None:
        return None
    if isinstance(schemas.node_key(schema), str):
        return _compiled(schema)
    return _Node(schema)


# -- comparing two objects -------------------------------------------------------------------------

def compare(old: Any, new: Any, field: schemas.Schema | None, path: Path = ()) -> tuple[set[Path], set[Path]]:
    """(paths added or changed, paths removed) going from old to new."""
    changed: set[Path] = set()
    removed: set[Path] = set()
    _walk(old, new, _root(field), path, changed, removed)
    return changed, removed


def compared_sides(old: Any, new: Any, node: _Node | None) -> tuple[Any, Any, Any]:
    """(the value whose form both sides take, old's items, new's items) for compareWalker; the value is
    None where the two are compared as a leaf (a scalar, an atomic object or list). A null (or absent)
    side takes the form of the other (deduceAtom's wildcard)."""
    value = new if isinstance(new, (dict, list)) else old
    if isinstance(value, dict):
        if node is not None and node.atomic:
            return None, None, None
        # inside an open object: maps key by key
        return value, old if isinstance(old, dict) else {}, new if isinstance(new, dict) else {}
    if isinstance(value, list) and node is not None and node.list_kind != "atomic":  # and lists whole
        return value, old if isinstance(old, list) else [], new if isinstance(new, list) else []
    return None, None, None


def _walk(old: Any, new: Any, node: _Node | None, path: Path, changed: set[Path], removed: set[Path]) -> None:
    """structured-merge-diff's compareWalker: a side that is absent adds or removes the path; a null list
    or map is an empty one, and two empty (or null) ones are compared as a leaf, so that null and empty
    stay apart; an atomic value is a leaf; a granular one is compared item by item."""
    if old is _ABSENT:
        _added(new, node, path, changed)
        return
    if new is _ABSENT:
        removed.add(path)
    elif old == new:
        return  # compared in C: an update leaves most of an object as it was
    value, olds, news = compared_sides(old, new, node)
    if value is None:
        if new is not _ABSENT and old != new:
            changed.add(path)
        return
    if not olds and not news:
        # Both empty or null: a leaf, which keeps an empty value apart from a null one.
        if new is not _ABSENT and old != new:
            changed.add(path)
        return
    if isinstance(value, dict):
        # Keys whose values are equal are passed over before their schema is looked up.
        for key in olds.keys() | news.keys():
            o = olds.get(key, _ABSENT)
            n = news.get(key, _ABSENT)
            if o is _ABSENT or n is _ABSENT or o != n:
                _walk(o, n, None if node is None else node.child(key), path + ("f:" + key,), changed, removed)
        return
    assert node is not None
    _walk_items(olds, news, node, path, changed, removed)


def _added(new: Any, node: _Node | None, path: Path, changed: set[Path]) -> None:
    """_walk of a value where there was none (all of a create): the path, and every granular one below."""
    changed.add(path)
    if isinstance(new, dict):
        if not new or (node is not None and node.atomic):
            return
        for key, n in new.items():
            _added(n, None if node is None else node.child(key), path + ("f:" + key,), changed)
    elif isinstance(new, list) and new and node is not None and node.list_kind != "atomic":
        _walk_items([], new, node, path, changed, set())


def items_by_name(elements: list[Any], node: _Node) -> dict[str, list[Any]]:
    """A granular list's items under the path elements that name them, each name's in their order."""
    item_node = node.child(None)
    item = None if item_node is None else item_node.schema
    found: dict[str, list[Any]] = {}
    for element in elements:
        found.setdefault(item_element(element, node.list_kind, node.keys, item), []).append(element)
    return found


def _walk_items(olds: list[Any], news: list[Any], node: _Node, path: Path,
                changed: set[Path], removed: set[Path]) -> None:
    """A granular list item by item (visitListItems); an item named twice is compared as a whole."""
    item_node = node.child(None)
    old_items, new_items = items_by_name(olds, node), items_by_name(news, node)
    for name in old_items.keys() | new_items.keys():
        lefts, rights = old_items.get(name, []), new_items.get(name, [])
        here = path + (name,)
        if len(lefts) <= 1 and len(rights) <= 1:
            _walk(lefts[0] if lefts else _ABSENT, rights[0] if rights else _ABSENT, item_node, here, changed,
                  removed)
        elif len(lefts) >= 2 and len(rights) >= 2:
            if lefts != rights:
                changed.add(here)
        elif len(lefts) >= 2:
            if rights:
                _walk(_ABSENT, rights[0], item_node, here, changed, removed)
            removed.add(here)
        else:
            if lefts:
                _walk(lefts[0], _ABSENT, item_node, here, changed, removed)
            changed.add(here)


# -- FieldsV1 and managedFields entries -------------------------------------------------------------

def to_fields_v1(paths: Iterable[Path]) -> dict[str, Any]:
    """The FieldsV1 tree of a set of paths, in the order _tidy gives.

    Built from the paths sorted once: each level's keys then arrive in order, and a path comes before
    the paths below it, so its mark goes first. Elements other than f:, k: and v: sort otherwise (_tidy)."""
    ordered = sorted(paths)
    root: dict[str, Any] = {}
    marked: list[dict[str, Any]] = []
    for path in ordered:
        node = root
        for element in path:
            child = node.get(element)
            if child is None:
                if element[:1] not in _PLAIN_ORDER:
                    return _tidy(_tree(ordered))
                child = node[element] = {}
            node = child
        if path and not node:
            node["."] = {}
            marked.append(node)
    for node in marked:
        if len(node) == 1:
            node.clear()  # a leaf needs no mark
    return root


def _tree(paths: Iterable[Path]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for path in paths:
        node = root
        for element in path:
            node = node.setdefault(element, {})
        if path:
            node.setdefault(".", {})
    return root


_PLAIN_ORDER = frozenset("fkv")


def _tidy(node: dict[str, Any]) -> dict[str, Any]:
    # "." marks a node that is itself owned; a leaf needs no mark. Fields, then keys, then values:
    # for the f:, k: and v: every writer here names, the plain order of the strings.
    children = {k: _tidy(v) for k, v in node.items() if k != "."}
    order = sorted(children)
    if not all(k[:1] in _PLAIN_ORDER for k in order):
        order.sort(key=lambda k: ({"f": 0, "k": 1, "v": 2}.get(k[0], 3), k))
    out: dict[str, Any] = {".": {}} if "." in node and children else {}
    out.update((k, children[k]) for k in order)
    return out


def from_fields_v1(fields: dict[str, Any], path: Path = ()) -> set[Path]:
    found: set[Path] = set()
    for key, child in fields.items():
        if key == ".":
            found.add(path)
            continue
        if not child:
            found.add(path + (key,))
        else:
            found |= from_fields_v1(child, path + (key,))
    return found


def _node_at(fields: dict[str, Any], path: Path) -> dict[str, Any] | None:
    node: Any = fields
    for element in path:
        node = node.get(element) if isinstance(node, dict) else None
        if node is None:
            return None
    return node if isinstance(node, dict) else None


def _owns(fields: dict[str, Any], path: Path) -> bool:
    """path in from_fields_v1(fields), without building the set."""
    node = _node_at(fields, path)
    return node is not None and ("." in node or (not node and bool(path)))


def _untouched(fields: dict[str, Any], changed: set[Path], removed: set[Path]) -> bool:
    """Whether a write that changed `changed` and removed `removed` leaves these fields' owner as it was:
    it took none of them, and removed nothing at or above any of them."""
    return not any(_owns(fields, p) for p in changed) and not any(_node_at(fields, p) is not None for p in removed)


_CANONICAL: dict[bytes, bool] = {}
_CANONICAL_KEPT = 4096


def canonical(fields: dict[str, Any]) -> bool:
    """Whether these fields are already as to_fields_v1 writes them (to_fields_v1(from_fields_v1(f)) == f).

    Remembered by their JSON: a manager's fields are mostly the ones it had on its last write."""
    try:
        text = orjson.dumps(fields)
    except TypeError:
        return False
    found = _CANONICAL.get(text)
    if found is None:
        if len(_CANONICAL) >= _CANONICAL_KEPT:
            _CANONICAL.clear()
        found = _CANONICAL[text] = _canonical(fields, True)
    return found


def _canonical(fields: dict[str, Any], root: bool) -> bool:
    keys = list(fields)
    marked = bool(keys) and keys[0] == "."
    children = keys[1:] if marked else keys
    if marked and (root or not children or fields["."] != {}):
        return False
    if any(not isinstance(fields[k], dict) or k == "." or not _canonical(fields[k], False) for k in children):
        return False
    return children == sorted(children) and all(k[:1] in _PLAIN_ORDER for k in children)


def _written(old: Any, new: dict[str, Any], schema: schemas.Schema,
             ignored: tuple[Path, ...]) -> tuple[set[Path], set[Path]]:
    """(paths the write set or changed, paths it removed), leaving out those it cannot own."""
    changed, removed = compare(zero(schema) if old is None else old, new, schema)
    changed -= SERVER_OWNED
    if ignored:
        changed = without_prefixes(changed, ignored)
    return changed, removed


def without_prefixes(paths: set[Path], prefixes: tuple[Path, ...]) -> set[Path]:
    """The paths at none of the prefixes or below them: each path's heads of the prefixes' lengths
    looked up in a set, rather than each prefix compared with each path."""
    heads = set(prefixes)
    lengths = {len(prefix) for prefix in prefixes}
    if len(lengths) == 1:
        (length,) = lengths
        return {p for p in paths if p[:length] not in heads}
    return {p for p in paths if not any(p[:length] in heads for length in lengths)}


def _released(entry: dict[str, Any], changed: set[Path], removed: set[Path]) -> list[dict[str, Any]]:
    """Another manager's entry once a write took `changed` and `removed` from it (none, if nothing is left)."""
    fields = entry.get("fieldsV1") or {}
    if isinstance(fields, dict) and fields and _untouched(fields, changed, removed):
        return [entry]  # the common case, found without expanding the entry into its paths
    owned = from_fields_v1(entry.get("fieldsV1") or {})
    # A removed node takes everything below it out of every manager's set.
    kept = {p for p in owned - changed if not any(p[:i] in removed for i in range(len(p) + 1))}
    if kept != owned:
        entry = {**entry, "fieldsV1": to_fields_v1(kept)}
    return [entry] if kept else []


def release(entries: list[dict[str, Any]], old: Any, new: dict[str, Any], schema: schemas.Schema,
            ignored: tuple[Path, ...]) -> list[dict[str, Any]]:
    """Entries recorded through another API version than a write's, with what the write changed, seen
    in their version, taken from them (structured-merge-diff compares each version's managers in theirs)."""
    changed, removed = _written(old, new, schema, ignored)
    return [kept for entry in entries for kept in _released(entry, changed, removed)]


def update(entries: list[dict[str, Any]], old: Any, new: dict[str, Any], schema: schemas.Schema,
           manager: str, api_version: str, subresource: str | None, now: str,
           ignored: tuple[Path, ...]) -> list[dict[str, Any]]:
    """The managedFields after `manager` turned old (None on create) into new.

    `ignored` are the paths the write cannot set, so never owns: with a status subresource, a write to
    the main resource owns no status, and one to /status no spec.
    """
    changed, removed = _written(old, new, schema, ignored)
    out: list[dict[str, Any]] = []
    mine: dict[str, Any] | None = None
    for entry in entries:
        is_mine = (entry.get("manager", "") == manager and entry.get("operation") == "Update"
                   and entry.get("subresource") == subresource)
        if is_mine:
            mine = entry
            continue
        out += _released(entry, changed, removed)
    mine_fields = mine.get("fieldsV1") if mine is not None else None
    kept = (isinstance(mine_fields, dict) and bool(mine_fields) and all(_owns(mine_fields, p) for p in changed)
            and not any(_owns(mine_fields, p) for p in removed))
    if kept:
        # The write changed only what this manager owned already (the common update): found without
        # expanding the entry into its paths, and its fields kept as they are when already in the
        # form to_fields_v1 gives.
        assert mine is not None and isinstance(mine_fields, dict)
        owned = set() if canonical(mine_fields) else from_fields_v1(mine_fields)
        unchanged = True
    else:
        before = from_fields_v1(mine_fields or {})
        owned = (before - removed) | changed
        unchanged = owned == before
    if kept or owned:
        # An entry recorded without a time (an update through /scale) keeps none while unchanged.
        time = mine.get("time") if mine is not None and unchanged else now
        out.append(update_entry(manager, api_version, time, to_fields_v1(owned) if owned else mine_fields,
                                subresource))
    return sorted(out, key=lambda e: (e.get("operation", ""), e.get("time", ""), e.get("manager", ""),
                                      e.get("apiVersion", ""), e.get("subresource", "")))


def update_entry(manager: str, api_version: str, time: str | None, fields: Any,
                 subresource: str | None) -> dict[str, Any]:
    """A managedFields entry of an Update, its keys in upstream's order."""
    # A client without fieldManager or User-Agent is an unnamed manager; the name is then omitted.
    entry: dict[str, Any] = {"manager": manager} if manager else {}
    entry.update({"operation": "Update", "apiVersion": api_version})
    if time:
        entry["time"] = time
    entry.update({"fieldsType": "FieldsV1", "fieldsV1": fields})
    if subresource:
        entry["subresource"] = subresource
    return entry
