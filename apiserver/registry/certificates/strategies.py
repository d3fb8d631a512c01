"""certificates.k8s.io/v1's strategies: who asked, and the approval and status subresources' part of a write.

Upstream's strategy (pkg/registry/certificates/certificates/strategy.go): the requesting user's
identity is recorded in the spec at create, whatever the body said; /approval changes only the
Approved, Denied and Failed conditions, /status the rest of the status; both give each condition
its update and transition times.
"""

from __future__ import annotations

from typing import Any

from apiserver.registry.hooks import Cluster, Request, Requester
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]

_APPROVAL_TYPES = ("Approved", "Denied")
# Every authenticated request carries this group upstream, added after authentication.
_AUTHENTICATED = "system:authenticated"


def record_requester(csr: Obj, requester: Requester | None) -> None:
    spec = csr.get("spec")
    if not isinstance(spec, dict):
        spec = csr["spec"] = {}
    for field in ("username", "uid", "groups", "extra"):
        spec.pop(field, None)
    if requester is None:
        return
    if requester.name:
        spec["username"] = requester.name
    if requester.uid:
        spec["uid"] = requester.uid
    groups = list(requester.groups)
    if _AUTHENTICATED not in groups:
        groups.append(_AUTHENTICATED)
    spec["groups"] = groups
    if requester.extra:
        spec["extra"] = {key: list(values) for key, values in requester.extra.items()}


def _record_request(csr: Obj, request: Request, cluster: Cluster) -> int | None:
    record_requester(csr, request.requester)
    return None


def keep_request(new: Obj, old: Obj) -> None:
    """An update of the object itself changes only its metadata: the request is what was signed for."""
    if "spec" in old:
        new["spec"] = old["spec"]
    else:
        new.pop("spec", None)


def _timestamps(conditions: list[Obj], old_conditions: list[Obj], now: str) -> None:
    for condition in conditions:
        condition.setdefault("lastUpdateTime", now)
        if not condition.get("lastTransitionTime"):
            same = next((c for c in old_conditions if c.get("type") == condition.get("type")
                         and c.get("status") == condition.get("status") and c.get("lastTransitionTime")), None)
            condition["lastTransitionTime"] = same["lastTransitionTime"] if same else now


def _conditions(obj: Obj) -> list[Obj]:
    return [c for c in (obj.get("status") or {}).get("conditions") or () if isinstance(c, dict)]


def approval_update(new: Obj, old: Obj, now: str) -> Obj:
    """/approval: the old object with the new object's approval conditions."""
    merged = {**old, "metadata": dict(old["metadata"])}
    kept = [c for c in _conditions(old) if c.get("type") not in _APPROVAL_TYPES + ("Failed",)]
    changed = [c for c in _conditions(new) if c.get("type") in _APPROVAL_TYPES + ("Failed",)]
    _timestamps(changed, _conditions(old), now)
    status = {**(old.get("status") or {}), "conditions": changed + kept}
    merged["status"] = status
    return merged


def status_update(merged: Obj, old: Obj, now: str) -> None:
    """/status keeps the approval conditions as they were and dates the others."""
    approvals = [c for c in _conditions(old) if c.get("type") in _APPROVAL_TYPES]
    others = [c for c in _conditions(merged) if c.get("type") not in _APPROVAL_TYPES]
    _timestamps(others, _conditions(old), now)
    conditions = approvals + others
    status = dict(merged.get("status") or {})
    if conditions:
        status["conditions"] = conditions
    else:
        status.pop("conditions", None)
    merged["status"] = status


STRATEGIES: dict[str, Strategy] = {
    "CertificateSigningRequest": KindStrategy(begin_create=_record_request, keep_on_update=keep_request,
                                              prepare_for_status_update=status_update, resets_spec=True),
}
