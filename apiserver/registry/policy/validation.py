"""policy/v1 validation: pkg/apis/policy/validation/validation.go, for the rules ported so far."""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field

Obj = dict[str, Any]


def pod_disruption_budget(obj: Obj) -> list[FieldError]:
    spec = obj.get("spec") or {}
    found: list[FieldError] = []
    for name in ("minAvailable", "maxUnavailable"):
        value = spec.get(name)
        if isinstance(value, int) and value < 0:
            found.append(field.invalid(f"spec.{name}", value, "must be greater than or equal to 0"))
        elif isinstance(value, str) and value.endswith("%") and value[:-1].isdigit() and int(value[:-1]) > 100:
            found.append(field.invalid(f"spec.{name}", value, "must not be greater than 100%"))
    return found
