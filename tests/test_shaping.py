"""The compiled shape walk (apiserver/kinds/shaping.py) against the plain recursive one it replaced.

The plain walk, kept here as the reference, resolves each field's schema as it goes: it is the rule
written down (Go's always-written fields, then Go's key order), and the compiled walk must give the
same bytes for every object: the fixtures and manifests as clients send them, kube-apiserver's own
answers for them, and all again with every object's keys reversed.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest
import schema_corpus

from apiserver.kinds import goshape, schemas, shaping
from apiserver.kinds.shaping import _JSON_STORED, _OBJECT_META


def _omitted(value: Any, scalars: bool) -> bool:
    if isinstance(value, (list, dict)):
        return not value
    return scalars and (value is False or value == "" or (type(value) in (int, float) and value == 0))


def _reference_go_zero(value: Any, schema: schemas.Schema | None) -> Any:
    if isinstance(value, list):
        item = schemas.child_schema(schema, None)
        return [_reference_go_zero(v, item) for v in value]
    if not isinstance(value, dict) or schema is None:
        return value
    name = schemas.ref_name(schema) or ""
    for key, zero in goshape.always_written(name).items():
        if key not in value:
            value[key] = {} if zero == {} else zero
        elif key in goshape.nulled_when_empty(name) and value[key] in ([], {}) and not name.startswith(_JSON_STORED):
            value[key] = None
    for key in goshape.omitted_when_empty(name):
        # encoding/json's omitempty; an object's metadata keeps its empty scalars (resourceVersion's place).
        if key in value and _omitted(value[key], scalars=name != _OBJECT_META):
            del value[key]
    for key, child in value.items():
        value[key] = _reference_go_zero(child, schemas.child_schema(schema, key))
    return value


def _reference_ordered(value: Any, schema: schemas.Schema | None) -> Any:
    if isinstance(value, list):
        item = schemas.child_schema(schema, None)
        return [_reference_ordered(v, item) for v in value]
    if not isinstance(value, dict):
        return value
    resolved = schemas.resolve(schema)
    if resolved is not None and "additionalProperties" in resolved and "properties" not in resolved:
        keys = sorted(value)
    else:
        name = schemas.ref_name(schema) if schema is not None else None
        order = schemas.field_order().get(name or "", ())
        keys = [k for k in order if k in value] + [k for k in value if k not in order]
    return {k: _reference_ordered(value[k], schemas.child_schema(schema, k)) for k in keys}


OBJECTS = schema_corpus.objects()


def test_the_corpus_covers_the_built_in_kinds() -> None:
    kinds = {obj["kind"] for obj in OBJECTS if schema_corpus.ref(obj) is not None}
    assert len(OBJECTS) > 400 and len(kinds) > 50, (len(OBJECTS), sorted(kinds))


@pytest.mark.parametrize("index", range(len(OBJECTS)))
def test_compiled_walk_gives_the_reference_bytes(index: int) -> None:
    obj = OBJECTS[index]
    ref = schema_corpus.ref(obj)
    expected = _reference_ordered(_reference_go_zero(copy.deepcopy(obj), ref), ref)
    got = shaping.shaped(copy.deepcopy(obj), shaping.compiled(ref))
    assert orjson.dumps(got) == orjson.dumps(expected)


def test_a_node_that_changes_nothing_is_passed_over_whole() -> None:
    ref = schemas.kind_ref("", "v1", "ConfigMap")
    node = shaping.compiled(ref)
    assert node is not None
    # A fresh $ref finds the same node.
    assert shaping.compiled(schemas.kind_ref("", "v1", "ConfigMap")) is node
    data = {"b": "2", "a": "1"}
    fields = {"f:data": {"f:b": {}, "f:a": {}}}
    obj = {"kind": "ConfigMap", "apiVersion": "v1", "data": data,
           "metadata": {"name": "x", "managedFields": [{"manager": "m", "fieldsV1": fields}]}}
    got = shaping.shaped(obj, node)
    assert list(got["data"]) == ["a", "b"]  # a map's keys are sorted
    assert got["metadata"]["managedFields"][0]["fieldsV1"] is fields  # raw JSON in Go: not descended into
