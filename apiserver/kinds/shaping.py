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
_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"


class _Node:
    """What shaping a value at one schema node takes; None stands for a node that changes nothing."""

    __slots__ = ("schema", "zeros", "nulls_empty", "sorts_keys", "order", "properties", "extra", "items",
                 "omitted", "quantity", "_children")

    def __init__(self, schema: schemas.Schema) -> None:
        self.schema = schema  # held, so that the id this node is cached under is never reused
        name = schemas.ref_name(schema) or ""
        self.quantity = name == _QUANTITY
        resolved = schemas.resolve(schema) or {}
        self.zeros = tuple(goshape.always_written(name).items())
        # Empty lists and maps tagged omitempty are not written (decoding kept them, and validation saw them).
        self.omitted = goshape.omitted_when_empty(name)
        self.nulls_empty = not name.startswith(_JSON_STORED)
        self.properties: dict[str, Any] = resolved.get("properties") or {}
        extra = resolved.get("additionalProperties")
        self.extra: schemas.Schema | None = extra if isinstance(extra, dict) else None
        items = resolved.get("items")
        self.items: schemas.Schema | None = items if isinstance(items, dict) else None
        self.sorts_keys = self.extra is not None and "properties" not in resolved
        self.order = tuple(schemas.field_order().get(name, ()))
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


_NODES: dict[object, _Node | None] = {}


def compiled(schema: schemas.Schema | None) -> _Node | None:
    """The compiled node of a schema as written (a `$ref` or inline), None where shaping changes nothing."""
    if schema is None:
        return None
    cache_key = schemas.node_key(schema)
    try:
        return _NODES[cache_key]
    except KeyError:
        pass
    node: _Node | None = _Node(schema)
    assert node is not None
    if not (node.quantity or node.zeros or node.order or node.sorts_keys or node.properties or node.extra is not None
            or node.items is not None or node.omitted):
        node = None
    _NODES[cache_key] = node
    return node


def shaped(value: Any, node: _Node | None, as_decoded: bool = False) -> Any:
    """The value with Go's always-written fields added (in place) and every object's keys in Go's order.

    Objects and lists on the way to a node that changes something are new; what lies below a node that
    changes nothing is the value's own."""
    if node is None:
        return value
    if node.quantity:
        try:
            return quantity.serialized(value)
        except quantity.QuantityError:
            return value  # refused when decoded; kept for the error that names it
    if isinstance(value, list):
        item = node.child(None)
        return [shaped(v, item, as_decoded) for v in value] if item is not None else list(value)
    if not isinstance(value, dict):
        return value
    for key, zero in node.zeros:
        if key not in value:
            value[key] = {} if zero == {} else zero
        elif zero is None and node.nulls_empty and not as_decoded and value[key] in ([], {}):
            # Stored as protobuf, an empty list or map reads back as nil, which Go writes as null.
            value[key] = None
    if node.sorts_keys:
        keys: Any = sorted(value)
    elif node.order:
        order = node.order
        keys = [k for k in order if k in value]
        if len(keys) < len(value):
            keys += [k for k in value if k not in order]
    else:
        keys = value
    child = node.child
    if node.omitted:
        omitted = node.omitted
        keys = [k for k in keys if k not in omitted or value[k] not in ([], {})]
    return {k: value[k] if (c := child(k)) is None else shaped(value[k], c, as_decoded) for k in keys}


def kind_schema(obj: dict[str, Any]) -> schemas.Schema | None:
    """The schema of the object's apiVersion and kind; None for a kind 1.36 does not define."""
    group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
    return schemas.kind_ref(group, version, str(obj.get("kind") or ""))


def shaped_object(obj: dict[str, Any], as_decoded: bool = False) -> dict[str, Any]:
    """A built-in object as kube-apiserver serializes it; kinds without a 1.36 definition pass as they are.
    `as_decoded`: as the field manager sees a request's object, before storage reads an empty list back
    as null (an empty `ports: []` is owned, a null one is not)."""
    ref = kind_schema(obj)
    if ref is None:
        return obj
    return shaped(obj, compiled(ref), as_decoded)  # type: ignore[no-any-return]
