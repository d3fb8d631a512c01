"""certificates.k8s.io/v1's strategies: who asked, and the approval and status subresources' part of a write.

Upstream's strategy (pkg/registry/certificates/certificates/strategy.go): the requesting user's
identity is recorded in the spec at create, whatever the body said, and the status starts empty;
/approval changes only the conditions, /status the rest of the status (not the Approved and Denied
conditions); both give each condition its update and transition times. The spec is never owned in
managedFields: every endpoint resets it (GetResetFields).
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry.certificates import validation
from apiserver.registry.hooks import Cluster, Request, Requester
from apiserver.registry.meta import path_segment
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
    """populateConditionTimestamps: an unset transition time is the old same-status condition's, else now."""
    for condition in conditions:
        if not condition.get("lastUpdateTime"):
            condition["lastUpdateTime"] = now
        if not condition.get("lastTransitionTime"):
            same = next((c for c in old_conditions if c.get("type") == condition.get("type")
                         and c.get("status") == condition.get("status") and c.get("lastTransitionTime")), None)
            condition["lastTransitionTime"] = same["lastTransitionTime"] if same else now


def _conditions(obj: Obj) -> list[Obj]:
    return [c for c in (obj.get("status") or {}).get("conditions") or () if isinstance(c, dict)]


def _with_conditions(status: Obj, conditions: list[Obj]) -> Obj:
    status = dict(status)
    if conditions:
        status["conditions"] = conditions
    else:
        status.pop("conditions", None)
    return status


def approval_update(new: Obj, old: Obj, now: str) -> Obj:
    """/approval: the old object with every condition the new one gives (validation then refuses
    removing an Approved, Denied or Failed one), and the new labels and annotations: the approval
    strategy resets only the spec and the rest of the status."""
    merged = {**old, "metadata": dict(old["metadata"])}
    for name in ("labels", "annotations"):
        if new["metadata"].get(name):
            merged["metadata"][name] = new["metadata"][name]
        else:
            merged["metadata"].pop(name, None)
    conditions = [dict(c) for c in _conditions(new)]
    _timestamps(conditions, _conditions(old), now)
    merged["status"] = _with_conditions(old.get("status") or {}, conditions)
    return merged


def status_update(merged: Obj, old: Obj, now: str) -> None:
    """/status keeps the Approved and Denied conditions as they were where their number is unchanged
    (preserveConditionInstances), and dates the conditions."""
    conditions = _conditions(merged)
    old_conditions = _conditions(old)
    for kind in _APPROVAL_TYPES:
        old_at = [i for i, c in enumerate(old_conditions) if c.get("type") == kind]
        new_at = [i for i, c in enumerate(conditions) if c.get("type") == kind]
        if len(old_at) == len(new_at):
            for new_index, old_index in zip(new_at, old_at):
                conditions[new_index] = old_conditions[old_index]
    _timestamps(conditions, old_conditions, now)
    merged["status"] = _with_conditions(merged.get("status") or {}, conditions)


def _prepare_for_create(csr: Obj) -> None:
    """Nobody creates a request already approved: the status starts empty."""
    csr["status"] = {}


def _validate_subresource(subresource: str, new: Obj, old: Obj) -> list[FieldError]:
    if subresource == "approval":
        return validation.csr_approval_update(new, old)
    return validation.csr_status_update(new, old)


STRATEGIES: dict[str, Strategy] = {
    "CertificateSigningRequest": KindStrategy(
        begin_create=_record_request, prepare_for_create=_prepare_for_create, keep_on_update=keep_request,
        prepare_for_status_update=status_update, validate=validation.csr_create,
        validate_update=validation.csr_update, validate_subresource_update=_validate_subresource,
        reset_fields=((None, (("f:spec",), ("f:status",))),
                      ("status", (("f:spec",), ("f:status", "f:conditions"))),
                      ("approval", (("f:spec",), ("f:status", "f:certificate")))),
        name_rule=path_segment),
}
