"""LimitRanger (plugin/pkg/admission/limitranger): a namespace's LimitRanges default and bound what its
pods and claims ask for.

Mutating, on pod creates: each `Container` limit's `default` and `defaultRequest` fill the resources a
container (then an init container) leaves unset, and the pod is annotated with what was set. Validating,
on pod creates and on claim creates and updates: `min`, `max` and `maxLimitRequestRatio` per Container
(every container, then every init container), per Pod (the pod's effective requests and limits, sidecars
and pod-level resources counted as upstream's podRequests does), and `min`/`max` of a claim's storage
request. A pod update, any subresource but pods/resize, and an object being deleted are left alone.
The LimitRanges are taken in the order the lister gives them: by name.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from apiserver.admissionplugins.request import Obj, Request
from apiserver.errors import aggregate
from apiserver.kinds import quantity
from apiserver.kinds.quantity import MAX_MILLI_VALUE, Quantity

ANNOTATION = "kubernetes.io/limit-ranger"
ResourceList = dict[str, Quantity]
# resources with pod-level values under the PodLevelResources gate (beta, on by default in 1.36)
_POD_LEVEL = ("cpu", "memory")


def applies(request: Request) -> bool:
    """SupportsAttributes: pods and claims, no subresource but a pod's resize, no pod updates."""
    if request.group or request.resource not in ("pods", "persistentvolumeclaims"):
        return False
    if request.resource == "pods" and request.subresource == "resize":
        return request.operation == "UPDATE"
    if request.subresource or request.operation not in ("CREATE", "UPDATE"):
        return False
    if request.resource == "pods" and request.operation == "UPDATE":
        return False
    return not ((request.old or {}).get("metadata") or {}).get("deletionTimestamp")


def mutate(request: Request, limit_ranges: Iterable[Obj]) -> None:
    if not applies(request) or request.resource != "pods" or request.obj is None:
        return
    for limit_range in limit_ranges:
        _default_pod(request.obj, limit_range)


def validate(request: Request, limit_ranges: Iterable[Obj]) -> None:
    """Raises upstream's 403 for the first LimitRange the object breaks."""
    if not applies(request) or request.obj is None:
        return
    check = _pod_errors if request.resource == "pods" else _claim_errors
    for limit_range in limit_ranges:
        errors = check(request.obj, limit_range)
        if errors:
            raise request.forbidden(aggregate(errors))


def _items(limit_range: Obj) -> list[Obj]:
    return [item for item in (limit_range.get("spec") or {}).get("limits") or () if isinstance(item, dict)]


def _resources(values: Any) -> ResourceList:
    return {name: quantity.parse(value) for name, value in (values or {}).items()}


# -- defaults ----------------------------------------------------------------------------------------

def _default_pod(pod: Obj, limit_range: Obj) -> None:
    requests: dict[str, Any] = {}
    limits: dict[str, Any] = {}
    for item in _items(limit_range):
        if item.get("type") == "Container":
            requests.update(item.get("defaultRequest") or {})
            limits.update(item.get("default") or {})
    notes: list[str] = []
    spec = pod.get("spec") or {}
    for key, label in (("containers", "container"), ("initContainers", "init container")):
        for container in spec.get(key) or ():
            notes.extend(_default_container(container, requests, limits, label))
    if notes:
        annotations = pod["metadata"].setdefault("annotations", {})
        annotations[ANNOTATION] = "LimitRanger plugin set: " + "; ".join(notes)


def _default_container(container: Obj, requests: dict[str, Any], limits: dict[str, Any], label: str) -> list[str]:
    resources = container.setdefault("resources", {})
    added: dict[str, list[str]] = {}
    for field, defaults in (("limits", limits), ("requests", requests)):
        current = resources.get(field) or {}
        added[field] = sorted(name for name in defaults if name not in current)
        if added[field]:
            merged = {**current, **{name: str(quantity.parse(defaults[name])) for name in added[field]}}
            resources[field] = dict(sorted(merged.items()))
    name = container.get("name") or ""
    return [f"{', '.join(added[field])} {word} for {label} {name}"
            for field, word in (("requests", "request"), ("limits", "limit")) if added[field]]


# -- constraints ---------------------------------------------------------------------------------------

def _compared(request: Quantity | None, limit: Quantity | None, enforced: Quantity) -> tuple[int, int, int]:
    """requestLimitEnforcedValues: milli-units unless one of them would overflow them."""
    values = [q or quantity.ZERO for q in (request, limit)] + [enforced]
    if all(v.int_value() <= MAX_MILLI_VALUE for v in values):
        return values[0].milli_value(), values[1].milli_value(), values[2].milli_value()
    return values[0].int_value(), values[1].int_value(), values[2].int_value()


