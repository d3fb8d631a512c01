"""policy/v1 validation: pkg/apis/policy/validation/validation.go (ValidatePodDisruptionBudgetSpec).

Upstream's PodDisruptionBudget validation judges only the spec; its metadata gets the generic store's
checks alone (a name that is a path segment), which the strategy's name rule stands for.
"""

from __future__ import annotations

import re
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import qualified_name, regex_error
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


_REASON_FMT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
_REASON = re.compile(_REASON_FMT)
_REASON_MSG = ("a condition reason must start with alphabetic character, optionally followed by a string of "
               "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'")
_CONDITION_STATUSES = ("False", "True", "Unknown")


def _condition(condition: Obj, path: str) -> list[FieldError]:
    """metav1 validation's ValidateCondition."""
    kind = str(condition.get("type") or "")
    found = [field.invalid(f"{path}.type", kind, msg) for msg in qualified_name(kind)]
    status = condition.get("status") or ""
    if status not in _CONDITION_STATUSES:
        found.append(field.not_supported_shown(f"{path}.status", field.go_json(status), _CONDITION_STATUSES))
    generation = condition.get("observedGeneration")
    if isinstance(generation, int) and generation < 0:
        found.append(field.invalid(f"{path}.observedGeneration", generation, "must be greater than or equal to zero"))
    if not condition.get("lastTransitionTime"):
        found.append(field.required(f"{path}.lastTransitionTime"))
    reason = str(condition.get("reason") or "")
    if not reason:
        found.append(field.required(f"{path}.reason"))
    else:
        if not _REASON.fullmatch(reason):
            found.append(field.invalid(f"{path}.reason", reason, regex_error(
                _REASON_MSG, _REASON_FMT, "my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB")))
        if len(reason) > 1024:
            found.append(field.too_long(f"{path}.reason", 1024))
    if len(str(condition.get("message") or "")) > 32 * 1024:
        found.append(field.too_long(f"{path}.message", 32 * 1024))
    return found


def conditions(items: Any, path: str) -> list[FieldError]:
    """metav1 validation's ValidateConditions: each condition, each type once."""
    found: list[FieldError] = []
    seen: set[str] = set()
    for i, condition in enumerate(items or ()):
        condition = condition if isinstance(condition, dict) else {}
        kind = str(condition.get("type") or "")
        if kind in seen:
            found.append(field.duplicate(f"{path}[{i}].type", kind))
        seen.add(kind)
        found += _condition(condition, f"{path}[{i}]")
    return found


def pod_disruption_budget_status_update(subresource: str, new: Obj, old: Obj) -> list[FieldError]:
    """ValidatePodDisruptionBudgetStatusUpdate, for policy/v1."""
    status = new.get("status") if isinstance(new.get("status"), dict) else {}
    found = conditions(status.get("conditions"), "status.conditions")
    for key in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"):
        found += field.nonnegative(f"status.{key}", status.get(key))
    return found
