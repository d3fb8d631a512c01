"""ValidatePodUpdate of pkg/apis/core/validation/validation.go: the new pod judged whole, then only its
images, deadline, tolerations (additions), scheduling gates (removals) and a negative grace period may
have changed; anything else is refused with upstream's diff.Diff of the two internal specs. Ephemeral
containers are compared too: only the ephemeralcontainers subresource changes them
(`pod_ephemeral_containers.py`), judged by its own rules instead of these.

A pod still gated from scheduling may also add to its node selector and node affinity requirements.
"""

from __future__ import annotations

import copy
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import inclusive_range_error
from apiserver.registry import field
from apiserver.registry.core import go_structs, pod_annotations
from apiserver.registry.core.pod_validation import pod, tolerations

Obj = dict[str, Any]

_MAX_INT32 = 2**31 - 1
_UPDATABLE = (
    "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
    "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),"
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)")


def _containers(new: list[Any], old: list[Any], path: str) -> tuple[list[FieldError], bool]:
    """ValidateContainerUpdates: the same containers, each with an image."""
    if len(new) != len(old):
        return [field.forbidden(path, "pod updates may not add or remove containers")], True
    found: list[FieldError] = []
    for i, container in enumerate(new):
        image = (container or {}).get("image") or ""
        if not image:
            found.append(field.required(f"{path}[{i}].image"))
        if image.strip() != image:
            found.append(field.invalid(f"{path}[{i}].image", image, "must not have leading or trailing whitespace"))
    return found, False


def _deadline(spec: Obj, old_spec: Obj) -> tuple[list[FieldError], bool]:
    new, old = spec.get("activeDeadlineSeconds"), old_spec.get("activeDeadlineSeconds")
    at = "spec.activeDeadlineSeconds"
    if new is not None:
        if not 0 <= new <= _MAX_INT32:
            return [field.invalid(at, new, inclusive_range_error(0, _MAX_INT32))], True
        if old is not None and old < new:
            return [field.invalid(at, new, "must be less than or equal to previous value")], True
    elif old is not None:
        return [field.invalid(at, None, "must not update from a positive integer to nil value")], False
    return [], False


def _only_added_tolerations(new: list[Any], old: list[Any]) -> list[FieldError]:
    for was in old:
        was = was or {}
        if not any({**was, "tolerationSeconds": (now or {}).get("tolerationSeconds")}
                   == {**(now or {}), "tolerationSeconds": (now or {}).get("tolerationSeconds")} for now in new):
            return [field.forbidden("spec.tolerations", "existing toleration can not be modified except its "
                                                        "tolerationSeconds")]
    return tolerations(new, "spec.tolerations")


def _only_deleted_gates(new: list[Any], old: list[Any]) -> list[FieldError]:
    old_names = {(gate or {}).get("name") for gate in old}
    added: dict[str, int] = {}
    for i, gate in enumerate(new):
        added[(gate or {}).get("name") or ""] = i
    return [field.forbidden(f"spec.schedulingGates[{i}].name",
                            f"only deletion is allowed, but found new scheduling gate '{name}'")
            for name, i in added.items() if name not in old_names]


def _same(go_type: str, a: Any, b: Any) -> bool:
    return bool(go_structs.semantic(go_structs.rendered(go_type, a)) == go_structs.semantic(go_structs.rendered(go_type, b)))


def _only_added_requirements(new: Obj, old: Obj) -> bool:
    """validateNodeSelectorTermHasOnlyAdditions."""
    if not old.get("matchExpressions") and not old.get("matchFields") and \
            (new.get("matchExpressions") or new.get("matchFields")):
        return False
    for key in ("matchExpressions", "matchFields"):
        was, now = old.get(key) or [], new.get(key) or []
        if was and (len(now) < len(was) or not _same("[]NodeSelectorRequirement", now[:len(was)], was)):
            return False
    return True


