"""The shape kube-apiserver writes a built-in object in, from a walk compiled once per schema node.

Three rules give a stored object its shape: Go writes some never-set fields anyway (`resources: {}`,
`lastProbeTime: null`: goshape.always_written), writes every struct's keys in field order and
every map's keys sorted (schemas.field_order), and writes a resource.Quantity as its String() ("1.5Gi"
as "1536Mi", 5 as "5": quantity.serialized). Both depend only on where a value sits in the schema,
so each schema node is compiled once into what it needs, and a write walks only the nodes that can
change something: a ConfigMap's data, a managedFields entry's fieldsV1 or a string are passed over
whole instead of being descended into field by field with every `$ref` resolved again.
"""

from __future__ import annotations

from typing import Any

from apiserver.kinds import goshape, quantity, schemas

# Kept in etcd as JSON rather than protobuf, so an empty list stays one.
_JSON_STORED = "io.k8s.apiextensions-apiserver."
_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


class _Node:
    """What shaping a value at one schema node takes; None stands for a node that changes nothing."""

    __slots__ = ("schema", "zeros", "nulled", "sorts_keys", "order", "rank", "properties", "extra", "items",
                 "omitted", "scalars_omitted", "quantity", "_children")

    def __init__(self, schema: schemas.Schema) -> None:
        self.schema = schema  # held, so that the id this node is cached under is never reused
        name = schemas.ref_name(schema) or ""
        self.quantity = name == schemas.QUANTITY
        resolved = schemas.resolve(schema) or {}
        self.zeros = tuple(goshape.always_written(name).items())
        # Empty fields tagged omitempty are not written (decoding kept them, and validation saw them). An
        # object's metadata keeps its empty scalars: resourceVersion "" holds the revision's place.
        self.omitted = goshape.omitted_when_empty(name)
        self.scalars_omitted = name != _OBJECT_META
        # Stored as protobuf, an empty slice or map reads back as nil, which Go writes as null.
        self.nulled = frozenset() if name.startswith(_JSON_STORED) else goshape.nulled_when_empty(name)
        self.properties: dict[str, Any] = resolved.get("properties") or {}
        extra = resolved.get("additionalProperties")
        self.extra: schemas.Schema | None = extra if isinstance(extra, dict) else None
        items = resolved.get("items")
        self.items: schemas.Schema | None = items if isinstance(items, dict) else None
        self.sorts_keys = self.extra is not None and "properties" not in resolved
        self.order = tuple(schemas.field_order().get(name, ()))
        # Where each field comes in Go's order: an object holding only known fields is sorted by it.
        self.rank = {key: i for i, key in reversed(list(enumerate(self.order)))}
        self._children: dict[str | None, _Node | None] = {}

    def child(self, key: str | None) -> _Node | None:
        """The node of a field (None: of a list's items), compiled on first use."""
        try:
            return self._children[key]
        except KeyError:
            pass
        if key is None:
            schema = self.items
        else:
            schema = self.properties.get(key, self.extra)
        node = self._children[key] = compiled(schema)
        return node


_NODES: dict[object, tuple[schemas.Schema, _Node | None]] = {}


def compiled(schema: schemas.Schema | None) -> _Node | None:
    """The compiled node of a schema as written (a `$ref` or inline), None where shaping changes nothing."""
    return schemas.compiled(_NODES, schema, _built)


def _built(schema: schemas.Schema) -> _Node | None:
    node = _Node(schema)
    if not (node.quantity or node.zeros or node.order or node.sorts_keys or node.properties or node.extra is not None
            or node.items is not None or node.omitted):
        return None
    return node


# Where an empty list or map sits that storage turns into null: (the object holding it, its key, it).
Emptied = list[tuple[dict[str, Any], str, Any]]


