"""How a delete marks an object before, or instead of, removing it: rest.BeforeDelete
(staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go) and the generic store's markAsDeleting.

Only a kind whose strategy can delete gracefully (a pod's CheckGracefulDelete) waits a grace period; any
kind held by finalizers is marked deleting at once and stays until they are gone.
"""

from __future__ import annotations

import calendar
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from apiserver.kinds.objects import now_rfc3339

Obj = dict[str, Any]
GraceCheck = Callable[[Obj, int | None], int]


@dataclass(frozen=True)
class Decision:
    graceful: bool  # the object was marked for a graceful deletion, `grace` seconds from now
    pending: bool  # a graceful deletion is already under way and this request changes nothing
    grace: int


def _seconds(stamp: str) -> int:
    return calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ"))


def _stamp(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def before_delete(obj: Obj, requested: int | None, check: GraceCheck | None) -> Decision:
    """BeforeDelete on `obj` (changed in place), given the grace period the request asked for and the
    kind's CheckGracefulDelete (None: the kind never deletes gracefully)."""
    meta = obj["metadata"]
    # Negative values are treated as one second on the delete path.
    if requested is not None and requested < 0:
        requested = 1
    existing = meta.get("deletionGracePeriodSeconds")
    if isinstance(existing, int) and existing < 0:
        existing = meta["deletionGracePeriodSeconds"] = 1
    if check is None:
        return Decision(False, False, 0)
    if meta.get("deletionTimestamp"):
        # Already being deleted: only a shorter grace period may be asked for; without one recorded, the
        # deletion goes ahead at once.
        if not existing:
            return Decision(False, False, 0)
        if requested is None or requested >= existing:
            return Decision(False, True, int(existing))
        period = requested
        moved = _seconds(str(meta["deletionTimestamp"])) - int(existing) + requested
        now = int(time.time())
        if moved < now:
            moved = now
            if period != 0:
                # The whole grace period has passed: the shortest one that is still graceful.
                period = 1
        meta["deletionTimestamp"] = _stamp(moved)
        meta["deletionGracePeriodSeconds"] = period
        return Decision(True, False, period)
    period = check(obj, requested)
    meta["deletionTimestamp"] = now_rfc3339(period)
    meta["deletionGracePeriodSeconds"] = period
    # The first graceful deletion changes how its controllers treat the object: a new generation.
    if meta.get("generation"):
        meta["generation"] = int(meta["generation"]) + 1
    return Decision(True, False, period)


def mark_as_deleting(obj: Obj) -> None:
    """markAsDeleting: an object that finalizers hold, deleted without a grace period."""
    meta = obj["metadata"]
    stamp = meta.get("deletionTimestamp")
    if not stamp and meta.get("generation"):
        meta["generation"] = int(meta["generation"]) + 1
    now = now_rfc3339()
    if not stamp or str(stamp) > now:
        meta["deletionTimestamp"] = now
    meta["deletionGracePeriodSeconds"] = 0
