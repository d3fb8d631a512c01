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
from apiserver.registry import field, options_validation
from apiserver.wire import bodies

_OPTIONS = {"POST": "CreateOptions", "PUT": "UpdateOptions", "PATCH": "PatchOptions"}
_PATCH_TYPES = (bodies.JSON_PATCH, bodies.MERGE_PATCH, bodies.STRATEGIC_PATCH, bodies.APPLY_PATCH)
_FIELD_VALIDATIONS = ("", "Ignore", "Strict", "Warn")  # sorted, as sets.List gives them


def check(method: str, query: Mapping[str, str], raw_query: bytes, content_type: str | None) -> None:
    """Raises the Invalid upstream answers for the write's options; a method that writes nothing passes."""
    kind = _OPTIONS.get(method)
    if kind is None:
        return
    patch_type = bodies.media_type(content_type) if method == "PATCH" else None
    if patch_type is not None and patch_type not in _PATCH_TYPES:
        raise errors.ApiError(415, "UnsupportedMediaType", "415: Unsupported Media Type", {})
    problems: list[errors.FieldError] = []
    manager = query.get("fieldManager", "")
    if patch_type is not None:
        if patch_type != bodies.APPLY_PATCH:
            if "force" in query:
                problems.append(field.forbidden("force", "may not be specified for non-apply patch"))
        elif not manager:
            # kubectl defaults it; a controller must name itself.
            problems.append(field.required("fieldManager", "is required for apply patch"))
    problems += options_validation.field_manager(manager)
    problems += options_validation.dry_run(dry_run_values(query, raw_query))
    validation = query.get("fieldValidation", "")
    if validation not in _FIELD_VALIDATIONS:
        problems.append(field.not_supported("fieldValidation", validation, _FIELD_VALIDATIONS))
    if problems:
        raise errors.invalid(kind, "meta.k8s.io", "", problems)


def dry_run_values(query: Mapping[str, str], raw_query: bytes) -> list[str]:
    """Every dryRun the query names: a list upstream, where the parsed query keeps the first."""
    return QueryParams(raw_query).getlist("dryRun") if "dryRun" in query else []
