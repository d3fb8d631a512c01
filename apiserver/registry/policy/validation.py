"""policy/v1 validation: pkg/apis/policy/validation/validation.go (ValidatePodDisruptionBudgetSpec).

Upstream's PodDisruptionBudget validation judges only the spec; its metadata gets the generic store's
checks alone (a name that is a path segment), which the strategy's name rule stands for.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.apps.validation import not_more_than_100_percent, positive_int_or_percent
from apiserver.registry.meta import label_selector

Obj = dict[str, Any]

_EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")


def _spec_json(spec: Obj) -> str:
    """The internal PodDisruptionBudgetSpec as a bad value shows it: Go's field names, its selector's tags."""
    selector = field.go_selector(spec["selector"]) if isinstance(spec.get("selector"), dict) else "null"
    parts = [("MinAvailable", field.go_json(spec.get("minAvailable"))), ("Selector", selector),
             ("MaxUnavailable", field.go_json(spec.get("maxUnavailable"))),
             ("UnhealthyPodEvictionPolicy", field.go_json(spec.get("unhealthyPodEvictionPolicy")))]
    return "{" + ",".join(f'"{name}":{value}' for name, value in parts) + "}"


def pod_disruption_budget(obj: Obj) -> list[FieldError]:
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    found: list[FieldError] = []
    least, most = spec.get("minAvailable"), spec.get("maxUnavailable")
    if least is not None and most is not None:
        found.append(field.invalid_shown("spec", _spec_json(spec), "minAvailable and maxUnavailable cannot be both set"))
    for key, value in (("minAvailable", least), ("maxUnavailable", most)):
        if value is not None:
            found += positive_int_or_percent(value, f"spec.{key}")
            found += not_more_than_100_percent(value, f"spec.{key}")
    found += label_selector(spec.get("selector"), "spec.selector")
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in _EVICTION_POLICIES:
        found.append(field.not_supported_shown("spec.unhealthyPodEvictionPolicy", field.go_json(policy),
                                               _EVICTION_POLICIES))
    return found
