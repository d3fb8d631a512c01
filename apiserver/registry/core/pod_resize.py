"""The pods/resize subresource (in-place pod vertical scaling, GA in 1.35): what an update through it may
change, and upstream's rules for it (pkg/registry/core/pod/strategy.go podResizeStrategy,
pkg/apis/core/validation ValidatePodResize), with the QoS class both sides compare
(pkg/apis/core/helper/qos ComputePodQOS).

The update keeps the old pod but for each container's (and, with SidecarContainers, each init
container's) `resources` and `resizePolicy`, and the pod-level `resources`
(InPlacePodLevelResourcesVerticalScaling, beta in 1.36); labels, annotations and the rest of the metadata
stay the old ones. A resize may change only cpu and memory, may not remove a request or a limit, nor
move the pod to another QoS class; static and Windows pods cannot be resized.
"""

from __future__ import annotations

import copy
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import quantity
from apiserver.registry import field
from apiserver.registry.core import pod_validation

Obj = dict[str, Any]
SUBRESOURCE = "resize"
_MIRROR_POD = "kubernetes.io/config.mirror"
_CPU_MEMORY = ("cpu", "memory")


# -- QoS ------------------------------------------------------------------------------------------------

def _positive(values: Any) -> dict[str, quantity.Quantity]:
    """The cpu and memory of a resource list that are above zero (isSupportedQoSComputeResource)."""
    found = {}
    for name, value in (values or {}).items():
        if name in _CPU_MEMORY:
            parsed = quantity.parse(value)
            if parsed.value > 0:
                found[name] = parsed
    return found


def _add(into: dict[str, quantity.Quantity], values: dict[str, quantity.Quantity]) -> None:
    for name, value in values.items():
        into[name] = into[name] + value if name in into else value


def compute_qos(spec: Obj) -> str:
    """ComputePodQOS: pod-level resources when set (PodLevelResources), else every container's."""
    requests: dict[str, quantity.Quantity] = {}
    limits: dict[str, quantity.Quantity] = {}
    guaranteed = True
    pod_level = spec.get("resources")
    if isinstance(pod_level, dict):
        if pod_level.get("requests"):
            _add(requests, _positive(pod_level.get("requests")))
        if pod_level.get("limits"):
            _add(limits, _positive(pod_level.get("limits")))
            if not all(name in (pod_level.get("limits") or {}) for name in _CPU_MEMORY):
                guaranteed = False
    else:
        for key in ("containers", "initContainers"):
            for container in spec.get(key) or ():
                resources = (container or {}).get("resources") or {}
                _add(requests, _positive(resources.get("requests")))
                found = _positive(resources.get("limits"))
                _add(limits, found)
                if not all(name in found for name in _CPU_MEMORY):
                    guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and any(name not in limits or limits[name].value != value.value for name, value in requests.items()):
        guaranteed = False
    return "Guaranteed" if guaranteed and len(requests) == len(limits) else "Burstable"


# -- the strategy ---------------------------------------------------------------------------------------

def prepare_update(new: Obj, old: Obj) -> Obj:
    """dropNonResizeUpdates: old's spec, status and metadata (ResetObjectMetaForStatus), with new's
    container resources and resize policies, and its pod-level resources. Containers added, removed,
    renamed or reordered leave the new pod as it came, for validation to refuse."""
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    if any(len(spec.get(key) or ()) != len(old_spec.get(key) or ()) for key in ("containers", "initContainers")):
        return new
    containers = _resize_only(spec.get("containers"), old_spec.get("containers"))
    init_containers = _resize_only(spec.get("initContainers"), old_spec.get("initContainers"))
    kept = copy.deepcopy(old_spec)
    if spec.get("resources") is not None:
        kept["resources"] = spec["resources"]
    else:
        kept.pop("resources", None)
    for key, value in (("containers", containers), ("initContainers", init_containers)):
        if value:
            kept[key] = value
        else:
            kept.pop(key, None)
    meta = dict(new.get("metadata") or {})
    old_meta = old.get("metadata") or {}
    for name in ("deletionTimestamp", "generation", "selfLink", "labels", "annotations", "finalizers",
                 "ownerReferences"):
        if name in old_meta:
            meta[name] = old_meta[name]
        else:
            meta.pop(name, None)
    prepared = {**new, "metadata": meta, "spec": kept}
    if "status" in old:
        prepared["status"] = old["status"]
    else:
        prepared.pop("status", None)
    return prepared


