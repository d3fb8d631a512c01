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


def _system_class(name: str) -> str | None:
    """The PriorityClass storage's Delete: the system classes stay, even when asked for by a dry run."""
    return "this is a system priority class and cannot be deleted" if name in validation.SYSTEM_CLASSES else None


STRATEGIES: dict[str, Strategy] = {
    "PriorityClass": KindStrategy(default=_default_priority_class, validate=validation.priority_class,
                                  validate_update=validation.priority_class_update, refuses_delete=_system_class),
}
