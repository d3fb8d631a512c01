"""A custom resource's validation after its metadata, in the order upstream's customResourceStrategy
.Validate runs it (apiextensions-apiserver/pkg/registry/customresource/strategy.go and validator.go):
the OpenAPI schema (kinds/crschema.py; an update's unchanged values ratcheted, crd/ratcheting.py), the
scale subresource's replicas and selector (ValidateScaleSpec, ValidateScaleStatus), embedded resources
(schema/objectmeta), list-type set and map uniqueness (schema/listtype), then the x-kubernetes-validations
rules, which are not run when an earlier error would make them misleading.
"""

from __future__ import annotations

from typing import Any

from apiserver.crd import ratcheting
from apiserver.errors import FieldError
from apiserver.kinds import crschema, crvalidations
from apiserver.kinds.validation import dns1035_label
from apiserver.registry import field, meta
from columns.gofmt import json_text

Obj = dict[str, Any]
Schema = dict[str, Any]

_MAX_INT32 = 2**31 - 1
# hasBlockingErr: failures that leave the object too unlike its schema for rules to judge it.
_BLOCKING = frozenset(
    {
        "FieldValueNotSupported",
        "FieldValueRequired",
        "FieldValueTooLong",
        "FieldValueTooMany",
        "FieldValueTypeInvalid",
    }
)
_NOT_CHECKED = FieldError(
    "FieldValueInvalid",
    "<nil>",
    "Invalid value: null: some validation rules were not checked because the object was "
    "invalid; correct the existing errors to complete validation",
)


def _nested(obj: Obj, json_path: str, want: type) -> tuple[Any, str | None]:
    """unstructured.Nested{Int64,String}: the value at a dotted path, or the accessor's error."""
    keys = json_path.removeprefix(".").split(".")
    value: Any = obj
    for i, key in enumerate(keys):
        if not isinstance(value, dict):
            walked = "." + ".".join(keys[: i + 1])
            return None, (
                f"{walked} accessor error: {value} is of the type {field.go_type_name(value)}, "
                "expected map[string]interface{}"
            )
        if key not in value:
            return None, None
        value = value[key]
    if isinstance(value, want) and not isinstance(value, bool):
        return value, None
    expected = "int64" if want is int else "string"
    return None, (
        f".{'.'.join(keys)} accessor error: {value} is of the type {field.go_type_name(value)}, expected {expected}"
    )


def _replicas(obj: Obj, json_path: str) -> list[FieldError]:
    replicas, error = _nested(obj, json_path, int)
    if error is not None:
        return [field.invalid(json_path, 0, error)]
    replicas = replicas or 0
    if replicas < 0:
        return [field.invalid(json_path, replicas, "should be a non-negative integer")]
    if replicas > _MAX_INT32:
        return [field.invalid(json_path, replicas, f"should be less than or equal to {_MAX_INT32}")]
    return []


def scale_spec_problems(obj: Obj, scale: dict[str, str] | None) -> list[FieldError]:
    """ValidateScaleSpec."""
    return [] if scale is None else _replicas(obj, scale.get("specReplicasPath", ""))


def scale_status_problems(obj: Obj, scale: dict[str, str] | None) -> list[FieldError]:
    """ValidateScaleStatus: the status replicas, and a selector that is a string where there is one."""
    if scale is None:
        return []
    found = _replicas(obj, scale.get("statusReplicasPath", ""))
    selector_path = scale.get("labelSelectorPath")
    if selector_path is not None:
        _, error = _nested(obj, selector_path, str)
        if error is not None:
            found.append(field.invalid(selector_path, "", error))
    return found


def _set_duplicates(items: list[Any]) -> list[int]:
    """validateListSet: the index of each value's second occurrence (JSON equality for compound values)."""
    seen: dict[str, int] = {}
    repeated: list[int] = []
    for i, item in enumerate(items):
        key = json_text(item) if isinstance(item, (dict, list)) else repr((field.go_type_name(item), item))
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 2:
            repeated.append(i)
    return repeated


def _list_map(items: list[Any], keys: list[str], path: str) -> list[FieldError]:
    for i, item in enumerate(items):
        if item is not None and not isinstance(item, dict):
            return [field.invalid(f"{path}[{i}]", item, "must be an object for an array of list-type map")]
    if len(items) <= 1:
        return []
    item_keys = [{k: item[k] for k in keys if k in item} if isinstance(item, dict) else {} for item in items]
    return [field.duplicate(f"{path}[{i}]", item_keys[i]) for i in _set_duplicates(item_keys)]


