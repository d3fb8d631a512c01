"""Resource requirements of containers, pods and a pod's overhead: validateResourceRequirements (with the
container and the pod-level resource name rules), validateResourceClaimNames, validateOverhead and
validatePodResources with validatePodResourceConsistency of pkg/apis/core/validation/validation.go.

Huge page amounts must divide by their page size (AllowIndivisibleHugePagesValues is only ever set for an
old pod that had such a value, which this server never stored). Pod-level resources are judged as their
gate (PodLevelResources, beta and on at 1.36) asks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import quantity as quantities
from apiserver.kinds.validation import dns1123_label
from apiserver.registry import field
from apiserver.registry.core import resource_names
from apiserver.registry.core.resource_names import container_resource_name, parsed, resource_name

Obj = dict[str, Any]
NameRule = Callable[[str, str], list[FieldError]]

_POD_LEVEL_RESOURCES = ("cpu", "hugepages-", "memory")


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _huge_page_divisible(name: str, amount: quantities.Quantity) -> bool:
    """helper.IsHugePageResourceValueDivisible."""
    page = parsed(name.removeprefix("hugepages-"))
    if page is None or page.value <= 0 or page.milli_value() % 1000:
        return False
    return amount.int_value() % page.int_value() == 0


def _huge_page_value(name: str, amount: quantities.Quantity, path: str) -> list[FieldError]:
    if resource_names.is_huge_pages(name) and not _huge_page_divisible(name, amount):
        return [field.invalid(path, str(amount), f"{amount} is not positive integer multiple of {name}")]
    return []


def pod_resource_name(name: str, path: str) -> list[FieldError]:
    """validatePodResourceName: cpu, memory and huge pages only."""
    found = resource_name(name, path)
    if found:
        return found
    if name not in ("cpu", "memory") and not resource_names.is_huge_pages(name):
        return [field.not_supported(path, name, _POD_LEVEL_RESOURCES)]
    return []


def resource_requirements(requirements: Obj, name_rule: NameRule, claim_names: set[str],
                          path: str) -> list[FieldError]:
    """validateResourceRequirements."""
    limits, requests = _dict(requirements.get("limits")), _dict(requirements.get("requests"))
    found: list[FieldError] = []
    limit_compute = request_compute = limit_huge = request_huge = False
    for name, written in limits.items():
        at = f"{path}.limits[{name}]"
        found += name_rule(name, at)
        found += resource_names.quantity_value(name, written, at)
        amount = parsed(written)
        if resource_names.is_huge_pages(name):
            limit_huge = True
            found += _huge_page_value(name, amount, at) if amount is not None else []
        limit_compute = limit_compute or name in ("cpu", "memory")
    for name, written in requests.items():
        at = f"{path}.requests[{name}]"
        found += name_rule(name, at)
        found += resource_names.quantity_value(name, written, at)
        amount = parsed(written)
        if name in limits:
            limit = parsed(limits[name])
            if amount is not None and limit is not None:
                if amount.value != limit.value and not resource_names.overcommit_allowed(name):
                    found.append(field.invalid(f"{path}.requests", str(amount),
                                               f"must be equal to {name} limit of {limit}"))
                elif amount.value > limit.value:
                    found.append(field.invalid(f"{path}.requests", str(amount),
                                               f"must be less than or equal to {name} limit of {limit}"))
        elif not resource_names.overcommit_allowed(name):
            found.append(field.required(f"{path}.limits", "Limit must be set for non overcommitable resources"))
        if resource_names.is_huge_pages(name):
            request_huge = True
            found += _huge_page_value(name, amount, at) if amount is not None else []
        request_compute = request_compute or name in ("cpu", "memory")
    if not limit_compute and not request_compute and (request_huge or limit_huge):
        found.append(field.forbidden(path, "HugePages require cpu or memory"))
    return found + resource_claim_names(requirements.get("claims"), claim_names, f"{path}.claims")


def container_resource_requirements(requirements: Any, claim_names: set[str], path: str) -> list[FieldError]:
    """ValidateContainerResourceRequirements."""
    return resource_requirements(_dict(requirements), container_resource_name, claim_names, path)


def resource_claim_names(claims: Any, pod_claims: set[str], path: str) -> list[FieldError]:
    """validateResourceClaimNames: each claim (or one of its requests) named once, and one of the pod's."""
    found: list[FieldError] = []
    names: set[str] = set()
    for i, claim in enumerate(claims or ()):
        at = f"{path}[{i}]"
        claim = _dict(claim)
        name, request = str(claim.get("name") or ""), str(claim.get("request") or "")
        if not name:
            found.append(field.required(at))
            continue
        if name in names:
            found.append(field.duplicate(at, name))
        else:
            key = name
            if request:
                found += [field.invalid(f"{at}.request", request, msg)
                          for msg in dns1123_label(request)]
                key += "/" + request
            if key in names:
                found.append(field.duplicate(at, key))
            elif not request:
                found += [field.duplicate(at, name) for seen in names if "/" in seen and seen.split("/", 1)[0] == name]
            names.add(key)
        if name not in pod_claims:
            detail = "must be one of the names in pod.spec.resourceClaims"
            detail += " which is empty" if not pod_claims else ": " + ", ".join(sorted(pod_claims))
            found.append(FieldError("FieldValueNotFound", at, f"Not found: {field.go_value(name)}: {detail}"))
    return found


