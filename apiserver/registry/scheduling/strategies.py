"""scheduling.k8s.io/v1: PriorityClass's defaulting (pkg/apis/scheduling/v1/defaults.go), its update
rule (pkg/apis/scheduling/validation/validation.go) and strategy (pkg/registry/scheduling/priorityclass)."""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]


def _default_priority_class(obj: Obj) -> None:
    obj.setdefault("preemptionPolicy", "PreemptLowerPriority")


def _validate_priority_class_update(new: Obj, old: Obj) -> list[FieldError]:
    if new.get("value") != old.get("value"):
        return [field.forbidden("value", "may not be changed in an update.")]
    return []


STRATEGIES: dict[str, Strategy] = {
    "PriorityClass": KindStrategy(default=_default_priority_class,
                                  validate_update=_validate_priority_class_update),
}
