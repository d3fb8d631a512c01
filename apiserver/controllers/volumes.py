"""What the volume controllers and the scheduler agree on about claims and volumes: which volume can
serve a claim (upstream's `findMatchingVolume`), which claims a pod uses, and where a volume can be used.

A volume matches a claim when it is not bound to another claim, has the claim's class, volume mode and
at least its access modes, capacity and (if the claim has one) selector's labels. A volume pre-bound
to the claim (`spec.claimRef` naming it) wins; otherwise the smallest that matches. In delayed binding
(a `WaitForFirstConsumer` class) only pre-bound volumes are chosen here: the scheduler picks the rest.
"""

from __future__ import annotations

from typing import Any, Iterable

from apiserver.controllers.quantities import parse
from apiserver.controllers.selectors import label_selector_matches, node_selector_term_matches

Obj = dict[str, Any]

BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
SELECTED_NODE = "volume.kubernetes.io/selected-node"
BETA_CLASS = "volume.beta.kubernetes.io/storage-class"
PVC_PROTECTION = "kubernetes.io/pvc-protection"
PV_PROTECTION = "kubernetes.io/pv-protection"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"


def claim_class(claim: Obj) -> str:
    annotations = claim["metadata"].get("annotations") or {}
    if BETA_CLASS in annotations:
        return str(annotations[BETA_CLASS])
    return str((claim.get("spec") or {}).get("storageClassName") or "")


def volume_class(volume: Obj) -> str:
    annotations = volume["metadata"].get("annotations") or {}
    if BETA_CLASS in annotations:
        return str(annotations[BETA_CLASS])
    return str((volume.get("spec") or {}).get("storageClassName") or "")


def requested(claim: Obj) -> float:
    return parse((((claim.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage", 0))


def capacity(volume: Obj) -> float:
    return parse(((volume.get("spec") or {}).get("capacity") or {}).get("storage", 0))


def is_prebound_to(volume: Obj, claim: Obj) -> bool:
    ref = (volume.get("spec") or {}).get("claimRef") or {}
    meta = claim["metadata"]
    return (ref.get("name") == meta["name"] and ref.get("namespace") == meta.get("namespace")
            and ref.get("uid", meta.get("uid")) in ("", meta.get("uid")))


def node_fits(volume: Obj, node: Obj) -> bool:
    """Whether a pod on `node` can use the volume: its required node affinity, if any, holds."""
    required = ((volume.get("spec") or {}).get("nodeAffinity") or {}).get("required")
    if not required:
        return True
    return any(node_selector_term_matches(term, node) for term in required.get("nodeSelectorTerms") or ())


def matches(claim: Obj, volume: Obj) -> bool:
    spec, claim_spec = volume.get("spec") or {}, claim.get("spec") or {}
    if volume["metadata"].get("deletionTimestamp"):
        return False
    if spec.get("claimRef") and not is_prebound_to(volume, claim):
        return False
    if (volume.get("status") or {}).get("phase") in ("Released", "Failed"):
        return False
    if volume_class(volume) != claim_class(claim):
        return False
    if spec.get("volumeMode", "Filesystem") != claim_spec.get("volumeMode", "Filesystem"):
        return False
    if not set(claim_spec.get("accessModes") or ()) <= set(spec.get("accessModes") or ()):
        return False
    if capacity(volume) < requested(claim):
        return False
    selector = claim_spec.get("selector")
    return selector is None or label_selector_matches(selector, volume["metadata"].get("labels") or {})


def best_match(claim: Obj, volumes: Iterable[Obj], delay_binding: bool, node: Obj | None = None) -> Obj | None:
    candidates = [v for v in volumes if matches(claim, v) and (node is None or node_fits(v, node))]
    prebound = [v for v in candidates if (v.get("spec") or {}).get("claimRef")]
    if prebound:
        return prebound[0]
    if delay_binding:
        return None
    return min(candidates, key=lambda v: (capacity(v), v["metadata"]["name"]), default=None)


def claim_names(pod: Obj) -> list[str]:
    """The claims a pod's volumes name: its own, and those its generic ephemeral volumes make (`<pod>-<volume>`)."""
    names = []
    for volume in (pod.get("spec") or {}).get("volumes") or ():
        if volume.get("persistentVolumeClaim"):
            names.append(str(volume["persistentVolumeClaim"].get("claimName", "")))
        elif volume.get("ephemeral"):
            names.append(f"{pod['metadata']['name']}-{volume.get('name', '')}")
    return names


def is_bound(claim: Obj) -> bool:
    return bool((claim.get("spec") or {}).get("volumeName")) and (claim.get("status") or {}).get("phase") == "Bound"
