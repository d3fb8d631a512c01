"""scheduling.k8s.io/v1 validation: ValidatePriorityClass and ValidatePriorityClassUpdate of
pkg/apis/scheduling/validation/validation.go."""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field

Obj = dict[str, Any]

SYSTEM_PREFIX = "system-"
_HIGHEST_USER_DEFINABLE = 1_000_000_000
_SYSTEM_CRITICAL = 2 * _HIGHEST_USER_DEFINABLE
# pkg/apis/scheduling/v1/helpers.go's systemPriorityClasses: name -> (value, globalDefault).
SYSTEM_CLASSES = {"system-node-critical": (_SYSTEM_CRITICAL + 1000, False),
                   "system-cluster-critical": (_SYSTEM_CRITICAL, False)}
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


def _system_class_error(name: str, value: Any, global_default: bool) -> str | None:
    """IsKnownSystemPriorityClass's complaint, None for a known system class as it must be."""
    if name not in SYSTEM_CLASSES:
        return f"{name} is not a known system priority class"
    expected_value, expected_default = SYSTEM_CLASSES[name]
    if value != expected_value:
        return f"value of {name} PriorityClass must be {expected_value}"
    if global_default != expected_default:
        return f"globalDefault of {name} PriorityClass must be {str(expected_default).lower()}"
    return None


def preemption_policy(policy: Any, path: str) -> list[FieldError]:
    """ValidatePreemptionPolicy of core's validation."""
    if policy in _PREEMPTION_POLICIES:
        return []
    if not policy:
        return [field.required(path)]
    return [field.not_supported_shown(path, field.go_json(policy), _PREEMPTION_POLICIES)]


def priority_class(obj: Obj) -> list[FieldError]:
    found: list[FieldError] = []
    name = str((obj.get("metadata") or {}).get("name") or "")
    value = obj.get("value") or 0
    if name.startswith(SYSTEM_PREFIX):
        error = _system_class_error(name, value, obj.get("globalDefault") is True)
        if error is not None:
            found.append(field.forbidden("metadata.name", f"priority class names with '{SYSTEM_PREFIX}' prefix are "
                                                          f"reserved for system use only. error: {error}"))
    elif isinstance(value, int) and value > _HIGHEST_USER_DEFINABLE:
        found.append(field.forbidden("value", "maximum allowed value of a user defined priority is "
                                              f"{_HIGHEST_USER_DEFINABLE}"))
    if obj.get("preemptionPolicy") is not None:
        found += preemption_policy(obj["preemptionPolicy"], "preemptionPolicy")
    return found


def priority_class_update(new: Obj, old: Obj) -> list[FieldError]:
    found: list[FieldError] = []
    if (new.get("value") or 0) != (old.get("value") or 0):
        found.append(field.forbidden("value", "may not be changed in an update."))
    policy = new.get("preemptionPolicy")
    if policy != old.get("preemptionPolicy"):
        found.append(field.invalid_shown("preemptionPolicy", field.go_json(policy), "field is immutable"))
    return found
