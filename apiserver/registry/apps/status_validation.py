"""The apps/v1 status strategies' validation: ValidateDeploymentStatusUpdate, ValidateReplicaSetStatusUpdate,
ValidateStatefulSetStatusUpdate and ValidateDaemonSetStatusUpdate of pkg/apis/apps/validation/validation.go,
the status rules alone (the metadata is the write path's).
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field

Obj = dict[str, Any]

_ABOVE_REPLICAS = "cannot be greater than status.replicas"


def _status(obj: Obj) -> Obj:
    status = obj.get("status")
    return status if isinstance(status, dict) else {}


def _count(status: Obj, key: str) -> int:
    value = status.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _nonnegative(status: Obj, keys: tuple[str, ...]) -> list[FieldError]:
    found: list[FieldError] = []
    for key in keys:
        found += field.nonnegative(f"status.{key}", status.get(key))
    return found


def _not_above(status: Obj, keys: tuple[str, ...], limit: str, message: str) -> list[FieldError]:
    return [field.invalid(f"status.{key}", _count(status, key), message)
            for key in keys if _count(status, key) > _count(status, limit)]


def _collision_count_decremented(new: Obj, old: Obj) -> list[FieldError]:
    """IsDecremented: a collision count may not go down, nor away."""
    count, old_count = _status(new).get("collisionCount"), _status(old).get("collisionCount")
    if old_count is None or (count is not None and count >= old_count):
        return []
    return [field.invalid("status.collisionCount", count or 0, "cannot be decremented")]


def deployment_status_update(subresource: str, new: Obj, old: Obj) -> list[FieldError]:
    status = _status(new)
    found = _nonnegative(status, ("observedGeneration", "replicas", "updatedReplicas", "readyReplicas",
                                  "availableReplicas", "unavailableReplicas", "terminatingReplicas",
                                  "collisionCount"))
    found += _not_above(status, ("updatedReplicas", "readyReplicas", "availableReplicas"), "replicas", _ABOVE_REPLICAS)
    found += _not_above(status, ("availableReplicas",), "readyReplicas", "cannot be greater than readyReplicas")
    return found + _collision_count_decremented(new, old)


def replica_set_status_update(subresource: str, new: Obj, old: Obj) -> list[FieldError]:
    status = _status(new)
    found = _nonnegative(status, ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas",
                                  "observedGeneration", "terminatingReplicas"))
    found += _not_above(status, ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"), "replicas",
                        _ABOVE_REPLICAS)
    return found + _not_above(status, ("availableReplicas",), "readyReplicas", "cannot be greater than readyReplicas")


def stateful_set_status_update(subresource: str, new: Obj, old: Obj) -> list[FieldError]:
    status = _status(new)
    found = _nonnegative(status, ("replicas", "readyReplicas", "currentReplicas", "updatedReplicas",
                                  "availableReplicas", "observedGeneration", "collisionCount"))
    found += _not_above(status, ("readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"),
                        "replicas", _ABOVE_REPLICAS)
    found += _not_above(status, ("availableReplicas",), "readyReplicas",
                        "cannot be greater than status.readyReplicas")
    return found + _collision_count_decremented(new, old)


def daemon_set_status_update(subresource: str, new: Obj, old: Obj) -> list[FieldError]:
    found = _nonnegative(_status(new), ("currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled",
                                        "numberReady", "observedGeneration", "updatedNumberScheduled",
                                        "numberAvailable", "numberUnavailable", "collisionCount"))
    return found + _collision_count_decremented(new, old)
