"""What a Job update may change of its pod template, and how upstream shows batch's internal structs.

A bad value that is a struct shows as json.Marshal writes the internal type, which has no json tags:
Go's field names, nil pointers and slices as null (pkg/apis/batch/types.go).

The pod template's immutability (validatePodTemplateUpdate) follows upstream's options: a job that is
suspended and has not started may change its scheduling directives (node affinity, node selector,
tolerations, scheduling gates, labels and annotations) and its containers' resources
(MutableSchedulingDirectivesForSuspendedJobs and MutablePodResourcesForSuspendedJobs, beta and on in
1.36). A refused template shows as the internal core.PodTemplateSpec: its embedded ObjectMeta's fields
(metav1's, with their json tags) beside the PodSpec core's go_structs prints.
"""

from __future__ import annotations

import copy
from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.core import go_structs

Obj = dict[str, Any]

_OBJECT_META = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
                "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
                "ownerReferences", "finalizers", "managedFields")


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _exit_codes_json(requirement: Any) -> Any:
    if not isinstance(requirement, dict):
        return None
    return {"ContainerName": requirement.get("containerName"), "Operator": requirement.get("operator") or "",
            "Values": requirement.get("values")}


def _rule_json(rule: Obj) -> Obj:
    patterns = rule.get("onPodConditions")
    return {"Action": rule.get("action") or "", "OnExitCodes": _exit_codes_json(rule.get("onExitCodes")),
            "OnPodConditions": None if patterns is None else [
                {"Type": _dict(p).get("type") or "", "Status": _dict(p).get("status") or ""} for p in patterns]}


def pod_failure_policy_json(policy: Any) -> str:
    if not isinstance(policy, dict):
        return "null"
    rules = policy.get("rules")
    return field.go_json({"Rules": None if rules is None else [_rule_json(_dict(r)) for r in rules]})


def success_policy_json(policy: Any) -> str:
    if not isinstance(policy, dict):
        return "null"
    rules = policy.get("rules")
    return field.go_json({"Rules": None if rules is None else [
        {"SucceededIndexes": _dict(r).get("succeededIndexes"), "SucceededCount": _dict(r).get("succeededCount")}
        for r in rules]})


def _internal_pod_spec(spec: Obj) -> Obj:
    """Convert_v1_PodSpec_To_core_PodSpec as json.Marshal writes it: go_structs.pod_spec's conversion but
    for the pod's own rule (Convert_v1_Pod_To_core_Pod's): a template's negative grace period stays."""
    shown = go_structs.pod_spec(spec)
    shown["TerminationGracePeriodSeconds"] = go_structs.rendered("*int64", spec.get("terminationGracePeriodSeconds"))
    return shown


def _internal_template(template: Obj) -> Obj:
    """The internal PodTemplateSpec as json.Marshal writes it: ObjectMeta embedded (every field omitempty),
    then Spec."""
    meta = _dict(template.get("metadata"))
    shown: Obj = {k: meta[k] for k in _OBJECT_META if meta.get(k) not in (None, "", 0, [], {})}
    shown["Spec"] = _internal_pod_spec(_dict(template.get("spec")))
    return shown


def _condition_true(status: Obj, kind: str) -> bool:
    return any(_dict(c).get("type") == kind and _dict(c).get("status") == "True"
               for c in status.get("conditions") or ())


def _mutable_template(old: Obj) -> bool:
    """shouldAllowMutablePodTemplate: suspended, not started (or suspended again), and no pod running."""
    spec, status = _dict(old.get("spec")), _dict(old.get("status"))
    suspended = spec.get("suspend") is True
    return suspended and (status.get("startTime") is None or _condition_true(status, "Suspended")) and \
        not status.get("active")


def _with_scheduling_directives(old_template: Obj, template: Obj) -> Obj:
    """The old template with the new one's scheduling directives, which a suspended job may change."""
    out = copy.deepcopy(old_template)
    pod, old_pod = _dict(template.get("spec")), out.setdefault("spec", {})
    affinity, old_affinity = pod.get("affinity"), old_pod.get("affinity")
    if affinity is None and isinstance(old_affinity, dict):
        old_affinity.pop("nodeAffinity", None)
        if not any(v is not None for v in old_affinity.values()):
            old_pod.pop("affinity")
    elif isinstance(affinity, dict) and old_affinity is None:
        old_pod["affinity"] = {"nodeAffinity": affinity.get("nodeAffinity")}
    elif isinstance(affinity, dict) and isinstance(old_affinity, dict):
        old_affinity["nodeAffinity"] = affinity.get("nodeAffinity")
    for key in ("nodeSelector", "tolerations", "schedulingGates"):
        old_pod[key] = pod.get(key)
    meta, old_meta = _dict(template.get("metadata")), out.setdefault("metadata", {})
    for key in ("annotations", "labels"):
        old_meta[key] = meta.get(key)
    return out


def _same(new: Obj, old: Obj) -> bool:
    """apiequality.Semantic.DeepEqual of two internal structs as rendered: a nil pointer and a pointer to
    an empty struct differ (`lifecycle: {}` is a change), an empty slice or map and a nil one do not."""
    return bool(go_structs.semantic(new) == go_structs.semantic(old))


def _resources_only(pod: Obj, old_pod: Obj) -> Obj:
    """The old pod spec with the new containers' resources, where the containers line up by name."""
    out = copy.deepcopy(old_pod)
    for key in ("containers", "initContainers"):
        new_list, old_list = pod.get(key) or [], out.get(key) or []
        if len(new_list) == len(old_list):
            for new_c, old_c in zip(new_list, old_list, strict=True):
                if isinstance(old_c, dict) and isinstance(new_c, dict) and old_c.get("name") == new_c.get("name"):
                    old_c["resources"] = new_c.get("resources")
    return out


def pod_template_update(new: Obj, old: Obj) -> list[FieldError]:
    """validatePodTemplateUpdate with the options the strategy gives (validationOptionsForJob)."""
    template, old_template = _dict(_dict(new.get("spec")).get("template")), _dict(_dict(old.get("spec")).get("template"))
    mutable = _mutable_template(old)
    if mutable:
        old_template = _with_scheduling_directives(old_template, template)
    if not mutable:
        shown = _internal_template(template)
        if _same(shown, _internal_template(old_template)):
            return []
        return [field.invalid_shown("spec.template", field.go_json(shown), "field is immutable")]
    pod = _dict(template.get("spec"))
    shown = _internal_pod_spec(pod)
    if _same(shown, _internal_pod_spec(_resources_only(pod, _dict(old_template.get("spec"))))):
        return []
    return [field.invalid_shown("spec.template.spec", field.go_json(shown), "field is immutable")]