def shaped(value: Any, node: _Node | None, emptied: Emptied | None = None, copying: bool = False) -> Any:
    """The value with Go's always-written fields added (in place) and every object's keys in Go's order.

    Objects and lists on the way to a node that changes something are new; what lies below a node that
    changes nothing is the value's own. With `emptied`, an empty list or map that storage would turn into
    null stays as decoded, and where it sits is added to `emptied` (see `as_stored`). With `copying`, an
    object gets its always-written fields in a copy of its own, so that the value is left as it was."""
    if node is None:
        return value
    if node.quantity:
        try:
            return quantity.serialized(value)
        except quantity.QuantityError:
            return value  # refused when decoded; kept for the error that names it
    if isinstance(value, list):
        item = node.child(None)
        return [shaped(v, item, emptied, copying) for v in value] if item is not None else list(value)
    if not isinstance(value, dict):
        return value
    kept: list[str] | None = None
    own = not copying  # whether this object may be changed in place
    for key, zero in node.zeros:
        if key not in value:
            if not own:
                value, own = dict(value), True
            value[key] = {} if zero == {} else zero
        elif key in node.nulled and value[key] in ([], {}):
            if emptied is None:
                if not own:
                    value, own = dict(value), True
                value[key] = None
            else:
                kept = [*(kept or ()), key]
    if node.sorts_keys:
        keys: Any = sorted(value)
    elif node.order:
        rank = node.rank
        if value.keys() <= rank.keys():
            keys = sorted(value, key=rank.__getitem__)
        else:
            order = node.order
            keys = [k for k in order if k in value]
            keys += [k for k in value if k not in rank]
    else:
        keys = value
    if node.omitted:
        omitted = node.omitted
        if node.scalars_omitted:
            # A truthy value is never empty: _empty is asked only of the falsy ones.
            keys = [k for k in keys if k not in omitted or (v := value[k]) or not _empty(v)]
        else:
            keys = [k for k in keys if k not in omitted or value[k] not in ([], {})]
    children = node._children
    out = {}
    for k in keys:
        v = value[k]
        c = children[k] if k in children else node.child(k)
        out[k] = v if c is None else shaped(v, c, emptied, copying)
    if kept:
        assert emptied is not None
        emptied.extend((out, key, out[key]) for key in kept)
    return out


def _empty(value: Any) -> bool:
    """What encoding/json's omitempty leaves out of a string, number, bool, slice or map field."""
    return value in ([], {}) or value is False or (value == 0 and value is not True) or value == ""


def as_stored(emptied: Emptied) -> None:
    """Turns the empty lists and maps a shaping kept (`emptied`) into the nulls storage reads back."""
    for holder, key, _ in emptied:
        holder[key] = None


def as_decoded(emptied: Emptied) -> None:
    """Gives back the empty lists and maps as_stored turned into nulls (where nothing set them since):
    upstream validates the object as decoded, before storage, and shows `monitors: []` as sent."""
    for holder, key, value in emptied:
        if key in holder and holder[key] is None:
            holder[key] = value


def kind_schema(obj: dict[str, Any]) -> schemas.Schema | None:
    """The schema of the object's apiVersion and kind; None for a kind 1.36 does not define."""
    group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
    return schemas.kind_ref(group, version, str(obj.get("kind") or ""))


def shaped_object(obj: dict[str, Any], emptied: Emptied | None = None) -> dict[str, Any]:
    """A built-in object as kube-apiserver serializes it; kinds without a 1.36 definition pass as they are.

    With `emptied`, as Go holds it once decoded, before storage: empty lists and maps stay (see `shaped`)."""
    ref = kind_schema(obj)
    if ref is None:
        return obj
    return shaped(obj, compiled(ref), emptied)  # type: ignore[no-any-return]


def shaped_view(obj: dict[str, Any], emptied: Emptied | None = None) -> dict[str, Any]:
    """shaped_object of a copy of obj, obj left as it was, for a caller that only reads the answer:
    what shaping leaves as it is, the answer shares with obj (a kind without a definition, all of it)."""
    ref = kind_schema(obj)
    if ref is None:
        return obj
    return shaped(obj, compiled(ref), emptied, copying=True)  # type: ignore[no-any-return]
