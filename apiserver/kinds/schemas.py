"""The OpenAPI definitions of the built-in kinds, as Kubernetes 1.36 publishes them.

One source for everything schema-shaped: the OpenAPI documents we serve, field validation, the
patch strategies and merge keys of strategic merge patch, and the key order of stored objects.
The definitions ship in the kubernetes-validate package; the key order (Go struct order, which no
published schema keeps) is a data file beside this module, made by tools/golden_facts.py.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from collections.abc import Callable
from typing import Any, TypeVar

SCHEMA_VERSION = "v1.36.0-local"
_REF_PREFIX = "#/$defs/"
_ORDER_FILE = "field_order.json"

Schema = dict[str, Any]
T = TypeVar("T")

# Definitions whose Go types read their own JSON, which the walks over schemas meet specially.
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
# What upstream's CRD schema builder declares of a custom resource (and of an embedded resource) whatever
# its schema says: apiVersion and kind strings and an ObjectMeta.
TYPE_META_PROPERTIES: dict[str, Schema] = {
    "apiVersion": {"type": "string"}, "kind": {"type": "string"},
    "metadata": {"$ref": _REF_PREFIX + "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}}


@functools.cache
def definitions() -> dict[str, Schema]:
    root = importlib.resources.files("kubernetes_validate") / "kubernetes-json-schema" / SCHEMA_VERSION
    with (root / "_definitions.json").open("rb") as f:
        return json.load(f)["$defs"]  # type: ignore[no-any-return]


@functools.cache
def _by_kind() -> dict[tuple[str, str, str], str]:
    found: dict[tuple[str, str, str], str] = {}
    for name, schema in definitions().items():
        for gvk in schema.get("x-kubernetes-group-version-kind") or ():
            found.setdefault((gvk["group"], gvk["version"], gvk["kind"]), name)
    return found


def definition_name(group: str, version: str, kind: str) -> str | None:
    return _by_kind().get((group, version, kind))


def ref_name(schema: Schema) -> str | None:
    ref = schema.get("$ref")
    return ref[len(_REF_PREFIX):] if isinstance(ref, str) and ref.startswith(_REF_PREFIX) else None


def resolve(schema: Schema | None) -> Schema | None:
    """The schema itself, or the definition it refers to."""
    if schema is None:
        return None
    name = ref_name(schema)
    return definitions()[name] if name is not None else schema


def compiled(cache: dict[object, tuple[Schema, T]], schema: Schema | None, build: Callable[[Schema], T]) -> T | None:
    """What `build` makes of a schema node, made once per node and kept in `cache` (None: no schema).
    The schema is kept beside it, so that the identity a node may be cached under is never reused."""
    if schema is None:
        return None
    key = node_key(schema)
    found = cache.get(key)
    if found is None:
        found = cache[key] = (schema, build(schema))
    return found[1]


def node_key(schema: Schema) -> object:
    """What a walk compiled per schema node caches the node of a schema under.

    A bare reference is made anew for each object (kind_ref), so it is keyed by the name it names;
    any other schema by its identity, which its compiled node must hold on to so the id is never reused.
    """
    name = ref_name(schema)
    return name if name is not None and len(schema) == 1 else id(schema)


def kind_schema(group: str, version: str, kind: str) -> Schema | None:
    name = definition_name(group, version, kind)
    return None if name is None else definitions()[name]


def property_schema(schema: Schema | None, field: str) -> Schema | None:
    """The resolved schema of a field of an object schema, or of a map value (additionalProperties)."""
    schema = resolve(schema)
    if schema is None:
        return None
    props = schema.get("properties")
    if props is not None and field in props:
        return resolve(props[field])
    extra = schema.get("additionalProperties")
    return resolve(extra) if isinstance(extra, dict) else None


def items_schema(schema: Schema | None) -> Schema | None:
    schema = resolve(schema)
    items = None if schema is None else schema.get("items")
    return resolve(items) if isinstance(items, dict) else None


def types_of(schema: Schema) -> set[str]:
    kinds = schema.get("type")
    if kinds is None:
        return {t for alt in schema.get("oneOf") or () for t in types_of(alt)}
    return {kinds} if isinstance(kinds, str) else set(kinds)


def patch_strategy(schema: Schema | None) -> tuple[set[str], str | None]:
    """A list or map field's strategic-merge strategies and its merge key."""
    if schema is None:
        return set(), None
    strategy = schema.get("x-kubernetes-patch-strategy") or ""
    return {s for s in strategy.split(",") if s}, schema.get("x-kubernetes-patch-merge-key")


@functools.cache
def field_order() -> dict[str, list[str]]:
    with (importlib.resources.files("apiserver") / "data" / _ORDER_FILE).open("rb") as f:
        return json.load(f)  # type: ignore[no-any-return]


def child_schema(schema: Schema | None, field: str | None) -> Schema | None:
    """A field's (or, with None, the list items') schema as written, keeping its $ref name."""
    schema = resolve(schema)
    if schema is None:
        return None
    if field is None:
        items = schema.get("items")
        return items if isinstance(items, dict) else None
    props = schema.get("properties")
    if props is not None and field in props:
        return props[field]  # type: ignore[no-any-return]
    extra = schema.get("additionalProperties")
    return extra if isinstance(extra, dict) else None


def kind_ref(group: str, version: str, kind: str) -> Schema | None:
    """A reference to a kind's definition, the starting point of shaping."""
    name = definition_name(group, version, kind)
    return None if name is None else definition_ref(name)


def definition_ref(name: str) -> Schema:
    """A reference to a definition by its name."""
    return {"$ref": _REF_PREFIX + name}
