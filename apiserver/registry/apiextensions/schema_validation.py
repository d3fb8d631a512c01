"""A CRD's OpenAPI schema and selectable fields as apiextensions validation.go judges them, for the
rules ported so far: validateCustomResourceDefinitionValidation's structural basics (an object at the
root, a type on every specified field), the x-kubernetes-validations rules (kinds/crrulechecks.py),
and ValidateCustomResourceSelectableFields with cel.ValidFieldPath (no array notation).
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import crrulechecks
from apiserver.registry import field
from apiserver.registry.apiextensions import default_validation

Obj = dict[str, Any]
MAX_SELECTABLE_FIELDS = 8
_SELECTABLE_TYPES = ("string", "boolean", "integer")


def _typed_fields(schema: Obj, path: str, problems: list[FieldError]) -> None:
    children = [
        (f"{path}.properties[{name}]", sub, "object fields")
        for name, sub in (schema.get("properties") or {}).items()
    ]
    if isinstance(schema.get("items"), dict):
        children.append((f"{path}.items", schema["items"], "array items"))
    if isinstance(schema.get("additionalProperties"), dict):
        children.append((f"{path}.additionalProperties", schema["additionalProperties"], "object fields"))
    for child_path, sub, where in children:
        if not isinstance(sub, dict):
            continue
        untyped_allowed = sub.get("x-kubernetes-int-or-string") or sub.get(
            "x-kubernetes-preserve-unknown-fields"
        )
        if not sub.get("type") and not untyped_allowed:
            problems.append(field.required(f"{child_path}.type", f"must not be empty for specified {where}"))
        _typed_fields(sub, child_path, problems)


def schema(openapi: Any, path: str, unchanged: bool = False) -> list[FieldError]:
    """The schema at `path` (a version's `schema` or the shared `spec.validation`); none, nothing to judge.
    An `unchanged` schema (an update left its version's as it was) is not held to the per-expression cost
    limit (upstream's suppressExpressionCostForUnchangedSchema)."""
    if not isinstance(openapi, dict):
        return []
    at = f"{path}.openAPIV3Schema"
    problems: list[FieldError] = []
    if openapi.get("type") != "object":
        if openapi.get("type"):
            problems.append(field.invalid(f"{at}.type", openapi["type"], "must be object at the root"))
        else:
            problems.append(field.required(f"{at}.type", "must not be empty at the root"))
    _typed_fields(openapi, at, problems)
    if not problems:
        problems += default_validation.default_problems(openapi, at, require_pruned_defaults=True)
    if not problems:  # upstream compiles the rules only for a schema whose defaults are valid
        problems += crrulechecks.schema_rule_problems(openapi, at, unchanged)
    return problems


class _InvalidPath(Exception):
    """What cel.ValidFieldPath returns as its error."""


def _tokens(json_path: str) -> list[str]:
    """The ValidFieldPath scanner: delimiters `.`, `[`, `]` alone, a quoted string whole, names between."""
    tokens: list[str] = []
    i = 0
    while i < len(json_path):
        if json_path[i] == "'":
            end = i + 1
            while end < len(json_path) and not (json_path[end] == "'" and json_path[end - 1] != "\\"):
                end += 1
            tokens.append(json_path[i : end + 1])
            i = end + 1
        elif json_path[i] in ".[]":
            tokens.append(json_path[i])
            i += 1
        else:
            end = i
            while end < len(json_path) and json_path[end] not in ".[]":
                end += 1
            tokens.append(json_path[i:end])
            i = end
    return tokens


def _resolve(json_path: str, root: Obj) -> tuple[str, Obj | None]:
    """cel.ValidFieldPath without array notation: the path walked and the schema it reaches."""
    node: Obj | None = root
    walked: list[str] = []
    tokens = iter(_tokens(json_path))
    for token in tokens:
        if token == "[":
            raise _InvalidPath("array notation is not allowed")
        if token != ".":
            raise _InvalidPath(f"expected [ or . but got: {token}")
        name = next(tokens, None)
        if name is None:
            raise _InvalidPath("unexpected end of JSON path")
        node = node or {}
        if isinstance(node.get("properties"), dict):
            if name not in node["properties"]:
                raise _InvalidPath("does not refer to a valid field")
            node = node["properties"][name]
            walked.append(name)
        elif isinstance(node.get("additionalProperties"), dict):
            node = node["additionalProperties"]
            walked.append(f"[{name}]")
        else:
            raise _InvalidPath("does not refer to a valid field")
    return ".".join(walked), node


def selectable_fields(fields: Any, openapi: Any, path: str, without_schema: str,
                      allow_too_many: bool = False) -> list[FieldError]:
    """ValidateCustomResourceSelectableFields; `without_schema` is what upstream says when there is none,
    `allow_too_many` lets more than MAX_SELECTABLE_FIELDS through (an update that kept them)."""
    if not isinstance(openapi, dict):
        return [field.invalid(path, "", without_schema)]
    found: list[FieldError] = []
    seen: set[str] = set()
    for i, selectable in enumerate(fields if isinstance(fields, list) else []):
        json_path = str((selectable or {}).get("jsonPath") or "") if isinstance(selectable, dict) else ""
        at = f"{path}[{i}].jsonPath"
        if not json_path:
            found.append(field.required(at))
            continue
        try:
            walked, node = _resolve(json_path, openapi)
        except _InvalidPath as error:
            found.append(field.invalid(at, json_path, f"is an invalid path: {error}"))
            continue
        if walked.split(".")[0] == "metadata":
            found.append(field.invalid(at, json_path, "must not point to fields in metadata"))
        if not isinstance(node, dict) or node.get("type") not in _SELECTABLE_TYPES:
            found.append(
                field.invalid(
                    at,
                    json_path,
                    "must point to a field of type string, boolean or integer. Enum "
                    "string fields and strings with formats are allowed.",
                )
            )
        if walked in seen:
            found.append(field.duplicate(at, json_path))
        seen.add(walked)
    if len(seen) > MAX_SELECTABLE_FIELDS and not allow_too_many:
        found.append(field.too_many(path, len(seen), MAX_SELECTABLE_FIELDS))
    return found
