"""apiextensions.k8s.io/v1 validation of the CustomResourceDefinition object itself
(staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go), a subset.
"""

from __future__ import annotations

import json
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import crrulechecks, crschema
from apiserver.registry.apiextensions.conversion import validate_conversion
from columns.crd import COLUMN_TYPES
from columns.jsonpath import InvalidPath, compile_path


def validate_crd(crd: dict[str, Any]) -> list[FieldError]:
    """The rules a CRD must meet to be served (a subset of upstream's, with its paths and wording)."""
    spec = crd.get("spec")
    if not isinstance(spec, dict):
        return [FieldError("FieldValueRequired", "spec", "Required value")]
    problems: list[FieldError] = []
    group = spec.get("group")
    names_value = spec.get("names")
    names: dict[str, Any] = names_value if isinstance(names_value, dict) else {}
    if not group:
        problems.append(FieldError("FieldValueRequired", "spec.group", "Required value"))
    for field_name in ("plural", "kind"):
        if not names.get(field_name):
            problems.append(FieldError("FieldValueRequired", f"spec.names.{field_name}", "Required value"))
    name = crd.get("metadata", {}).get("name")
    if group and names.get("plural") and name != f"{names['plural']}.{group}":
        problems.append(crschema_invalid("metadata.name", name, "must be spec.names.plural+\".\"+spec.group"))
    scope = spec.get("scope")
    if scope not in ("Cluster", "Namespaced"):
        problems.append(FieldError("FieldValueNotSupported", "spec.scope",
                                   f'Unsupported value: {crschema.bad_value(scope)}: supported values: "Cluster", '
                                   '"Namespaced"'))
    versions = spec.get("versions")
    if not isinstance(versions, list) or not versions:
        problems.append(FieldError("FieldValueRequired", "spec.versions", "Required value"))
        return problems
    if sum(1 for v in versions if isinstance(v, dict) and v.get("storage")) != 1:
        problems.append(FieldError("FieldValueInvalid", "spec.versions",
                                   "Invalid value: ...: must have exactly one version marked as storage version"))
    # Upstream validates its internal form, where versions that share one schema hold it once, at
    # spec.validation: that is where their rules' errors are reported, once.
    shared = len({json.dumps((v.get("schema") or {}).get("openAPIV3Schema"), sort_keys=True)
                  for v in versions if isinstance(v, dict)}) == 1
    for index, version in enumerate(versions):
        if not isinstance(version, dict) or not version.get("name"):
            problems.append(FieldError("FieldValueRequired", f"spec.versions[{index}].name", "Required value"))
            continue
        rules_path = "spec.validation.openAPIV3Schema" if shared else f"spec.versions[{index}].schema.openAPIV3Schema"
        problems.extend(_validate_schema(version, f"spec.versions[{index}].schema.openAPIV3Schema",
                                         rules_path if index == 0 or not shared else None))
        problems.extend(_validate_columns(version, f"spec.versions[{index}]"))
    return problems + validate_conversion(spec.get("conversion"))


def _validate_schema(version: dict[str, Any], path: str, rules_path: str | None) -> list[FieldError]:
    """A structural schema: present, an object at the root, and a type on every field it specifies."""
    schema = (version.get("schema") or {}).get("openAPIV3Schema")
    if not isinstance(schema, dict):
        return [FieldError("FieldValueRequired", path, "Required value: schemas are required")]
    problems: list[FieldError] = []
    if schema.get("type") != "object":
        if schema.get("type"):
            problems.append(crschema_invalid(f"{path}.type", schema["type"], "must be object at the root"))
        else:
            problems.append(FieldError("FieldValueRequired", f"{path}.type",
                                       "Required value: must not be empty at the root"))
    _typed_fields(schema, path, problems)
    if not problems and rules_path is not None:
        problems += crrulechecks.schema_rule_problems(schema, rules_path)
    return problems


def _typed_fields(schema: dict[str, Any], path: str, problems: list[FieldError]) -> None:
    children = [(f"{path}.properties[{name}]", sub, "object fields")
                for name, sub in (schema.get("properties") or {}).items()]
    if isinstance(schema.get("items"), dict):
        children.append((f"{path}.items", schema["items"], "array items"))
    if isinstance(schema.get("additionalProperties"), dict):
        children.append((f"{path}.additionalProperties", schema["additionalProperties"], "object fields"))
    for child_path, sub, where in children:
        if not isinstance(sub, dict):
            continue
        untyped_allowed = sub.get("x-kubernetes-int-or-string") or sub.get("x-kubernetes-preserve-unknown-fields")
        if not sub.get("type") and not untyped_allowed:
            problems.append(FieldError("FieldValueRequired", f"{child_path}.type",
                                       f"Required value: must not be empty for specified {where}"))
        _typed_fields(sub, child_path, problems)


def immutable_changes(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """What an update may not change: where the CRD's objects live depends on its group and scope."""
    problems = []
    for field_name in ("group", "scope"):
        value = (new.get("spec") or {}).get(field_name)
        if value != (old.get("spec") or {}).get(field_name):
            problems.append(crschema_invalid(f"spec.{field_name}", value, "field is immutable"))
    return problems


def crschema_invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {crschema.bad_value(value)}: {detail}")


def _validate_columns(version: Any, path: str) -> list[FieldError]:
    problems: list[FieldError] = []
    columns = version.get("additionalPrinterColumns") if isinstance(version, dict) else None
    for index, column in enumerate(columns or ()):
        at = f"{path}.additionalPrinterColumns[{index}]"
        kind = column.get("type")
        if kind not in COLUMN_TYPES:
            supported = ", ".join(f'"{t}"' for t in sorted(COLUMN_TYPES))
            problems.append(FieldError("FieldValueNotSupported", f"{at}.type",
                                       f"Unsupported value: {crschema.bad_value(kind)}: supported values: "
                                       f"{supported}"))
        if not column.get("jsonPath"):
            problems.append(FieldError("FieldValueRequired", f"{at}.jsonPath", "Required value"))
            continue
        try:
            compile_path(str(column["jsonPath"]))
        except InvalidPath:
            problems.append(crschema_invalid(f"{at}.jsonPath", column.get("jsonPath"), "must be a simple json path"))
    return problems
