"""pods/binding: a Binding sets a pending pod's node once, as the scheduler asks (upstream's BindingREST).

The pod is written as the binding leaves it, without the update strategy or managedFields, as
upstream writes it straight to storage. Invalid bindings fail as upstream's do: a name that differs from
the URL's (400), an aggregate of field errors (a 500 with the errors as its message), and
a pod that is being deleted or already bound (409 on `pods/binding`).
"""

from __future__ import annotations

from typing import Any

from apiserver import errors
from apiserver.kinds.objects import now_rfc3339, reshaped
from apiserver.registry import admission_plugins, field

RESOURCE = "pods/binding"


def check(binding: Any, name: str, namespace: str) -> dict[str, Any]:
    """The Binding's target, refused with upstream's errors when it cannot bind `name`."""
    if not isinstance(binding, dict):
        raise errors.bad_request("the body of a binding must be a Binding object")
    meta = binding.get("metadata") or {}
    # BindingREST.Create: an unnamed Binding does not name the URL's pod either. (Its namespace was
    # checked as the body was decoded.)
    if str(meta.get("name") or "") != name:
        raise errors.bad_request("name in URL does not match name in Binding object")
    target = binding.get("target") or {}
    # ValidatePodBinding, whose ErrorList BindingREST returns as a plain error: a 500 saying it.
    problems: list[errors.FieldError] = []
    kind = target.get("kind") or ""
    if kind and kind != "Node":
        problems.append(field.not_supported("target.kind", kind, ("Node", "<empty>")))
    if not target.get("name"):
        problems.append(field.required("target.name"))
    if problems:
        raise errors.ApiError(500, "", errors.aggregate([f"{e.path}: {e.message}" for e in problems]))
    return binding


def admit_topology(binding: dict[str, Any], node: dict[str, Any] | None) -> None:
    """PodTopologyLabels admission of pods/binding (not of the legacy bindings resource): a Binding that
    names a Node carries that node's topology labels, which the bind then copies onto the pod."""
    if (binding.get("target") or {}).get("kind") != "Node":
        return
    labels = admission_plugins.topology_labels(node)
    if labels:
        binding["metadata"].setdefault("labels", {}).update(labels)


def _check_preconditions(pod: dict[str, Any], binding: dict[str, Any]) -> None:
    """The Binding's uid and resourceVersion are preconditions of the pod's update, refused as the
    storage's GuaranteedUpdate refuses them."""
    meta, asked = pod["metadata"], binding.get("metadata") or {}
    for key, what in (("uid", "UID"), ("resourceVersion", "ResourceVersion")):
        if asked.get(key) and asked[key] != meta.get(key):
            raise errors.conflict("pods", "", meta["name"], (
                f"StorageError: invalid object, Code: 4, Key: /registry/pods/{meta.get('namespace', '')}/"
                f"{meta['name']}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: {what} in "
                f"precondition: {asked[key]}, {what} in object meta: {meta.get(key)}"))


def bind(pod: dict[str, Any], binding: dict[str, Any]) -> dict[str, Any]:
    """The pod bound to the binding's node, with its annotations and labels (PodTopologyLabelsAdmission,
    on at 1.36) merged and PodScheduled true."""
    _check_preconditions(pod, binding)
    meta = pod["metadata"]
    name = meta["name"]
    if meta.get("deletionTimestamp"):
        raise errors.conflict(RESOURCE, "", name, f"pod {name} is being deleted, cannot be assigned to a host")
    spec = pod.setdefault("spec", {})
    if spec.get("nodeName"):
        raise errors.conflict(RESOURCE, "", name, f'pod {name} is already assigned to node "{spec["nodeName"]}"')
    if spec.get("schedulingGates"):
        raise errors.conflict(RESOURCE, "", name, f"pod {name} has non-empty .spec.schedulingGates")
    spec["nodeName"] = binding["target"]["name"]
    for key in ("annotations", "labels"):
        given = (binding.get("metadata") or {}).get(key) or {}
        if given:
            meta.setdefault(key, {}).update(given)
    status = pod.setdefault("status", {})
    status.pop("nominatedNodeName", None)
    set_condition(status, {"type": "PodScheduled", "status": "True"})
    return reshaped(pod)


def set_condition(status: dict[str, Any], condition: dict[str, Any]) -> bool:
    """podutil.UpdatePodCondition: replaces or appends; the transition time moves only with the status.

    Returns whether anything changed."""
    conditions: list[dict[str, Any]] = status.setdefault("conditions", [])
    full = {"type": condition["type"], "status": condition["status"], "lastProbeTime": None,
            "lastTransitionTime": now_rfc3339()}
    for key in ("reason", "message"):
        if condition.get(key):
            full[key] = condition[key]
    for i, existing in enumerate(conditions):
        if existing.get("type") != condition["type"]:
            continue
        if existing.get("status") == full["status"]:
            full["lastTransitionTime"] = existing.get("lastTransitionTime")
        if existing == full:
            return False
        conditions[i] = full
        return True
    conditions.append(full)
    return True
