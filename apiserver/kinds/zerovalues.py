"""A definition's Go zero value as it serializes, which a create's managedFields are compared against:
value-typed fields (zero_fields.json, goshape's struct values) exist from the start, empty or zero.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from typing import Any

from apiserver.kinds import goshape, schemas


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
