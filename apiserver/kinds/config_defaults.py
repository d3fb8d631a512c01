"""Defaulting of the kinds that configure the cluster rather than run workloads: CSI drivers, device
claims, network policies, limit ranges, priority classes, API priority and fairness, APIServices.

Upstream's SetDefaults_* functions for them (pkg/apis/*/v1/defaults.go), as pure functions on decoded
objects; a null spec is Go's zero value, defaulted like an absent one.
"""

from __future__ import annotations

from typing import Any, Callable

Obj = dict[str, Any]


def _spec(obj: Obj) -> Obj:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    return spec


def _csi_driver(obj: Obj) -> None:
    spec = _spec(obj)
    spec.setdefault("attachRequired", True)
    spec.setdefault("podInfoOnMount", False)
    spec.setdefault("volumeLifecycleModes", ["Persistent"])
    spec.setdefault("storageCapacity", False)
    spec.setdefault("fsGroupPolicy", "ReadWriteOnceWithFSType")
    spec.setdefault("requiresRepublish", False)
    spec.setdefault("seLinuxMount", False)


def _device_requests(requests: Any) -> None:
    for request in requests or ():
        if not isinstance(request, dict):
            continue
        for exact in [request.get("exactly")] + [sub for sub in request.get("firstAvailable") or ()]:
            if isinstance(exact, dict):
                exact.setdefault("allocationMode", "ExactCount")
                if exact["allocationMode"] == "ExactCount":
                    exact.setdefault("count", 1)


def _resource_claim(obj: Obj) -> None:
    _device_requests(((obj.get("spec") or {}).get("devices") or {}).get("requests"))


def _resource_claim_template(obj: Obj) -> None:
    spec = (obj.get("spec") or {}).get("spec") or {}
    _device_requests((spec.get("devices") or {}).get("requests"))


def _network_policy(obj: Obj) -> None:
    spec = _spec(obj)
    for direction in ("ingress", "egress"):
        for rule in spec.get(direction) or ():
            for port in (rule or {}).get("ports") or () if isinstance(rule, dict) else ():
                if isinstance(port, dict):
                    port.setdefault("protocol", "TCP")
    if not spec.get("policyTypes"):
        # A policy with egress rules restricts egress too; every policy restricts ingress.
        spec["policyTypes"] = ["Ingress", "Egress"] if spec.get("egress") else ["Ingress"]


def _limit_range(obj: Obj) -> None:
    """A container's default limit is the max, its default request the default limit, else the min."""
    for item in _spec(obj).get("limits") or ():
        if not isinstance(item, dict) or item.get("type") != "Container":
            continue
        limit = dict(item.get("default") or {})
        request = dict(item.get("defaultRequest") or {})
        for key, value in (item.get("max") or {}).items():
            limit.setdefault(key, value)
        for source in (limit, item.get("min") or {}):
            for key, value in source.items():
                request.setdefault(key, value)
        if limit:
            item["default"] = dict(sorted(limit.items()))
        if request:
            item["defaultRequest"] = dict(sorted(request.items()))


def _api_service(obj: Obj) -> None:
    service = (obj.get("spec") or {}).get("service")
    if isinstance(service, dict):
        service.setdefault("port", 443)


def _priority_class(obj: Obj) -> None:
    obj.setdefault("preemptionPolicy", "PreemptLowerPriority")


def _flow_schema(obj: Obj) -> None:
    spec = _spec(obj)
    if not spec.get("matchingPrecedence"):
        spec["matchingPrecedence"] = 1000


def _priority_level(obj: Obj) -> None:
    spec = _spec(obj)
    limited, exempt = spec.get("limited"), spec.get("exempt")
    if isinstance(limited, dict):
        limited.setdefault("nominalConcurrencyShares", 30)
        limited.setdefault("lendablePercent", 0)
        queuing = (limited.get("limitResponse") or {}).get("queuing")
        if isinstance(queuing, dict):
            for key, value in (("queues", 64), ("handSize", 8), ("queueLengthLimit", 50)):
                if not queuing.get(key):
                    queuing[key] = value
    if isinstance(exempt, dict):
        exempt.setdefault("nominalConcurrencyShares", 0)
        exempt.setdefault("lendablePercent", 0)


DEFAULTERS: dict[str, Callable[[Obj], None]] = {
    "CSIDriver": _csi_driver, "ResourceClaim": _resource_claim, "ResourceClaimTemplate": _resource_claim_template,
    "NetworkPolicy": _network_policy, "LimitRange": _limit_range, "APIService": _api_service,
    "PriorityClass": _priority_class, "FlowSchema": _flow_schema, "PriorityLevelConfiguration": _priority_level,
}
