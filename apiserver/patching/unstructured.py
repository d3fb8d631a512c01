"""What upstream's DefaultUnstructuredConverter says when a strategically merged object does not fit its
Go type (apimachinery/pkg/runtime/converter.go, fromUnstructured), and the 422 the patch handler wraps it in.

A strategic merge patch is applied to the object as a map and the result converted straight into the
Go struct, so a wrong type is named in the converter's words ("cannot restore map from string"), not
in encoding/json's as for other writes. Types with their own unmarshalling (times, quantities,
int-or-string, raw extensions) are left to the JSON decoder's check that runs after.
"""

from __future__ import annotations

from typing import Any

from apiserver import errors
from apiserver.kinds import schemas

# The reflect.Kind of each value an unstructured map holds.
_SOURCE_KIND = {dict: "map", list: "slice", str: "string", bool: "bool", int: "int64", float: "float64"}
_INTEGER_KINDS = {"int32", "int64"}


def restore_error(value: Any, schema: schemas.Schema | None) -> str | None:
    """The converter's error for the first value that does not fit, or None."""
    resolved = schemas.resolve(schema)
    if resolved is None or value is None or _custom_unmarshaller(resolved):
        return None
    kinds = schemas.types_of(resolved) - {"null"}
    source = _SOURCE_KIND.get(type(value), "interface")
    if "properties" in resolved:
        if not isinstance(value, dict):
            return f"cannot restore struct from: {source}"
        props = resolved["properties"]
        return _first(restore_error(v, props[k]) for k, v in value.items() if k in props)
    if kinds == {"array"}:
        if not isinstance(value, list):
            return f"cannot restore slice from {source}"
        item = schemas.child_schema(schema, None)
        return _first(restore_error(v, item) for v in value)
    if kinds == {"object"}:
        if not isinstance(value, dict):
            return f"cannot restore map from {source}"
        extra = resolved.get("additionalProperties")
        return _first(restore_error(v, extra) for v in value.values()) if isinstance(extra, dict) else None
    if len(kinds) == 1:
        return _primitive_error(value, source, _target_kind(resolved, next(iter(kinds))))
    return None


def _custom_unmarshaller(resolved: schemas.Schema) -> bool:
    return (resolved.get("format") in ("date-time", "int-or-string") or "oneOf" in resolved
            or bool(resolved.get("x-kubernetes-int-or-string"))
            or bool(resolved.get("x-kubernetes-preserve-unknown-fields"))
            or (schemas.types_of(resolved) - {"null"} == {"object"} and "additionalProperties" not in resolved
                and "properties" not in resolved))


def _target_kind(resolved: schemas.Schema, kind: str) -> str:
    if kind == "integer":
        return str(resolved.get("format") or "int64")
    return {"boolean": "bool", "number": "float64"}.get(kind, "string")


def _primitive_error(value: Any, source: str, target: str) -> str | None:
    """fromUnstructured's simple types: JSON's four groups (bools, integers, floats, strings) do not mix,
    except integers into floats and whole floats into integers."""
    if source == "string" and target == "string" or source == "bool" and target == "bool":
        return None
    if source == "int64":
        if target in _INTEGER_KINDS or target == "float64":
            return None
        if target == "string":  # Go converts an integer to a string (a rune), but JSON does not
            return "cannot convert int64 to string"
    if source == "float64" and target in _INTEGER_KINDS | {"float64"}:
        return None if target == "float64" or float(value).is_integer() else f"cannot convert float64 to {target}"
    return f"unrecognized type: {target}"


def _first(found: Any) -> str | None:
    return next((e for e in found if e), None)


def go_print(value: Any) -> str:
    """fmt's %+v of a decoded JSON value: maps with sorted keys, no quotes."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_print(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_print(v) for v in value) + "]"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_float(value)
    return str(value)


def _go_float(value: float) -> str:
    """%v of a float64: the shortest form, in exponent notation from 1e21 up and below 1e-4."""
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        return f"{mantissa}e{sign}{abs(int(exponent)):02d}"
    return text


def invalid_patch(patch: Any, message: str) -> errors.ApiError:
    """The patch handler's refusal of a converted object: an Invalid of no kind, naming the patch."""
    shown = go_print(patch).replace("\\", "\\\\").replace('"', '\\"')
    return errors.invalid("", "", "", [errors.FieldError("FieldValueInvalid", "patch",
                                                         f'Invalid value: "{shown}": {message}')])
