"""coordination.k8s.io/v1 validation: ValidateLease and ValidateLeaseSpec of
pkg/apis/coordination/validation/validation.go (the metadata is apimachinery's ValidateObjectMeta)."""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import qualified_name
from apiserver.registry import field

Obj = dict[str, Any]

_STRATEGIES = ("OldestEmulationVersion",)


def coordinated_lease_strategy(strategy: str, path: str) -> list[FieldError]:
    """ValidateCoordinatedLeaseStrategy (which reports under `<path>.strategy`, as upstream does)."""
    at = f"{path}.strategy"
    if "/" not in strategy:
        if strategy not in _STRATEGIES:
            return [field.not_supported_shown(at, field.go_json(strategy), _STRATEGIES)]
        return []
    return [field.invalid_shown(at, field.go_json(strategy), msg) for msg in qualified_name(strategy)]


def lease(obj: Obj) -> list[FieldError]:
    """ValidateLeaseSpec: on create and update alike."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    found: list[FieldError] = []
    duration, transitions = spec.get("leaseDurationSeconds"), spec.get("leaseTransitions")
    if isinstance(duration, int) and duration <= 0:
        found.append(field.invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"))
    if isinstance(transitions, int) and transitions < 0:
        found.append(field.invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"))
    strategy = spec.get("strategy")
    if strategy is not None:
        found += coordinated_lease_strategy(str(strategy), "spec.strategy")
    if spec.get("preferredHolder") and not strategy:
        found.append(field.forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"))
    return found
