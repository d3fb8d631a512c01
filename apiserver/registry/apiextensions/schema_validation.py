"""A CRD's OpenAPI schema and selectable fields as apiextensions validation.go judges them:
validateCustomResourceDefinitionValidation's order of steps (the root's rules, the structural schema's,
its defaults', then the OpenAPI schema walk of openapi_schema.py with its rules compiled, and the rules'
total cost), and ValidateCustomResourceSelectableFields with cel.ValidFieldPath (no array notation).
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.crrulechecks import RuleCosts
from apiserver.registry import field
from apiserver.registry.apiextensions import default_validation, openapi_schema, structural
from apiserver.registry.apiextensions.openapi_schema import SchemaOptions

Obj = dict[str, Any]
MAX_SELECTABLE_FIELDS = 8
_SELECTABLE_TYPES = ("string", "boolean", "integer")


def non_structural(openapi: Obj) -> bool:
    """schemaIsNonStructural: NewStructural or ValidateStructural finds fault with the schema."""
    init, problems = structural.structural_problems(openapi, "")
    return bool(init or problems)


def unpruned_defaults(openapi: Obj) -> bool:
    """schemaHasUnprunedDefaults: a default that pruning would change (default_validation.py)."""
    return default_validation.has_unpruned_defaults(openapi)


def schema(openapi: Any, path: str, status_enabled: bool, options: SchemaOptions) -> list[FieldError]:
    """validateCustomResourceDefinitionValidation for the schema at `path` (a version's `schema` or the
    shared `spec.validation`); none, nothing to judge."""
    if not isinstance(openapi, dict):
        return []
    at = f"{path}.openAPIV3Schema"
    problems = openapi_schema.root_problems(openapi, at, status_enabled)
    init_problems: list[FieldError] = []
    costs: RuleCosts | None = None
    if options.require_structural_schema:
        # Steps in upstream's order: NewStructural's errors are held back (the walk below says the same
        # more precisely); ValidateStructural's; then ValidateDefaults'. Rules compile only when all pass.
        init_problems, structural_errors = structural.structural_problems(openapi, at)
        problems += structural_errors if not init_problems else []
        if not init_problems and not structural_errors:
            defaults = default_validation.default_problems(openapi, at, options.require_pruned_defaults)
            problems += defaults
            if not defaults:
                costs = RuleCosts(options.suppress_per_expression_cost)
    problems += openapi_schema.openapi_schema_problems(openapi, at, options, costs)
    if not problems:
        problems += init_problems
    if costs is not None:
        problems += costs.total_problems(at)
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
