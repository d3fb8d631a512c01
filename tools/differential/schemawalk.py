"""Fields of a kind's OpenAPI schema, and the values a generated case puts in them.

`fields` walks a kind's published schema (the kubernetes-validate definitions the server serves) down
to a bounded depth and lists every field with the schemas on the way to it, list items taken at index
0. `variants` gives, for one field's schema, the values worth sending: absent, empty, zero, typical and
at the limits, then the mutations kube-apiserver should refuse (out of range, bad format, unknown enum
value, duplicate keys of a list-map). `place` puts a value at a field's path in an object, creating
what lies between with the schema's required fields, so that a case changes one thing at a time.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Iterator

from apiserver.kinds import schemas

Schema = dict[str, Any]
Segment = str | int
ABSENT = object()  # a variant that removes the field

_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
_TIMES = ("io.k8s.apimachinery.pkg.apis.meta.v1.Time", "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime")
_RAW = ("io.k8s.apimachinery.pkg.runtime.RawExtension",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON")
_OPAQUE = ("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",  # metadata has its own cases
           "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps")
_SKIPPED_TOP = {"apiVersion", "kind", "metadata", "status"}
MAX_DEPTH = 6
LONG = "x" * 254
LABEL_LONG = "x" * 64


@dataclass(frozen=True)
class Field:
    path: tuple[Segment, ...]
    schemas: tuple[Schema, ...]  # the schema of each segment's value, the last being the field's own
    ref: str | None  # the definition the field's value is, when it is a named one

    @property
    def schema(self) -> Schema:
        return self.schemas[-1]

    @property
    def dotted(self) -> str:
        out = ""
        for seg in self.path:
            out += f"[{seg}]" if isinstance(seg, int) else (f".{seg}" if out else seg)
        return out


def _types(schema: Schema) -> set[str]:
    kinds = schema.get("type")
    found = {kinds} if isinstance(kinds, str) else set(kinds or ())
    return found - {"null"}


def fields(kind_schema: Schema, under: str | None = None) -> list[Field]:
    """Every field of the kind below its top-level keys (or below `under`, e.g. "status")."""
    out: list[Field] = []
    props = kind_schema.get("properties") or {}
    for key in sorted(props):
        if (under is None and key in _SKIPPED_TOP) or (under is not None and key != under):
            continue
        _walk(props[key], (key,), (), out, frozenset())
    return out


def _walk(raw: Schema, path: tuple[Segment, ...], chain: tuple[Schema, ...], out: list[Field],
          seen: frozenset[str]) -> None:
    ref = schemas.ref_name(raw)
    schema = schemas.resolve(raw) or {}
    if ref in _OPAQUE:
        return
    here = chain + (schema,)
    out.append(Field(path, here, ref))
    if len(path) >= MAX_DEPTH or (ref is not None and ref in seen):
        return
    seen = seen | {ref} if ref else seen
    if ref in (_QUANTITY, _INT_OR_STRING, *_TIMES, *_RAW):
        return
    for key, sub in sorted((schema.get("properties") or {}).items()):
        _walk(sub, path + (key,), here, out, seen)
    items = schema.get("items")
    if isinstance(items, dict) and "object" in _types(schemas.resolve(items) or {}):
        _walk(items, path + (0,), here, out, seen)


def typical(raw: Schema | None, key: Segment = "", depth: int = 0) -> Any:
    """A plain valid-looking value of the schema: required fields only for an object."""
    ref = schemas.ref_name(raw or {})
    schema = schemas.resolve(raw) or {}
    if ref == _QUANTITY:
        return "1"
    if ref == _INT_OR_STRING:
        return 1
    if ref in _TIMES:
        return "2024-01-01T00:00:00Z"
    if ref in _RAW:
        return {}
    if schema.get("enum"):
        return schema["enum"][0]
    kinds = _types(schema)
    if "string" in kinds:
        return "a"
    if "integer" in kinds or "number" in kinds:
        return 1
    if "boolean" in kinds:
        return False
    if "array" in kinds:
        return []
    if schema.get("properties") and depth < MAX_DEPTH:
        props = schema["properties"]
        return {name: typical(props[name], name, depth + 1) for name in schema.get("required") or ()
                if name in props}
    return {}


def variants(field: Field) -> Iterator[tuple[str, Any]]:
    """(label, value) pairs: valid shapes first, then mutations meant to be refused."""
    schema, ref = field.schema, field.ref
    yield "absent", ABSENT
    yield "null", None
    if ref == _QUANTITY:
        yield from (("zero", "0"), ("typical", "1"), ("fraction", "1.5Gi"), ("milli", "100m"),
                    ("negative", "-1"), ("huge", "1E+30"), ("bad-format", "1 Gi"), ("number", 5))
        return
    if ref == _INT_OR_STRING:
        yield from (("zero", 0), ("int", 3), ("percent", "50%"), ("negative", -1), ("bad-percent", "150%"),
                    ("bad-string", "abc"), ("string-int", "3"))
        return
    if ref in _TIMES:
        yield from (("time", "2024-01-01T00:00:00Z"), ("bad-time", "yesterday"), ("number", 5))
        return
    if ref in _RAW:
        yield from (("empty", {}), ("object", {"a": 1}), ("string", "s"))
        return
    kinds = _types(schema)
    enum = schema.get("enum")
    if enum:
        for value in enum[:4]:
            yield f"enum-{value}", value
        yield "unknown-enum", "NotAValue"
        yield "empty", ""
        return
    if "string" in kinds:
        yield from (("empty", ""), ("typical", "a"), ("subdomain", "a.example.com"), ("path", "/a/b"),
                    ("upper", "Bad_Value"), ("spaces", "a b"), ("max-label", "x" * 63), ("too-long", LONG),
                    ("number", 5))
        return
    if "integer" in kinds or "number" in kinds:
        yield from (("zero", 0), ("one", 1), ("negative", -1), ("max-int32", 2147483647),
                    ("over-int32", 2147483648), ("string", "1"))
        return
    if "boolean" in kinds:
        yield from (("true", True), ("false", False), ("string", "true"))
        return
    if "array" in kinds:
        items = schema.get("items") or {}
        item = typical(items, "")
        yield "empty", []
        yield "one", [copy.deepcopy(item)]
        keys = schema.get("x-kubernetes-list-map-keys")
        label = "duplicate-key" if keys else "duplicate"
        yield label, [copy.deepcopy(item), copy.deepcopy(item)]
        if isinstance(item, str):
            yield "bad-item", ["Bad Item!"]
            yield "empty-item", [""]
        yield "not-a-list", "a"
        return
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict) and not schema.get("properties"):
        value = typical(extra, "")
        yield "empty", {}
        yield "typical", {"key": copy.deepcopy(value)}
        yield "bad-key", {"bad key!": copy.deepcopy(value)}
        yield "long-key", {LONG: copy.deepcopy(value)}
        return
    yield "empty", {}
    yield "not-an-object", "a"


def place(obj: dict[str, Any], field: Field, value: Any) -> dict[str, Any]:
    """A copy of obj with value at field's path (or the field removed), intermediates made as typical."""
    out = copy.deepcopy(obj)
    node: Any = out
    for depth, seg in enumerate(field.path[:-1]):
        nxt_schema = field.schemas[depth]
        if isinstance(seg, int):
            if not node:
                node.append(typical(nxt_schema, seg))
            node = node[seg]
            continue
        if not isinstance(node.get(seg), (dict, list)):
            if value is ABSENT:
                return out
            node[seg] = [] if "array" in _types(nxt_schema) else typical(nxt_schema, seg)
            if node[seg] is None:
                node[seg] = {}
        node = node[seg]
    last = field.path[-1]
    if isinstance(last, int):
        if value is ABSENT:
            if node:
                node.pop(last)
        elif node:
            node[last] = copy.deepcopy(value)
        else:
            node.append(copy.deepcopy(value))
    elif value is ABSENT:
        node.pop(last, None)
    else:
        node[last] = copy.deepcopy(value)
    return out


def get(obj: Any, path: tuple[Segment, ...]) -> Any:
    """The value at path, or ABSENT."""
    node = obj
    for seg in path:
        if isinstance(seg, int):
            if not isinstance(node, list) or len(node) <= seg:
                return ABSENT
        elif not isinstance(node, dict) or seg not in node:
            return ABSENT
        node = node[seg]
    return node