def _resize_only(new: Any, old: Any) -> Any:
    """dropNonResizeUpdatesForContainers."""
    if not new:
        return new
    merged = [dict(c) for c in old or ()]
    for i, container in enumerate(new):
        if merged[i].get("name") != (container or {}).get("name"):
            return new
        for name in ("resources", "resizePolicy"):
            if (container or {}).get(name) is not None:
                merged[i][name] = container[name]
            else:
                merged[i].pop(name, None)
    return merged


# -- validation -----------------------------------------------------------------------------------------

def validate_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidatePodResize, after the object metadata's update rules (judged by the caller)."""
    found = pod_validation.pod(new, old)
    old_meta, old_spec, spec = old.get("metadata") or {}, old.get("spec") or {}, new.get("spec") or {}
    if _MIRROR_POD in (old_meta.get("annotations") or {}):
        return [field.forbidden("", "static pods cannot be resized")]
    if (old_spec.get("os") or {}).get("name") == "windows":
        return [field.forbidden("", "windows pods cannot be resized")]
    old_qos = (old.get("status") or {}).get("qosClass") or compute_qos(old_spec)
    if old_qos != compute_qos(spec):
        found.append(field.invalid("spec", (new.get("status") or {}).get("qosClass") or "",
                                   "Pod QOS Class may not change as a result of resizing"))
    if not _resize_supported(old):
        found.append(field.forbidden("spec", "Pod running on node without support for resize"))
    spec_copy = copy.deepcopy(spec)
    if _pod_level_set(old_spec) or _pod_level_set(spec):
        found += _pod_level_resize(spec, old_spec, spec_copy)
    if ((old.get("status") or {}).get("nodeAllocatableResourceClaimStatuses")):
        found.append(field.forbidden("spec", "pods with node allocatable resource claims cannot be resized"))
    ordering = _ordering(spec, old_spec)
    found += ordering
    if ordering:
        return found
    # InPlacePodVerticalScalingInitContainers (beta in 1.36): every init container's resources are checked
    for key in ("initContainers", "containers"):
        for i, before in enumerate(old_spec.get(key) or ()):
            found += _container_resize((spec[key][i] or {}).get("resources") or {}, before.get("resources") or {},
                                       f"spec.{key}[{i}].resources")
    containers = []
    for i, container in enumerate(spec_copy.get("containers") or ()):
        masked = _without_cpu_memory_changes(container, old_spec["containers"][i])
        if not _same(masked, old_spec["containers"][i]):
            found.append(field.forbidden("spec", "only cpu and memory resources are mutable"))
        containers.append(masked)
    if containers:
        spec_copy["containers"] = containers
    init_containers = []
    for i, container in enumerate(spec_copy.get("initContainers") or ()):
        before = old_spec["initContainers"][i]
        restartable = container.get("restartPolicy") == "Always"
        modified = not _same(container, before)
        masked = _without_cpu_memory_changes(container, before)
        if not _same(masked, before):
            found.append(field.forbidden(f"spec.initContainers[{i}]",
                                         "only cpu and memory resources for init or sidecar containers are mutable"))
        if modified and not restartable:
            found += [field.forbidden(f"spec.initContainers[{i}]", "non-sidecar init containers with a resize "
                                      "policy of RestartContainer cannot be resized")
                      for policy in masked.get("resizePolicy") or () if policy.get("restartPolicy") == "RestartContainer"]
        init_containers.append(masked)
    if init_containers:
        spec_copy["initContainers"] = init_containers
    if found:
        return found
    if not _same(spec_copy, old_spec):
        found.append(field.forbidden("spec", "only cpu and memory resources are mutable"))
    return found


def _semantic(value: Any) -> Any:
    """apiequality.Semantic's view: an empty or null list or map is no value at all."""
    if isinstance(value, dict):
        return {k: _semantic(v) for k, v in value.items() if v not in (None, {}, [])}
    if isinstance(value, list):
        return [_semantic(v) for v in value]
    return value


