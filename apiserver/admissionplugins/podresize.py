"""A resize of a pod bound to a node must fit the node: PodResizeValidator (plugin/pkg/admission/podresize)
and NodeDeclaredFeatureValidator (plugin/pkg/admission/nodedeclaredfeatures, beta in 1.36).

PodResizeValidator, on an update of pods/resize that changed the spec (a new generation) of a pod with a nodeName: the node
must exist, be a Linux node (or not say), and have at least the pod's new cpu and memory requests
(upstream's PodRequests: containers, sidecars, the largest init container, pod-level resources and
overhead) allocatable. A refusal for the platform or the capacity names it as a cause.

NodeDeclaredFeatureValidator, on an update of a bound pod (or of its pods/resize) that changed the
spec: what the update needs of its node, as the node-declared-features framework infers it (resizing
pod-level resources needs InPlacePodLevelResourcesVerticalScaling, resizing a non-sidecar init
container InPlacePodVerticalScalingInitContainers; no other feature is inferred for updates), must
be among the node's status.declaredFeatures.
"""

from __future__ import annotations

from collections.abc import Callable

from apiserver.admissionplugins.limitranger import pod_totals
from apiserver.admissionplugins.request import Obj, Request
from apiserver.errors import ApiError
from apiserver.kinds import quantity

# The features upstream's framework can infer for an update, by name (the order it reports them in).
_POD_LEVEL_RESIZE = "InPlacePodLevelResourcesVerticalScaling"
_INIT_CONTAINER_RESIZE = "InPlacePodVerticalScalingInitContainers"


def declared_features_apply(request: Request) -> bool:
    return request.operation == "UPDATE" and not request.group and request.resource == "pods" \
        and request.subresource in ("", "resize")


def validate_declared_features(request: Request, node_named: Callable[[str], Obj | None]) -> None:
    if not declared_features_apply(request) or request.obj is None or request.old is None:
        return
    node_name = (request.obj.get("spec") or {}).get("nodeName")
    if not node_name or _same_generation(request):
        return
    needed = _inferred_features(request.old.get("spec") or {}, request.obj.get("spec") or {})
    if not needed:
        return
    node = node_named(node_name)
    if node is None:
        raise request.forbidden(f'node "{node_name}" not found')
    declared = set((node.get("status") or {}).get("declaredFeatures") or ())
    missing = [name for name in needed if name not in declared]
    if missing:
        raise request.forbidden(f"pod update requires features {', '.join(missing)} which are not available on "
                                f'node "{node_name}"')


def _inferred_features(old: Obj, new: Obj) -> list[str]:
    """InferForPodUpdate over the registry's features, in name order."""
    found = []
    if (old.get("resources") is not None or new.get("resources") is not None) and \
            _semantic(old.get("resources")) != _semantic(new.get("resources")):
        found.append(_POD_LEVEL_RESIZE)
    after = new.get("initContainers") or []
    for i, before in enumerate(old.get("initContainers") or ()):
        if before.get("restartPolicy") != "Always" and i < len(after) and \
                (before.get("resources") or {}) != ((after[i] or {}).get("resources") or {}):
            found.append(_INIT_CONTAINER_RESIZE)
            break
    return found


def _semantic(value: object) -> object:
    """apiequality.Semantic: an empty list or map is none."""
    if isinstance(value, dict):
        return {k: _semantic(v) for k, v in value.items() if v not in (None, {}, [])} or None
    return value


def _same_generation(request: Request) -> bool:
    """Generation moves only with the spec, so an update that kept it changed nothing either judges."""
    assert request.obj is not None and request.old is not None
    return (request.old.get("metadata") or {}).get("generation") == (request.obj.get("metadata") or {}).get("generation")


def applies(request: Request) -> bool:
    return request.operation == "UPDATE" and not request.group and request.resource == "pods" \
        and request.subresource == "resize"


def validate(request: Request, node_named: Callable[[str], Obj | None]) -> None:
    if not applies(request) or request.obj is None or request.old is None:
        return
    node_name = (request.obj.get("spec") or {}).get("nodeName")
    if not node_name or _same_generation(request):
        return
    node = node_named(node_name)
    if node is None:
        raise request.forbidden(f'node "{node_name}" not found')
    system = ((node.get("metadata") or {}).get("labels") or {}).get("kubernetes.io/os")
    if system is not None and system != "linux":
        raise _with_cause(request.forbidden(f'pod resize is only supported on linux nodes, node "{node_name}" is '
                                            f'"{system}"'), "UnsupportedPlatform")
    problem = _beyond_allocatable(request.obj, node)
    if problem:
        raise _with_cause(request.forbidden(problem), "NodeCapacity")


def _beyond_allocatable(pod: Obj, node: Obj) -> str | None:
    """validateRequestsWithinAllocatable."""
    spec = pod.get("spec") or {}
    requests = pod_totals(spec, "requests")
    for name, value in (spec.get("overhead") or {}).items():
        overhead = quantity.parse(value)
        requests[name] = requests[name] + overhead if name in requests else overhead
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    cpu, memory = (quantity.parse(allocatable[n]) if n in allocatable else quantity.ZERO for n in ("cpu", "memory"))
    wanted_cpu, wanted_memory = requests.get("cpu", quantity.ZERO), requests.get("memory", quantity.ZERO)
    found = []
    if wanted_cpu.value > cpu.value:
        found.append(f"cpu, requested: {wanted_cpu.milli_value()}, allocatable: {cpu.milli_value()}")
    if wanted_memory.value > memory.value:
        found.append(f"memory, requested: {wanted_memory.int_value()}, allocatable: {memory.int_value()}")
    return "node didn't have enough allocatable resources: " + "; ".join(found) if found else None


def _with_cause(error: ApiError, reason: str) -> ApiError:
    details = dict(error.details or {})
    details["causes"] = [*details.get("causes", []), {"reason": reason}]
    return ApiError(error.code, error.reason, error.message, details)
