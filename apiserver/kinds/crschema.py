"""Custom objects against their version's openAPIV3Schema: pruned, defaulted, then every rule checked.

Pruning drops what the schema does not declare (unless x-kubernetes-preserve-unknown-fields keeps
it), then the nulls of fields neither nullable nor defaulted, and defaulting fills declared defaults,
as upstream does while decoding. Validation is kube-openapi's (kinds/schemavalidator.py): every failing
field at once, with the field paths, reasons and wording kube-apiserver uses for custom resources
("spec.replicas in body must be of type integer: \"string\"").
"""

from __future__ import annotations

import copy
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import schemavalidator

Schema = dict[str, Any]

_ROOT_FIELDS = ("apiVersion", "kind", "metadata")


def prune(obj: dict[str, Any], schema: Schema | None) -> None:
    """Removes, in place, the fields the schema does not declare; the root's type fields always stay."""
    if schema is None:
        return
    _prune_object(obj, schema, keep=_ROOT_FIELDS)


def _prune(value: Any, schema: Schema) -> None:
    if isinstance(value, dict):
        keep = _ROOT_FIELDS if schema.get("x-kubernetes-embedded-resource") else ()
        _prune_object(value, schema, keep)
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for item in value:
                _prune(item, items)


def _prune_object(value: dict[str, Any], schema: Schema, keep: tuple[str, ...]) -> None:
    properties = schema.get("properties") or {}
    additional = schema.get("additionalProperties")
    preserve = schema.get("x-kubernetes-preserve-unknown-fields") is True
    for key in list(value):
        if key in keep:
            continue
        if key in properties:
            _prune(value[key], properties[key])
        elif isinstance(additional, dict):
            _prune(value[key], additional)
        elif not preserve and additional is not True:
            del value[key]


def default(value: Any, schema: Schema | None) -> None:
    """Fills, in place, absent fields (and nulls the schema does not allow) that declare a default."""
    if schema is None:
        return
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        for key, sub in properties.items():
            if "default" in sub and (key not in value or _null_to_default(value[key], sub)):
                value[key] = copy.deepcopy(sub["default"])
        additional = schema.get("additionalProperties")
        for key, item in value.items():
            sub = properties.get(key)
            if sub is None and isinstance(additional, dict):
                sub = additional
                if _null_to_default(item, sub):
                    value[key] = item = copy.deepcopy(sub["default"])
            if isinstance(sub, dict):
                default(item, sub)
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for index, item in enumerate(value):
                if _null_to_default(item, items):
                    value[index] = item = copy.deepcopy(items["default"])
                default(item, items)


def _null_to_default(value: Any, schema: Schema) -> bool:
    return value is None and not schema.get("nullable") and "default" in schema


def prune_nulls(value: Any, schema: Schema | None) -> None:
    """PruneNonNullableNullsWithoutDefaults: removes, in place, the null map values whose schema is
    neither nullable nor defaulted (a list's null items stay, for validation to refuse)."""
    if isinstance(value, dict):
        properties = (schema or {}).get("properties") or {}
        additional = (schema or {}).get("additionalProperties")
        for key in list(value):
            sub = properties.get(key) if key in properties else additional if isinstance(additional, dict) else None
            if value[key] is None and isinstance(sub, dict) and not sub.get("nullable") and "default" not in sub:
                del value[key]
            else:
                prune_nulls(value[key], sub)
    elif isinstance(value, list):
        items = (schema or {}).get("items")
        for item in value:
            prune_nulls(item, items if isinstance(items, dict) else None)


def validate(obj: dict[str, Any], schema: Schema | None) -> list[FieldError]:
    """Every rule the object breaks; the root's apiVersion, kind and metadata are checked elsewhere."""
    if schema is None:
        return []
    root = {k: v for k, v in obj.items() if k not in _ROOT_FIELDS}
    required = [r for r in schema.get("required") or () if r not in _ROOT_FIELDS]
    return check_value(root, {**schema, "required": required})


def check_value(value: Any, schema: Schema, root: str = "", formats_stripped: bool = True) -> list[FieldError]:
    """The rules a value breaks against a schema of its own: names start at the value, field paths at
    `root` (ValidateCustomResource's fldPath; "" for none). Unless `formats_stripped`, a format the
    type does not support is kept (a validator built from a structural schema, as a CRD's defaults meet)."""
    found = schemavalidator.Found(root, formats_stripped)
    schemavalidator.validate_value(value, schema, "", found)
    return found.errors