def list_problems(value: Any, schema: Schema | None, path: str) -> list[FieldError]:
    """ValidateListSetsAndMaps: no item of a set twice, no two items of a map under the same keys."""
    if not isinstance(schema, dict):
        return []
    found: list[FieldError] = []
    if isinstance(value, list):
        list_type = schema.get("x-kubernetes-list-type")
        if list_type == "set" and len(value) > 1:
            found += [field.duplicate(f"{path}[{i}]", value[i]) for i in _set_duplicates(value)]
        elif list_type == "map":
            found += _list_map(value, list(schema.get("x-kubernetes-list-map-keys") or ()), path)
        for i, item in enumerate(value):
            found += list_problems(item, schema.get("items"), f"{path}[{i}]")
    elif isinstance(value, dict):
        extra, properties = schema.get("additionalProperties"), schema.get("properties")
        for key, item in value.items():
            if isinstance(extra, dict):
                found += list_problems(item, extra, f"{path}[{key}]" if path else f"[{key}]")
            if isinstance(properties, dict) and key in properties:
                found += list_problems(item, properties[key], f"{path}.{key}" if path else key)
    return found


def _group_version_error(api_version: str) -> str | None:
    """schema.ParseGroupVersion's error: more than one slash."""
    if api_version in ("", "/") or api_version.count("/") <= 1:
        return None
    return f"unexpected GroupVersion string: {api_version}"


def _embedded_resource(value: Obj, path: str) -> list[FieldError]:
    """validateEmbeddedResource: apiVersion and kind required and well-formed, metadata as an object's."""
    found: list[FieldError] = []
    for key in ("apiVersion", "kind"):
        if key not in value:
            found.append(field.required(f"{path}.{key}" if path else key))
    for key, item in value.items():
        at = f"{path}.{key}" if path else key
        if key in ("apiVersion", "kind") and not isinstance(item, str):
            found.append(field.invalid(at, item, "must be a string"))
        elif key in ("apiVersion", "kind") and not item:
            found.append(field.invalid(at, item, "must not be empty"))
        elif key == "apiVersion" and (error := _group_version_error(item)) is not None:
            found.append(field.invalid(at, item, error))
        elif key == "kind" and (errors := dns1035_label(item.lower())):
            found.append(field.invalid(at, item, "may have mixed case, but should otherwise match: " + ",".join(errors)))
        elif key == "metadata" and isinstance(item, dict):
            # an embedded object needs no name: upstream validates it as "fakename"
            named = {**item, "name": item.get("name") or "fakename"}
            found += [FieldError(p.kind, f"{path}.{p.path}" if path else p.path, p.message)
                      for p in meta.validate(named, bool(item.get("namespace")), meta.path_segment, kube=False)]
    return found


def embedded_problems(value: Any, schema: Schema | None, path: str = "") -> list[FieldError]:
    """schemaobjectmeta.Validate below a custom resource's root: each x-kubernetes-embedded-resource
    value is a resource of its own."""
    if not isinstance(schema, dict):
        return []
    found: list[FieldError] = []
    if isinstance(value, dict):
        if schema.get("x-kubernetes-embedded-resource"):
            found += _embedded_resource(value, path)
        properties, extra = schema.get("properties") or {}, schema.get("additionalProperties")
        for key, item in value.items():
            if key in properties:
                found += embedded_problems(item, properties[key], f"{path}.{key}" if path else key)
            elif isinstance(extra, dict):
                found += embedded_problems(item, extra, f"{path}[{key}]")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += embedded_problems(item, schema.get("items"), f"{path}[{i}]")
    return found


def _status_problems(obj: Obj, schema: Schema | None) -> list[FieldError]:
    """ValidateStatusUpdate's schema check: the status against its own schema, so messages name fields
    from there ("replicas in body") while their paths start at the object ("status.replicas")."""
    status_schema = ((schema or {}).get("properties") or {}).get("status")
    if "status" not in obj or not isinstance(status_schema, dict):
        return []
    return crschema.check_value(obj["status"], status_schema, "status")


def problems(
    obj: Obj,
    old: Obj | None,
    schema: Schema | None,
    scale: dict[str, str] | None,
    rules: crvalidations.RuleValidator | None,
    status: bool = False,
    ratcheted: list[FieldError] | None = None,
) -> list[FieldError]:
    """Validate, ValidateUpdate or (`status`) the status strategy's ValidateUpdate, less the metadata."""
    unchanged = [] if old is None else ratcheting.unchanged_paths(obj, old, schema)
    if status:
        found = ratcheting.without_ratcheted(_status_problems(obj, schema), unchanged) + scale_status_problems(obj, scale)
    else:
        found = (
            ratcheting.without_ratcheted(crschema.validate(obj, schema), unchanged)
            + scale_spec_problems(obj, scale)
            + scale_status_problems(obj, scale)
            + embedded_problems(obj, schema)
        )
    listed = list_problems(obj, schema, "")
    # An update is held to list uniqueness only if the old object was (upstream's ratcheting).
    if listed and (old is None or not list_problems(old, schema, "")):
        found += listed
    if rules is not None:
        if any(problem.kind in _BLOCKING for problem in found):
            found.append(_NOT_CHECKED)
        else:
            found += rules.validate(obj, old, "", ratcheted)
    return found