def _same(a: Any, b: Any) -> bool:
    return bool(_semantic(a) == _semantic(b))


def _resize_supported(pod: Obj) -> bool:
    """isPodResizeRequestSupported: a running container shows its resources where the node can resize."""
    for status in (pod.get("status") or {}).get("containerStatuses") or ():
        if ((status or {}).get("state") or {}).get("running") is not None:
            return status.get("resources") is not None
    return True


def _pod_level_set(spec: Obj) -> bool:
    resources = spec.get("resources")
    return isinstance(resources, dict) and bool(resources.get("requests") or resources.get("limits"))


def _pod_level_resize(spec: Obj, old_spec: Obj, spec_copy: Obj) -> list[FieldError]:
    """validatePodLevelResourcesResize."""
    new, old = spec.get("resources"), old_spec.get("resources")
    if old is not None and new is None:
        return [field.forbidden("spec.resources", "pod-level resources cannot be removed")]
    found = []
    if old is not None:
        if _removed((new or {}).get("requests"), old.get("requests")):
            found.append(field.forbidden("spec.resources.requests", "pod-level resource requests cannot be removed"))
        if _removed((new or {}).get("limits"), old.get("limits")):
            found.append(field.forbidden("spec.resources.limits", "pod-level resource limits cannot be removed"))
    masked = _masked_requirements(spec_copy.get("resources"), old)
    if masked is None:
        spec_copy.pop("resources", None)
    else:
        spec_copy["resources"] = masked
    if not _same(masked, old):
        found.append(field.forbidden("spec", "only cpu and memory resources are mutable at pod-level"))
    return found


def _masked_requirements(resources: Any, old: Any) -> Any:
    """dropCPUMemoryResourceRequirementsUpdates: an emptied block is dropped when the old had none."""
    if resources is None:
        return None
    old = old or {}
    masked = dict(resources)
    for name in ("requests", "limits"):
        kept = _masked(resources.get(name), old.get(name))
        if kept is None:
            masked.pop(name, None)
        else:
            masked[name] = kept
    if not old and not masked.get("requests") and not masked.get("limits") and not masked.get("claims"):
        return None
    return masked


def _ordering(spec: Obj, old_spec: Obj) -> list[FieldError]:
    """validatePodResizeContainerOrdering."""
    found = []
    for key in ("containers", "initContainers"):
        new, old = spec.get(key) or (), old_spec.get(key) or ()
        if len(new) != len(old):
            found.append(field.forbidden(f"spec.{key}", f"{key} may not be added or removed on resize"))
            continue
        found += [field.forbidden(f"spec.{key}[{i}].name", f"{key} may not be renamed or reordered on resize")
                  for i, before in enumerate(old) if (new[i] or {}).get("name") != before.get("name")]
    return found


def _container_resize(new: Obj, old: Obj, path: str) -> list[FieldError]:
    """validateContainerResize: nothing stated before may be dropped."""
    found = []
    if _removed(new.get("requests"), old.get("requests")):
        found.append(field.forbidden(f"{path}.requests", "resource requests cannot be removed"))
    if _removed(new.get("limits"), old.get("limits")):
        found.append(field.forbidden(f"{path}.limits", "resource limits cannot be removed"))
    return found


def _removed(new: Any, old: Any) -> bool:
    new, old = new or {}, old or {}
    return len(old) > len(new) or any(name not in new for name in old)


def _masked(values: Any, old: Any) -> Any:
    """dropCPUMemoryUpdates: the list with cpu and memory as they were."""
    if values is None and old is None:
        return None
    masked = {name: value for name, value in (values or {}).items() if name not in _CPU_MEMORY}
    for name in _CPU_MEMORY:
        if name in (old or {}):
            masked[name] = old[name]
    return masked


def _without_cpu_memory_changes(container: Obj, old: Obj) -> Obj:
    """dropCPUMemoryResourcesFromContainer."""
    resources = container.get("resources") or {}
    old_resources = old.get("resources") or {}
    masked: Obj = {}
    for name in ("limits", "requests"):
        kept = _masked(resources.get(name), old_resources.get(name))
        if kept:
            masked[name] = kept
    result = dict(container)
    if masked or "resources" in old:
        result["resources"] = masked
    else:
        result.pop("resources", None)
    return result
