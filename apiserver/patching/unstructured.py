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
from apiserver.kinds import godecode, schemas
from apiserver.wire import gonumbers, goprint

# The reflect.Kind of each value an unstructured map holds.
_SOURCE_KIND = {dict: "map", list: "slice", str: "string", bool: "bool", int: "int64", float: "float64"}
_INTEGER_KINDS = {"int32", "int64"}
_INT32_RANGE = (-(1 << 31), (1 << 31) - 1)


def restore_error(value: Any, schema: schemas.Schema | None, own_types: bool = False) -> str | None:
    """The converter's error for the first value that does not fit, or None.

    `own_types`: judge the types that unmarshal themselves too (times, quantities, int-or-string), as
    the converter does by handing them their JSON; otherwise they are left to a later decode."""
    return _restored(value, _node(schema), own_types)


class _Node:
    """What restoring a value at one schema node takes, compiled once: its shape (struct, slice, map,
    primitive), whether the type unmarshals itself, and its children's nodes."""

    __slots__ = ("_children", "custom", "extra", "is_byte", "item", "props", "resolved", "schema", "shape", "target")

    def __init__(self, schema: schemas.Schema, resolved: schemas.Schema) -> None:
        self.schema = schema  # held, so that the id this node is cached under is never reused
        self.resolved = resolved
        self.custom = _custom_unmarshaller(resolved)
        kinds = schemas.types_of(resolved) - {"null"}
        self.props: dict[str, Any] = resolved.get("properties") or {}
        extra = resolved.get("additionalProperties")
        self.extra = extra if isinstance(extra, dict) else None
        self.item = schemas.child_schema(schema, None)
        self.shape = ("struct" if "properties" in resolved else "slice" if kinds == {"array"} else
                      "map" if kinds == {"object"} else "primitive" if len(kinds) == 1 else "")
        self.target = _target_kind(resolved, next(iter(kinds))) if self.shape == "primitive" else ""
        self.is_byte = resolved.get("format") == "byte"
        self._children: dict[str | None, _Node | None] = {}

    def child(self, key: str | None) -> _Node | None:
        """A field's node, a map value's (""), or a list item's (None), compiled on first use."""
        try:
            return self._children[key]
        except KeyError:
            pass
        schema = self.item if key is None else self.extra if key == "" else self.props.get(key)
        found = self._children[key] = _node(schema)
        return found


_NODES: dict[object, tuple[schemas.Schema, _Node | None]] = {}


def _node(schema: schemas.Schema | None) -> _Node | None:
    return schemas.compiled(_NODES, schema, _built)


def _built(schema: schemas.Schema) -> _Node | None:
    resolved = schemas.resolve(schema)
    return None if resolved is None else _Node(schema, resolved)


def _restored(value: Any, node: _Node | None, own_types: bool) -> str | None:
    if node is None or value is None:
        return None
    if node.custom:
        return _unmarshal_error(value, node.schema, node.resolved) if own_types else None
    shape = node.shape
    if shape == "struct":
        if not isinstance(value, dict):
            return f"cannot restore struct from: {_SOURCE_KIND.get(type(value), 'interface')}"
        props = node.props
        return _first(_restored(v, node.child(k), own_types) for k, v in value.items() if k in props)
    if shape == "slice":
        if not isinstance(value, list):
            return f"cannot restore slice from {_SOURCE_KIND.get(type(value), 'interface')}"
        item = node.child(None)
        return _first(_restored(v, item, own_types) for v in value)
    if shape == "map":
        if not isinstance(value, dict):
            return f"cannot restore map from {_SOURCE_KIND.get(type(value), 'interface')}"
        extra = node.child("") if node.extra is not None else None
        return _first(_restored(v, extra, own_types) for v in value.values()) if extra is not None else None
    if shape == "primitive":
        if own_types and node.is_byte and isinstance(value, str):
            # a []byte is restored from a string by decoding it as JSON's base64
            return godecode.value_error(value, None, "byte", "", "", unstructured=True)
        return _primitive_error(value, _SOURCE_KIND.get(type(value), "interface"), node.target)
    return None


def restore_numbers(value: Any, schema: schemas.Schema | None) -> None:
    """Converts, in place, the numbers of a map that restore_error let through as fromUnstructured
    converts them into the Go type: reflect's Convert wraps an integer to its field's width (4294967297
    into an int32 is 1) and truncates a whole float64 into an integer (int64(f), which on amd64 is the
    lowest int64 past its range); a float64 field keeps its float, which encoding/json writes without a
    fraction when whole. Types that unmarshal themselves are left alone, as restore_error leaves them."""
    _restore_numbers(value, _node(schema))


def _restore_numbers(value: Any, node: _Node | None) -> None:
    if node is None or node.custom:
        return
    shape = node.shape
    if shape == "struct" and isinstance(value, dict):
        props = node.props
        for key, item in value.items():
            if key in props:
                value[key] = _restored_number(item, node.child(key))
    elif shape == "slice" and isinstance(value, list):
        item_node = node.child(None)
        for i, item in enumerate(value):
            value[i] = _restored_number(item, item_node)
    elif shape == "map" and isinstance(value, dict) and node.extra is not None:
        extra = node.child("")
        for key, item in value.items():
            value[key] = _restored_number(item, extra)


def _restored_number(value: Any, node: _Node | None) -> Any:
    if node is None or node.custom:
        return value
    if node.shape != "primitive":
        _restore_numbers(value, node)
        return value
    if type(value) is float:
        if node.target == "float64":
            return gonumbers.as_written(value)
        if node.target in _INTEGER_KINDS:
            value = int(value) if -(2**63) <= value < 2**63 else -(2**63)
    if type(value) is int and node.target == "int32":
        return (value + 2**31) % 2**32 - 2**31
    return value


def _unmarshal_error(value: Any, schema: schemas.Schema | None, resolved: schemas.Schema) -> str | None:
    """What a type's UnmarshalJSON says of the value's JSON: IntOrString takes a string or an int32,
    Time and MicroTime a string of their layout, Quantity its own syntax; anything else takes anything."""
    name = schemas.ref_name(schema) if schema is not None else None
    if name == schemas.QUANTITY:
        return godecode.value_error(value, name, None, "", "", unstructured=True)
    json_kind = {dict: "object", list: "array", bool: "bool", int: "number", float: "number"}.get(type(value))
    if resolved.get("format") == "date-time":
        if isinstance(value, str):
            return godecode.value_error(value, name, None, "", "", unstructured=True)
        return f"json: cannot unmarshal {json_kind} into Go value of type string"
    if name == schemas.INT_OR_STRING:
        if isinstance(value, str):
            return None
        if json_kind == "number":
            low, high = _INT32_RANGE
            if isinstance(value, int) and low <= value <= high or isinstance(value, float) and \
                    value.is_integer() and abs(value) < 1e21 and low <= value <= high:
                return None
            json_kind = f"number {goprint.json_number(value)}"
        return f"json: cannot unmarshal {json_kind} into Go value of type int32"
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


def invalid_patch(patch: Any, message: str) -> errors.ApiError:
    """The patch handler's refusal of a converted object: an Invalid of no kind, naming the patch."""
    shown = goprint.plain(patch).replace("\\", "\\\\").replace('"', '\\"')
    return errors.invalid("", "", "", [errors.FieldError("FieldValueInvalid", "patch",
                                                         f'Invalid value: "{shown}": {message}')])
