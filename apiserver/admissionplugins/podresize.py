"""PodResizeValidator (plugin/pkg/admission/podresize): a resize of a pod bound to a node must fit the node.

On an update of pods/resize that changed the spec (a new generation) of a pod with a nodeName: the node
must exist, be a Linux node (or not say), and have at least the pod's new cpu and memory requests
(upstream's PodRequests: containers, sidecars, the largest init container, pod-level resources and
overhead) allocatable. A refusal for the platform or the capacity names it as a cause.
"""

from __future__ import annotations

from collections.abc import Callable

from apiserver.admissionplugins.limitranger import pod_totals
from apiserver.admissionplugins.request import Obj, Request
from apiserver.errors import ApiError
from apiserver.kinds import quantity


def applies(request: Request) -> bool:
    return request.operation == "UPDATE" and not request.group and request.resource == "pods" \
        and request.subresource == "resize"


def validate(request: Request, node_named: Callable[[str], Obj | None]) -> None:
    if not applies(request) or request.obj is None or request.old is None:
        return
    node_name = (request.obj.get("spec") or {}).get("nodeName")
    if not node_name:
        return
    if (request.old.get("metadata") or {}).get("generation") == (request.obj.get("metadata") or {}).get("generation"):
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