def _node_affinity_mutation(new: Any, old: Any, path: str) -> list[FieldError]:
    """validateNodeAffinityMutation: a gated pod's required node selector terms may only gain requirements."""
    required = (old or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(required, dict):
        return []
    old_terms = required.get("nodeSelectorTerms") or []
    new_terms = ((new or {}).get("requiredDuringSchedulingIgnoredDuringExecution") or {}).get("nodeSelectorTerms")
    new_terms = new_terms or []
    at = f"{path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
    if old_terms and len(old_terms) != len(new_terms):
        shown = field.go_json(go_structs.rendered("[]NodeSelectorTerm", new_terms or None))
        return [field.invalid_shown(at, shown, "no additions/deletions to non-empty NodeSelectorTerms list are allowed")]
    return [field.invalid_shown(f"{at}[{i}]", field.go_json(go_structs.struct("NodeSelectorTerm", now or {})),
                                "only additions are allowed (no mutations or deletions)")
            for i, (now, was) in enumerate(zip(new_terms, old_terms)) if not _only_added_requirements(now or {}, was or {})]


def _gated_pod_mutations(munged: Obj, old_spec: Obj) -> list[FieldError]:
    """What a pod still gated from scheduling may change: add to its node selector and to the requirements of
    its required node affinity terms. The munged spec takes the old values of both, as upstream's does."""
    found: list[FieldError] = []
    selector, old_selector = munged.get("nodeSelector") or {}, old_spec.get("nodeSelector") or {}
    if selector != old_selector:
        if any(k not in selector or selector[k] != v for k, v in old_selector.items()):
            found.append(field.invalid("spec.nodeSelector", munged.get("nodeSelector"),
                                       "only additions to spec.nodeSelector are allowed (no mutations or deletions)"))
        munged["nodeSelector"] = old_spec.get("nodeSelector")
    affinity, old_affinity = munged.get("affinity"), old_spec.get("affinity")
    node_affinity = (affinity or {}).get("nodeAffinity") if isinstance(affinity, dict) else None
    old_node_affinity = (old_affinity or {}).get("nodeAffinity") if isinstance(old_affinity, dict) else None
    if not _same("*NodeAffinity", node_affinity, old_node_affinity):
        found += _node_affinity_mutation(node_affinity, old_node_affinity, "spec.affinity.nodeAffinity")
        if affinity is None:
            if old_node_affinity is not None:
                munged["affinity"] = {"nodeAffinity": old_node_affinity}
        elif old_affinity is None and affinity.get("podAffinity") is None and affinity.get("podAntiAffinity") is None:
            munged["affinity"] = None
        else:
            munged["affinity"] = {**affinity, "nodeAffinity": old_node_affinity}
    return found


def pod_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidatePodUpdate (its metadata aside)."""
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    found = pod(new, old)
    found += pod_annotations.pod_specific_annotation_updates(new.get("metadata") or {}, old.get("metadata") or {}, spec,
                                                             "metadata.annotations")
    for key in ("containers", "initContainers"):
        errors, stop = _containers(spec.get(key) or [], old_spec.get(key) or [], f"spec.{key}")
        found += errors
        if stop:
            return found
    errors, stop = _deadline(spec, old_spec)
    found += errors
    if stop:
        return found
    found += _only_added_tolerations(spec.get("tolerations") or [], old_spec.get("tolerations") or [])
    found += _only_deleted_gates(spec.get("schedulingGates") or [], old_spec.get("schedulingGates") or [])
    old_shown = go_structs.pod_spec(old_spec)
    munged = copy.deepcopy(spec)
    for key in ("containers", "initContainers"):
        for container, was in zip(munged.get(key) or [], old_spec.get(key) or []):
            if isinstance(container, dict):
                container["image"] = (was or {}).get("image")
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        munged[key] = old_spec.get(key)
    old_grace = old_spec.get("terminationGracePeriodSeconds")
    if isinstance(old_grace, int) and old_grace < 0 and munged.get("terminationGracePeriodSeconds") == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    if old_spec.get("schedulingGates"):
        found += _gated_pod_mutations(munged, old_spec)
    munged_shown = go_structs.pod_spec(munged)
    if munged_shown != old_shown:
        found.append(field.forbidden("spec", _UPDATABLE + "\n" + go_structs.diff(old_shown, munged_shown)))
    return found