def overhead(limits: Any, path: str) -> list[FieldError]:
    """validateOverhead: the overhead judged as a container's limits."""
    return resource_requirements({"limits": _dict(limits)}, container_resource_name, set(), path)


# -- pod-level resources -------------------------------------------------------------------------


def _add(total: dict[str, quantities.Quantity], more: Obj) -> None:
    for name, written in more.items():
        amount = parsed(written)
        if amount is not None:
            total[name] = total[name] + amount if name in total else amount


def _at_least(total: dict[str, quantities.Quantity], other: dict[str, quantities.Quantity]) -> None:
    for name, amount in other.items():
        if name not in total or amount.value > total[name].value:
            total[name] = amount


def aggregate(spec: Obj, kind: str) -> dict[str, quantities.Quantity]:
    """resourcehelper.AggregateContainerRequests (or ...Limits) of a pod without status: the containers'
    sum, sidecars added, at least the largest init container's need."""
    total: dict[str, quantities.Quantity] = {}
    for c in spec.get("containers") or ():
        _add(total, _dict(_dict(_dict(c).get("resources")).get(kind)))
    sidecars: dict[str, quantities.Quantity] = {}
    init_need: dict[str, quantities.Quantity] = {}
    for c in spec.get("initContainers") or ():
        own = _dict(_dict(_dict(c).get("resources")).get(kind))
        if _dict(c).get("restartPolicy") == "Always":
            _add(total, own)
            _add(sidecars, own)
            need = dict(sidecars)
        else:
            need = dict(sidecars)
            _add(need, own)
        _at_least(init_need, need)
    _at_least(total, init_need)
    return total


def _consistency(spec: Obj, resources: Obj, path: str) -> list[FieldError]:
    """validatePodResourceConsistency."""
    found: list[FieldError] = []
    pod_requests, pod_limits = _dict(resources.get("requests")), _dict(resources.get("limits"))
    for name, needed in aggregate(spec, "requests").items():
        own = parsed(pod_requests[name]) if name in pod_requests else None
        if own is not None and needed.value > own.value:
            found.append(field.invalid(f"{path}.requests[{name}]", str(own),
                                       f"must be greater than or equal to aggregate container requests of {needed}"))
    for name, needed in aggregate(spec, "limits").items():
        own = parsed(pod_limits[name]) if name in pod_limits else None
        if resource_names.is_huge_pages(name) and own is not None and needed.value > own.value:
            found.append(field.invalid(f"{path}.limits[{name}]", str(own),
                                       f"must be greater than or equal to aggregate container limits of {needed}"))
    for i, c in enumerate(spec.get("containers") or ()):
        for name, written in _dict(_dict(_dict(c).get("resources")).get("limits")).items():
            limit, own = parsed(written), parsed(pod_limits[name]) if name in pod_limits else None
            if limit is not None and own is not None and limit.value > own.value:
                found.append(field.invalid(f"{path}.containers[{i}][{name}].limits", str(limit),
                                           f"must be less than or equal to pod limits of {own}"))
    return found


def pod_resources(spec: Obj, claim_names: set[str], path: str) -> list[FieldError]:
    """validatePodResources."""
    resources = spec.get("resources")
    if not isinstance(resources, dict):
        return []
    at = f"{path}.resources"
    if _dict(spec.get("os")).get("name") == "windows":
        return [field.forbidden(at, "may not be set for a windows pod")]
    found: list[FieldError] = []
    if resources.get("claims") is not None:
        found.append(field.forbidden(f"{at}.claims", "claims may not be set for Resources at pod-level"))
    found += resource_requirements(resources, pod_resource_name, claim_names, at)
    return found + _consistency(spec, resources, at)
