"""The Deployment arithmetic, pure: surge and unavailability fenceposts, how far a rollout may scale
each ReplicaSet, the status it reports and its conditions, as upstream's deployment util does."""

from __future__ import annotations

import math
from typing import Any

from apiserver.kinds.objects import now_rfc3339

Obj = dict[str, Any]

REVISION = "deployment.kubernetes.io/revision"
REVISION_HISTORY = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
HASH_LABEL = "pod-template-hash"
# Annotations of a Deployment that are its own, never copied to its ReplicaSets.
NOT_COPIED = frozenset({"kubectl.kubernetes.io/last-applied-configuration", REVISION, REVISION_HISTORY,
                        DESIRED_REPLICAS, MAX_REPLICAS, "deprecated.deployment.rollback.to"})


def replicas(obj: Obj) -> int:
    value = (obj.get("spec") or {}).get("replicas")
    return 1 if value is None else int(value)


def status_count(obj: Obj, field_name: str) -> int:
    return int((obj.get("status") or {}).get(field_name) or 0)


def scaled_value(value: Any, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent."""
    if isinstance(value, int):
        return value
    text = str(value)
    if not text.endswith("%"):
        return int(text)
    share = int(text[:-1]) * total / 100
    return math.ceil(share) if round_up else math.floor(share)


def is_rolling(deployment: Obj) -> bool:
    return ((deployment["spec"].get("strategy") or {}).get("type") or "RollingUpdate") == "RollingUpdate"


def fenceposts(deployment: Obj) -> tuple[int, int]:
    """(maxSurge, maxUnavailable) in pods; both zero would stall, so unavailability becomes one."""
    rolling = (deployment["spec"].get("strategy") or {}).get("rollingUpdate") or {}
    wanted = replicas(deployment)
    surge = scaled_value(rolling.get("maxSurge", "25%"), wanted, True)
    unavailable = scaled_value(rolling.get("maxUnavailable", "25%"), wanted, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_unavailable(deployment: Obj) -> int:
    if not is_rolling(deployment) or replicas(deployment) == 0:
        return 0
    return min(fenceposts(deployment)[1], replicas(deployment))


def max_surge(deployment: Obj) -> int:
    return fenceposts(deployment)[0] if is_rolling(deployment) else 0


def new_rs_replicas(deployment: Obj, all_rs: list[Obj], new_rs: Obj) -> int:
    """NewRSNewReplicas: how far the new ReplicaSet may grow now."""
    if not is_rolling(deployment):
        return replicas(deployment)
    current = sum(replicas(rs) for rs in all_rs)
    ceiling = replicas(deployment) + max_surge(deployment)
    if current >= ceiling:
        return replicas(new_rs)
    return replicas(new_rs) + min(ceiling - current, replicas(deployment) - replicas(new_rs))


def revision(rs: Obj) -> int:
    try:
        return int((rs["metadata"].get("annotations") or {}).get(REVISION, "0"))
    except ValueError:
        return 0


def without_hash(template: Obj) -> Obj:
    """The template as compared by EqualIgnoreHash."""
    meta = dict(template.get("metadata") or {})
    labels = {k: v for k, v in (meta.get("labels") or {}).items() if k != HASH_LABEL}
    if labels:
        meta["labels"] = labels
    else:
        meta.pop("labels", None)
    return {**template, "metadata": meta}


def condition(kind: str, status: str, reason: str, message: str) -> Obj:
    now = now_rfc3339()
    return {"type": kind, "status": status, "lastUpdateTime": now, "lastTransitionTime": now,
            "reason": reason, "message": message}


def set_condition(status: Obj, new: Obj) -> None:
    """SetDeploymentCondition: same status and reason is no change; same status keeps its transition time;
    the condition set last moves to the end."""
    conditions: list[Obj] = status.get("conditions") or []
    current = next((c for c in conditions if c.get("type") == new["type"]), None)
    if current is not None and current.get("status") == new["status"] and current.get("reason") == new["reason"]:
        return
    if current is not None and current.get("status") == new["status"]:
        new["lastTransitionTime"] = current.get("lastTransitionTime")
    status["conditions"] = [c for c in conditions if c.get("type") != new["type"]] + [new]


def progressing(status: Obj) -> Obj | None:
    return next((c for c in status.get("conditions") or () if c.get("type") == "Progressing"), None)


def complete(deployment: Obj, status: Obj) -> bool:
    wanted = replicas(deployment)
    return (int(status.get("updatedReplicas") or 0) == wanted and int(status.get("replicas") or 0) == wanted
            and int(status.get("availableReplicas") or 0) == wanted
            and int(status.get("observedGeneration") or 0) >= int(deployment["metadata"].get("generation") or 0))


def calculate_status(deployment: Obj, all_rs: list[Obj], new_rs: Obj | None) -> Obj:
    available = sum(status_count(rs, "availableReplicas") for rs in all_rs)
    total = sum(replicas(rs) for rs in all_rs)
    old = deployment.get("status") or {}
    status: Obj = {"observedGeneration": deployment["metadata"].get("generation", 1),
                   "replicas": sum(status_count(rs, "replicas") for rs in all_rs),
                   "updatedReplicas": status_count(new_rs, "replicas") if new_rs is not None else 0,
                   "readyReplicas": sum(status_count(rs, "readyReplicas") for rs in all_rs),
                   "availableReplicas": available,
                   "unavailableReplicas": max(total - available, 0)}
    if old.get("conditions"):
        status["conditions"] = [dict(c) for c in old["conditions"]]
    if old.get("collisionCount") is not None:
        status["collisionCount"] = old["collisionCount"]
    if available >= replicas(deployment) - max_unavailable(deployment):
        set_condition(status, condition("Available", "True", "MinimumReplicasAvailable",
                                        "Deployment has minimum availability."))
    else:
        set_condition(status, condition("Available", "False", "MinimumReplicasUnavailable",
                                        "Deployment does not have minimum availability."))
    return status


def is_progressing(deployment: Obj, new: Obj) -> bool:
    old = deployment.get("status") or {}
    old_stale = int(old.get("replicas") or 0) - int(old.get("updatedReplicas") or 0)
    new_stale = int(new.get("replicas") or 0) - int(new.get("updatedReplicas") or 0)
    return (int(new.get("updatedReplicas") or 0) > int(old.get("updatedReplicas") or 0) or new_stale < old_stale
            or int(new.get("readyReplicas") or 0) > int(old.get("readyReplicas") or 0)
            or int(new.get("availableReplicas") or 0) > int(old.get("availableReplicas") or 0))


def omit_zeros(status: Obj) -> Obj:
    """DeploymentStatus as Go writes it: the counts are omitempty."""
    return {k: v for k, v in status.items() if v not in (0, None, [])}


def _annotation_int(rs: Obj, key: str) -> int | None:
    try:
        return int((rs["metadata"].get("annotations") or {})[key])
    except (KeyError, ValueError):
        return None


def is_scaling_event(deployment: Obj, active_rs: list[Obj]) -> bool:
    """isScalingEvent: an active ReplicaSet was sized for another spec.replicas than the Deployment's now."""
    wanted = replicas(deployment)
    return any((desired := _annotation_int(rs, DESIRED_REPLICAS)) is not None and desired != wanted
               for rs in active_rs)


def is_saturated(deployment: Obj, rs: Obj | None) -> bool:
    """IsSaturated: the new ReplicaSet holds every replica, sized for them and all available."""
    if rs is None or _annotation_int(rs, DESIRED_REPLICAS) is None:
        return False
    wanted = replicas(deployment)
    return replicas(rs) == wanted and _annotation_int(rs, DESIRED_REPLICAS) == wanted \
        and status_count(rs, "availableReplicas") == wanted


def _round_half_away(value: float) -> int:
    return int(math.floor(abs(value) + 0.5)) * (1 if value >= 0 else -1)


def _fraction(rs: Obj, deployment: Obj) -> int:
    """getReplicaSetFraction: the ReplicaSet's share of the new maximum, by its share of the old one
    (the max-replicas annotation; failing that, the Deployment's replicas in its status)."""
    if replicas(deployment) == 0:
        return -replicas(rs)
    new_max = replicas(deployment) + max_surge(deployment)
    old_max = _annotation_int(rs, MAX_REPLICAS)
    if not old_max:
        old_max = status_count(deployment, "replicas")
        if old_max == 0:
            return 0
    return _round_half_away(replicas(rs) * new_max / old_max) - replicas(rs)


def proportional_sizes(deployment: Obj, active_rs: list[Obj]) -> list[tuple[Obj, int]]:
    """scale()'s proportional split of a resize during a rollout: each active ReplicaSet gets its share
    of what the Deployment's new maximum (replicas + maxSurge) adds or removes, bounded by what is left
    to add or remove, and the first (largest) ReplicaSet takes the rounding leftover. Scaling up favours
    newer ReplicaSets among equal sizes, scaling down older ones, as upstream sorts them."""
    allowed = replicas(deployment) + max_surge(deployment) if replicas(deployment) > 0 else 0
    to_add = allowed - sum(replicas(rs) for rs in active_rs)
    if to_add == 0:
        return [(rs, replicas(rs)) for rs in active_rs]

    def age(rs: Obj) -> tuple[str, str]:
        return str(rs["metadata"].get("creationTimestamp", "")), str(rs["metadata"]["name"])

    if to_add > 0:  # larger first, then newer first
        ordered = sorted(sorted(active_rs, key=age, reverse=True), key=replicas, reverse=True)
    else:  # larger first, then older first
        ordered = sorted(sorted(active_rs, key=age), key=replicas, reverse=True)
    added = 0
    sizes: list[tuple[Obj, int]] = []
    for rs in ordered:
        share = 0
        if replicas(rs) != 0 and to_add != added:
            fraction, left = _fraction(rs, deployment), to_add - added
            share = min(fraction, left) if to_add > 0 else max(fraction, left)
        sizes.append((rs, replicas(rs) + share))
        added += share
    first, size = sizes[0]
    sizes[0] = (first, max(size + to_add - added, 0))
    return sizes
