"""Field validation's compiled schema walk (apiserver/kinds/fieldvalidation.py) against the plain one.

The plain walk, kept here as the reference, resolves each field's schema as it goes; the compiled one
must find the same first mistyped (or, by apiserver/kinds/godecode.py, undecodable) value, a value
whose own UnmarshalJSON refuses it winning over a kept type error as in encoding/json, and the same
unknown fields, in the same order. Besides the corpus as it is, each object is checked again with values of the wrong type
and with unknown fields put in at seeded places, so that every branch gives an answer to compare.
"""

from __future__ import annotations

from typing import Any

import pytest
import schema_corpus

from apiserver.kinds import fieldvalidation, godecode, gotypes, schemas

# Once, on the embedded store: validation is decided before the store.
pytestmark = pytest.mark.store_once


def _reference_unknown(obj: Any, schema: schemas.Schema | None, path: str = "") -> list[str]:
    resolved = schemas.resolve(schema)
    if resolved is None or resolved.get("x-kubernetes-preserve-unknown-fields"):
        return []
    if isinstance(obj, list):
        items = schemas.items_schema(resolved)
        return [p for i, v in enumerate(obj) for p in _reference_unknown(v, items, f"{path}[{i}]")]
    if not isinstance(obj, dict):
        return []
    props = resolved.get("properties")
    extra = resolved.get("additionalProperties")
    found: list[str] = []
    for key, value in obj.items():
        where = f"{path}.{key}" if path else key
        if props is not None and key in props:
            found.extend(_reference_unknown(value, schemas.resolve(props[key]), where))
        elif isinstance(extra, dict):
            found.extend(_reference_unknown(value, schemas.resolve(extra), where))
        elif props is not None:
            found.append(where)
    return found


def _reference_fits(value: Any, resolved: schemas.Schema) -> bool:
    kinds = schemas.types_of(resolved)
    if value is None or not kinds or len(kinds - {"null"}) > 1:
        return True
    if isinstance(value, bool):
        return "boolean" in kinds
    if isinstance(value, int):
        return bool(kinds & {"integer", "number"})
    if isinstance(value, float):
        return "number" in kinds or ("integer" in kinds and value.is_integer())
    if isinstance(value, str):
        return "string" in kinds
    if isinstance(value, list):
        return "array" in kinds
    return "object" in kinds


RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension"
_JSON_KIND = {bool: "bool", int: "number", float: "number", str: "string", dict: "object", list: "array"}


def _reference_type_error(obj: Any, schema: schemas.Schema | None, owner: str = "",
                          path: str = "", go_type: str | None = None) -> str | None:
    resolved = schemas.resolve(schema)
    if resolved is None or (schema is not None and schemas.ref_name(schema) == RAW_EXTENSION):
        return None  # RawExtension.UnmarshalJSON keeps any JSON value, whatever it holds
    # The Go type as upstream's Go types give it (go_type, passed down) or else as the schema says.
    shown_type = go_type or fieldvalidation._go_type(schema)
    if not _reference_fits(obj, resolved):
        kind = _JSON_KIND.get(type(obj), "value")
        shown = f"number {obj}" if kind == "number" and isinstance(obj, float) else kind
        return (f"json: cannot unmarshal {shown} into Go struct field {owner}.{path} of type "
                f"{shown_type}")
    name = schemas.ref_name(schema) if schema is not None else None
    if godecode.judges(name, resolved.get("format")):
        # A value of the right JSON type that Go's decoding of the field's type still refuses.
        return godecode.value_error(obj, name, resolved.get("format"), shown_type,
                                    f"{owner}.{path}")
    if isinstance(obj, list):
        item = schemas.child_schema(schema, None)
        item_type = gotypes.element(go_type)
        return next((e for e in (_reference_type_error(v, item, owner, path, item_type) for v in obj) if e), None)
    if isinstance(obj, dict):
        name = schemas.ref_name(schema) if schema is not None else None
        struct = name.rsplit(".", 1)[-1] if name and "properties" in resolved else owner
        fields = gotypes.fields(name) if resolved.get("properties") else {}
        for key, value in obj.items():
            child = schemas.child_schema(schema, key)
            if child is None:
                continue
            through, child_type = fields.get(key, ("", None)) if fields else ("", gotypes.element(go_type))
            where = path if not resolved.get("properties") else f"{path}.{through}{key}" if path else through + key
            found = _reference_type_error(value, child, struct, where, child_type)
            if found:
                return found
    return None


def _reference_stopping_error(obj: Any, schema: schemas.Schema | None) -> str | None:
    """The first value, in the document's order, whose own UnmarshalJSON (a time's, a quantity's)
    refuses it, below values of the types they are decoded into."""
    resolved = schemas.resolve(schema)
    if resolved is None or (schema is not None and schemas.ref_name(schema) == RAW_EXTENSION):
        return None
    if not _reference_fits(obj, resolved):
        return None
    name = schemas.ref_name(schema) if schema is not None else None
    if godecode.judges(name, resolved.get("format")):
        return _reference_type_error(obj, schema) if godecode.stops(name) else None
    if isinstance(obj, list):
        item = schemas.child_schema(schema, None)
        return next((e for e in (_reference_stopping_error(v, item) for v in obj) if e), None)
    if isinstance(obj, dict):
        for key, value in obj.items():
            child = schemas.child_schema(schema, key)
            if child is not None and (found := _reference_stopping_error(value, child)):
                return found
    return None


def _reference_decode_error(obj: Any, schema: schemas.Schema | None) -> str | None:
    """encoding/json's answer: the first mistyped value's error is kept while decoding goes on, but an
    UnmarshalJSON's error stops it and is returned instead."""
    first = _reference_type_error(obj, schema)
    return first if first is None else _reference_stopping_error(obj, schema) or first


_WRONG = (7, 2.5, "text", True, [], {}, ["a"], {"k": "v"})


def _mutated(obj: dict[str, Any], seed: int) -> dict[str, Any]:
    return schema_corpus.mutated(obj, seed, _WRONG, replaced=3, unknown=3)


_CASES = [(obj, 0) for obj in schema_corpus.objects() if schema_corpus.ref(obj) is not None]
_CASES += [(_mutated(obj, seed), seed) for seed in range(1, 4) for obj, _ in _CASES[:]]


@pytest.mark.parametrize("index", range(len(_CASES)))
def test_compiled_checks_give_the_reference_answers(index: int) -> None:
    obj, _ = _CASES[index]
    ref = schema_corpus.ref(obj)
    assert fieldvalidation.type_error(obj, ref) == _reference_decode_error(obj, ref)
    resolved = schemas.resolve(ref)
    assert fieldvalidation.unknown_fields(obj, resolved) == _reference_unknown(obj, resolved)


def test_the_mutations_reach_both_answers() -> None:
    mistyped = sum(1 for obj, seed in _CASES if seed and _reference_type_error(obj, schema_corpus.ref(obj)))
    unknown = sum(1 for obj, seed in _CASES
                  if seed and _reference_unknown(obj, schemas.resolve(schema_corpus.ref(obj))))
    assert mistyped > 300 and unknown > 300, (mistyped, unknown)
