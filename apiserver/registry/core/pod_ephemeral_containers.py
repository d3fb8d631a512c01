"""The pods/ephemeralcontainers subresource (kubectl debug): what an update through it may change, and
upstream's rules for it (pkg/registry/core/pod/strategy.go podEphemeralContainersStrategy,
pkg/apis/core/validation ValidatePodEphemeralContainersUpdate).

The update keeps the pod's spec, status and the metadata a status update keeps (labels, annotations,
finalizers, owner references) as they were, but for spec.ephemeralContainers. The pod is judged whole
(each ephemeral container by validateEphemeralContainers, `pod_containers.py`); then ephemeral containers
may be added, never removed or changed, and a static pod takes none. A main-resource update of the pod
is judged by ValidatePodUpdate instead (`pod_update.py`), which refuses any change to them.
"""

from __future__ import annotations

import json
from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry import meta as object_meta
from apiserver.registry.core import go_structs, pod_annotations, pod_validation

Obj = dict[str, Any]
SUBRESOURCE = "ephemeralcontainers"
_MIRROR_POD = "kubernetes.io/config.mirror"
_PATH = "spec.ephemeralContainers"
# ResetObjectMetaForStatus: what of the metadata stays the old object's (generation, deletionTimestamp and
# selfLink are the server's anyway).
_KEPT_METADATA = ("labels", "annotations", "finalizers", "ownerReferences")


def prepare_update(new: Obj, old: Obj) -> Obj:
    """dropNonEphemeralContainerUpdates: old's spec, status and status-kept metadata, new's ephemeral
    containers and the rest of its metadata."""
    spec = dict(old.get("spec") or {})
    wanted = (new.get("spec") or {}).get("ephemeralContainers")
    if wanted:
        spec["ephemeralContainers"] = wanted
    else:
        spec.pop("ephemeralContainers", None)
    meta = dict(new.get("metadata") or {})
    for key in _KEPT_METADATA:
        if key in old["metadata"]:
            meta[key] = old["metadata"][key]
        else:
            meta.pop(key, None)
    prepared = {**new, "metadata": meta, "spec": spec}
    if "status" in old:
        prepared["status"] = old["status"]
    else:
        prepared.pop("status", None)
    return prepared


def validate_update(new: Obj, old: Obj, kube_finalizers: bool) -> list[FieldError]:
    """ValidatePodEphemeralContainersUpdate, from the metadata's update rules on."""
    meta, old_meta = new["metadata"], old["metadata"]
    found = object_meta.validate_update(meta, old_meta, kube_finalizers)
    found += pod_validation.pod(new, old)
    found += pod_annotations.pod_specific_annotation_updates(meta, old_meta, new.get("spec") or {},
                                                             "metadata.annotations")
    if _MIRROR_POD in (old_meta.get("annotations") or {}):
        return [field.forbidden("", "static pods do not support ephemeral containers")]
    given = {c.get("name"): c for c in (new.get("spec") or {}).get("ephemeralContainers") or ()
             if isinstance(c, dict)}
    for before in (old.get("spec") or {}).get("ephemeralContainers") or ():
        name = before.get("name") or ""
        after = given.get(name)
        if after is None:
            found.append(field.forbidden(_PATH, f"existing ephemeral containers {json.dumps(name)} may not be removed\n"))
            continue
        was, now = go_structs.struct("EphemeralContainer", before), go_structs.struct("EphemeralContainer", after)
        if go_structs.semantic(was) != go_structs.semantic(now):
            shown = go_structs.diff(was, now)
            found.append(field.forbidden(_PATH, f"existing ephemeral containers {json.dumps(name)} may not be "
                                                f"changed\n{shown}"))
    return found
