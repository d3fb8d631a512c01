"""autoscaling validation: pkg/apis/autoscaling/validation/validation.go, for the rules ported so far."""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field

Obj = dict[str, Any]


def horizontal_pod_autoscaler(obj: Obj) -> list[FieldError]:
    spec = obj.get("spec") or {}
    found: list[FieldError] = []
    target = spec.get("scaleTargetRef") or {}
    for name in ("kind", "name"):
        if not target.get(name):
            found.append(field.required(f"spec.scaleTargetRef.{name}"))
    low, high = spec.get("minReplicas", 1), spec.get("maxReplicas")
    if isinstance(low, int) and low < 1:
        found.append(field.invalid("spec.minReplicas", low, "must be greater than or equal to 1"))
    if isinstance(high, int) and high < 1:
        found.append(field.invalid("spec.maxReplicas", high, "must be greater than 0"))
    if isinstance(high, int) and isinstance(low, int) and high < low:
        found.append(field.invalid("spec.maxReplicas", high, "must be greater than or equal to `minReplicas`"))
    return found
