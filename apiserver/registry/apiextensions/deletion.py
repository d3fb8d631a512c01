"""A CRD's deletion as apiextensions-apiserver does it: the CRD storage's Delete only marks it on the first
request (registry/customresourcedefinition/etcd.go), and its finalizer controller
(controller/finalizer/crd_finalizer.go) deletes the custom resources and then lets the CRD go.

The conditions are written as apihelpers.SetCRDCondition writes them: in place when the type is there (its
lastTransitionTime moving only with its status), else appended.
"""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]

CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"


def set_condition(crd: Obj, kind: str, status: str, reason: str, message: str, now: str) -> None:
    """SetCRDCondition."""
    crd_status = crd.get("status")
    if not isinstance(crd_status, dict):
        crd_status = crd["status"] = {}
    conditions = crd_status.get("conditions")
    if not isinstance(conditions, list):
        conditions = crd_status["conditions"] = []
    existing = next((c for c in conditions if isinstance(c, dict) and c.get("type") == kind), None)
    if existing is None:
        conditions.append({"type": kind, "status": status, "lastTransitionTime": now, "reason": reason,
                           "message": message})
        return
    since = now if existing.get("status") != status or not existing.get("lastTransitionTime") \
        else existing["lastTransitionTime"]
    existing.clear()
    existing.update({"type": kind, "status": status, "lastTransitionTime": since, "reason": reason,
                     "message": message})


def condition_true(crd: Obj, kind: str) -> bool:
    conditions = (crd.get("status") or {}).get("conditions") or ()
    return any(isinstance(c, dict) and c.get("type") == kind and c.get("status") == "True" for c in conditions)


def mark_for_cleanup(crd: Obj, now: str) -> None:
    """The first Delete's update: deletionTimestamp, the cleanup finalizer, and Terminating pending."""
    meta = crd["metadata"]
    meta.setdefault("deletionTimestamp", now)
    finalizers = list(meta.get("finalizers") or ())
    if CLEANUP_FINALIZER not in finalizers:
        meta["finalizers"] = [*finalizers, CLEANUP_FINALIZER]
    set_condition(crd, "Terminating", "True", "InstanceDeletionPending",
                  "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon", now)


def awaits_cleanup(crd: Obj) -> bool:
    """What the finalizer controller works on: a CRD being deleted that still holds its finalizer."""
    meta = crd.get("metadata") or {}
    return bool(meta.get("deletionTimestamp")) and CLEANUP_FINALIZER in (meta.get("finalizers") or ())


def in_progress(crd: Obj, now: str) -> None:
    set_condition(crd, "Terminating", "True", "InstanceDeletionInProgress", "CustomResource deletion is in progress",
                  now)


def _overlaps_built_in(crd: Obj) -> bool:
    """OverlappingBuiltInResources: instances there are the built-in resource's, never to be deleted."""
    spec = crd.get("spec") or {}
    resource = ((spec.get("names") or {}).get("plural"), spec.get("group"))
    return resource in (("apiservices", "apiregistration.k8s.io"),
                        ("customresourcedefinitions", "apiextensions.k8s.io"))


def deletes_instances(crd: Obj) -> bool:
    """Whether the sync deletes the custom resources: only an established CRD has served any."""
    return not _overlaps_built_in(crd) and condition_true(crd, "Established")


def cleaned_up(crd: Obj, now: str) -> None:
    """The sync's last step: how the instances went, and the finalizer off."""
    if _overlaps_built_in(crd):
        set_condition(crd, "Terminating", "False", "OverlappingBuiltInResource",
                      "instances overlap with built-in resources in storage", now)
    elif condition_true(crd, "Established"):
        set_condition(crd, "Terminating", "False", "InstanceDeletionCompleted", "removed all instances", now)
    else:
        set_condition(crd, "Terminating", "False", "NeverEstablished", "resource was never established", now)
    meta = crd["metadata"]
    meta["finalizers"] = [f for f in meta.get("finalizers") or () if f != CLEANUP_FINALIZER]
    if not meta["finalizers"]:
        del meta["finalizers"]
