"""scheduling.k8s.io/v1: PriorityClass's defaulting (pkg/apis/scheduling/v1/defaults.go) and strategy
(pkg/registry/scheduling/priorityclass/strategy.go); its rules are validation.py's."""

from __future__ import annotations

from typing import Any

from apiserver.registry.scheduling import validation
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]


def _default_priority_class(obj: Obj) -> None:
    if obj.get("preemptionPolicy") is None:
        obj["preemptionPolicy"] = "PreemptLowerPriority"


STRATEGIES: dict[str, Strategy] = {
    "PriorityClass": KindStrategy(default=_default_priority_class, validate=validation.priority_class,
                                  validate_update=validation.priority_class_update),
}