def _min(kind: str, name: str, enforced: Quantity, requests: ResourceList, limits: ResourceList) -> str | None:
    req, lim = requests.get(name), limits.get(name)
    observed_req, observed_lim, bound = _compared(req, lim, enforced)
    if req is None:
        return f"minimum {name} usage per {kind} is {enforced}.  No request is specified"
    if observed_req < bound:
        return f"minimum {name} usage per {kind} is {enforced}, but request is {req}"
    if lim is not None and observed_lim < bound:
        return f"minimum {name} usage per {kind} is {enforced}, but limit is {lim}"
    return None


def _max(kind: str, name: str, enforced: Quantity, requests: ResourceList, limits: ResourceList) -> str | None:
    req, lim = requests.get(name), limits.get(name)
    observed_req, observed_lim, bound = _compared(req, lim, enforced)
    if lim is None:
        return f"maximum {name} usage per {kind} is {enforced}.  No limit is specified"
    if observed_lim > bound:
        return f"maximum {name} usage per {kind} is {enforced}, but limit is {lim}"
    if req is not None and observed_req > bound:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {req}"
    return None


def _max_request(kind: str, name: str, enforced: Quantity, requests: ResourceList) -> str | None:
    req = requests.get(name)
    observed_req, _, bound = _compared(req, None, enforced)
    if req is None:
        return f"maximum {name} usage per {kind} is {enforced}.  No request is specified"
    if observed_req > bound:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {req}"
    return None


def _ratio(kind: str, name: str, enforced: Quantity, requests: ResourceList, limits: ResourceList) -> str | None:
    req, lim = requests.get(name), limits.get(name)
    observed_req, observed_lim, _ = _compared(req, lim, enforced)
    if req is None or observed_req == 0:
        return (f"{name} max limit to request ratio per {kind} is {enforced}, but no request is specified or "
                "request is 0")
    if lim is None or observed_lim == 0:
        return (f"{name} max limit to request ratio per {kind} is {enforced}, but no limit is specified or "
                "limit is 0")
    ratio = observed_lim / observed_req
    shown, most = ratio, float(enforced.int_value())
    if enforced.int_value() <= MAX_MILLI_VALUE:
        ratio, most = ratio * 1000, float(enforced.milli_value())
    if ratio > most:
        return f"{name} max limit to request ratio per {kind} is {enforced}, but provided ratio is {shown:f}"
    return None


def _bounds(item: Obj, kind: str, requests: ResourceList, limits: ResourceList) -> list[str]:
    found = []
    for field, check in (("min", _min), ("max", _max), ("maxLimitRequestRatio", _ratio)):
        for name, enforced in _resources(item.get(field)).items():
            error = check(kind, name, enforced, requests, limits)
            if error is not None:
                found.append(error)
    return found


def _pod_errors(pod: Obj, limit_range: Obj) -> list[str]:
    spec = pod.get("spec") or {}
    found: list[str] = []
    for item in _items(limit_range):
        kind = item.get("type")
        if kind == "Container":
            for key in ("containers", "initContainers"):
                for container in spec.get(key) or ():
                    resources = container.get("resources") or {}
                    found.extend(_bounds(item, kind, _resources(resources.get("requests")),
                                         _resources(resources.get("limits"))))
        if kind == "Pod":
            found.extend(_bounds(item, kind, pod_totals(spec, "requests"), pod_totals(spec, "limits")))
    return found


def _claim_errors(claim: Obj, limit_range: Obj) -> list[str]:
    requests = _resources(((claim.get("spec") or {}).get("resources") or {}).get("requests"))
    found = []
    for item in _items(limit_range):
        if item.get("type") != "PersistentVolumeClaim":
            continue
        for name, enforced in _resources(item.get("min")).items():
            error = _min("PersistentVolumeClaim", name, enforced, requests, {})
            if error is not None:
                found.append(error)
        for name, enforced in _resources(item.get("max")).items():
            error = _max_request("PersistentVolumeClaim", name, enforced, requests)
            if error is not None:
                found.append(error)
    return found


def pod_totals(spec: Obj, field: str) -> ResourceList:
    """podRequests / podLimits from the spec alone: containers and sidecars add up, each other init
    container (with the sidecars started before it) must fit, and pod-level cpu and memory override."""
    total: ResourceList = {}
    for container in spec.get("containers") or ():
        _add(total, _resources((container.get("resources") or {}).get(field)))
    sidecars: ResourceList = {}
    init: ResourceList = {}
    for container in spec.get("initContainers") or ():
        own = _resources((container.get("resources") or {}).get(field))
        if container.get("restartPolicy") == "Always":
            _add(total, own)
            _add(sidecars, own)
            running = sidecars
        else:
            running = {}
            _add(running, own)
            _add(running, sidecars)
        _max_into(init, running)
    _max_into(total, init)
    pod_level = _resources((spec.get("resources") or {}).get(field))
    for name in _POD_LEVEL:
        if name in pod_level:
            total[name] = pod_level[name]
    return total


def _add(into: ResourceList, values: ResourceList) -> None:
    for name, value in values.items():
        into[name] = into[name] + value if name in into else value


def _max_into(into: ResourceList, values: ResourceList) -> None:
    for name, value in values.items():
        if name not in into or value.value > into[name].value:
            into[name] = value
