"""ValidatingAdmissionPolicy's expressions checked when it is written (upstream:
`pkg/apis/admissionregistration/validation/validation.go`, validateValidatingAdmissionPolicySpec).

Only what decides whether the policy can run: every expression compiles and has the type its field
needs, with cel-go's messages; the shape rules (required fields, enums) stay with the defaults.
"""

from __future__ import annotations

import json
from typing import Any

from apiserver.admission.policy.compiled import compile_expression
from apiserver.errors import FieldError

Obj = dict[str, Any]
REASONS = ("Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized")


def _expression(path: str, source: Any, want: tuple[str, ...] | None) -> list[FieldError]:
    if not isinstance(source, str) or not source.strip():
        return [FieldError("FieldValueRequired", path, "Required value: expression is not specified")]
    compiled = compile_expression(source, want)
    if compiled.error is None:
        return []
    return [FieldError("FieldValueInvalid", path,
                       f"Invalid value: {json.dumps(source, ensure_ascii=False)}: {compiled.error}")]


def validating_admission_policy(obj: Obj, old: Obj | None) -> list[FieldError]:
    spec = obj.get("spec") or {}
    found: list[FieldError] = []
    for i, condition in enumerate(spec.get("matchConditions") or ()):
        found += _expression(f"spec.matchConditions[{i}].expression", condition.get("expression"), ("bool",))
    for i, variable in enumerate(spec.get("variables") or ()):
        found += _expression(f"spec.variables[{i}].expression", variable.get("expression"), None)
    if not spec.get("validations") and not spec.get("auditAnnotations"):
        detail = "Required value: validations or auditAnnotations must contain at least one item"
        found += [FieldError("FieldValueRequired", "spec.validations", detail),
                  FieldError("FieldValueRequired", "spec.auditAnnotations", detail)]
    for i, validation in enumerate(spec.get("validations") or ()):
        at = f"spec.validations[{i}]"
        found += _expression(f"{at}.expression", validation.get("expression"), ("bool",))
        if validation.get("messageExpression"):
            found += _expression(f"{at}.messageExpression", validation["messageExpression"], ("string",))
        reason = validation.get("reason")
        if reason is not None and reason not in REASONS:
            supported = ", ".join(f'"{r}"' for r in REASONS)
            found.append(FieldError("FieldValueNotSupported", f"{at}.reason",
                                    f"Unsupported value: {json.dumps(reason)}: supported values: {supported}"))
    for i, annotation in enumerate(spec.get("auditAnnotations") or ()):
        found += _expression(f"spec.auditAnnotations[{i}].valueExpression", annotation.get("valueExpression"),
                             ("string", "null_type"))
    return found


def mutating_admission_policy(obj: Obj, old: Obj | None) -> list[FieldError]:
    spec = obj.get("spec") or {}
    found: list[FieldError] = []
    for i, condition in enumerate(spec.get("matchConditions") or ()):
        found += _expression(f"spec.matchConditions[{i}].expression", condition.get("expression"), ("bool",))
    for i, variable in enumerate(spec.get("variables") or ()):
        found += _expression(f"spec.variables[{i}].expression", variable.get("expression"), None)
    for i, mutation in enumerate(spec.get("mutations") or ()):
        if mutation.get("patchType") == "JSONPatch":
            found += _expression(f"spec.mutations[{i}].jsonPatch.expression",
                                 (mutation.get("jsonPatch") or {}).get("expression"), None)
    return found
