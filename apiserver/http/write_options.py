"""The options of a create, update or patch, refused as upstream's handlers refuse them before reading
the body: metav1 validation's ValidateCreateOptions, ValidateUpdateOptions and ValidatePatchOptions
(fieldManager, dryRun, fieldValidation; and for a patch, force against its patch type), after a patch
of no patch type at all was refused by the route (go-restful's 415).

A write whose dryRun names anything but All is refused here, never carried out as a real write.
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.datastructures import QueryParams

from apiserver import errors
from apiserver.registry import field
from apiserver.wire import bodies

_OPTIONS = {"POST": "CreateOptions", "PUT": "UpdateOptions", "PATCH": "PatchOptions"}
_PATCH_TYPES = (bodies.JSON_PATCH, bodies.MERGE_PATCH, bodies.STRATEGIC_PATCH, bodies.APPLY_PATCH)
_MAX_MANAGER_BYTES = 128
_FIELD_VALIDATIONS = ("", "Ignore", "Strict", "Warn")  # sorted, as sets.List gives them


def check(method: str, query: Mapping[str, str], raw_query: bytes, content_type: str | None) -> None:
    """Raises the Invalid upstream answers for the write's options; a method that writes nothing passes."""
    kind = _OPTIONS.get(method)
    if kind is None:
        return
    if method == "PATCH" and bodies.media_type(content_type) not in _PATCH_TYPES:
        raise errors.ApiError(415, "UnsupportedMediaType", "415: Unsupported Media Type", {})
    problems: list[errors.FieldError] = []
    manager = query.get("fieldManager", "")
    if method == "PATCH":
        if bodies.media_type(content_type) != bodies.APPLY_PATCH:
            if "force" in query:
                problems.append(field.forbidden("force", "may not be specified for non-apply patch"))
        elif not manager:
            # kubectl defaults it; a controller must name itself.
            problems.append(field.required("fieldManager", "is required for apply patch"))
    problems += field_manager_problems(manager)
    problems += dry_run_problems(dry_run_values(query, raw_query))
    validation = query.get("fieldValidation", "")
    if validation not in _FIELD_VALIDATIONS:
        problems.append(field.not_supported("fieldValidation", validation, _FIELD_VALIDATIONS))
    if problems:
        raise errors.invalid(kind, "meta.k8s.io", "", problems)


def field_manager_problems(manager: str) -> list[errors.FieldError]:
    """ValidateFieldManager: at most 128 bytes, and only printable characters, each other one named
    with its byte position."""
    problems = [field.too_long("fieldManager", _MAX_MANAGER_BYTES)] \
        if len(manager.encode()) > _MAX_MANAGER_BYTES else []
    position = 0
    for char in manager:
        if not char.isprintable():
            problems.append(field.invalid("fieldManager", manager,
                                          f"invalid character U+{ord(char):04X} (at position {position})"))
        position += len(char.encode())
    return problems


def dry_run_values(query: Mapping[str, str], raw_query: bytes) -> list[str]:
    """Every dryRun the query names: a list upstream, where the parsed query keeps the first."""
    return QueryParams(raw_query).getlist("dryRun") if "dryRun" in query else []


def dry_run_problems(values: list[str]) -> list[errors.FieldError]:
    """ValidateDryRun: All is the only value there is."""
    if any(value != "All" for value in values):
        return [field.not_supported_shown("dryRun", field.go_json(values), ("All",))]
    return []
