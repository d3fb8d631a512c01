"""resource.k8s.io/v1: device claims' defaulting (pkg/apis/resource/v1/defaults.go) and the group's
strategies (pkg/registry/resource/<kind>/strategy.go)."""

from __future__ import annotations

from typing import Any

from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]


def _device_requests(requests: Any) -> None:
    for request in requests or ():
        if not isinstance(request, dict):
            continue
        for exact in [request.get("exactly")] + [sub for sub in request.get("firstAvailable") or ()]:
            if isinstance(exact, dict):
                exact.setdefault("allocationMode", "ExactCount")
                if exact["allocationMode"] == "ExactCount":
                    exact.setdefault("count", 1)


def _default_resource_claim(obj: Obj) -> None:
    _device_requests(((obj.get("spec") or {}).get("devices") or {}).get("requests"))


def _default_resource_claim_template(obj: Obj) -> None:
    spec = (obj.get("spec") or {}).get("spec") or {}
    _device_requests((spec.get("devices") or {}).get("requests"))


STRATEGIES: dict[str, Strategy] = {
    "ResourceClaim": KindStrategy(default=_default_resource_claim, returns_deleted_object=True),
    "ResourceClaimTemplate": KindStrategy(default=_default_resource_claim_template, returns_deleted_object=True),
    "DeviceClass": KindStrategy(checks_generate_name=False, returns_deleted_object=True),
    "ResourceSlice": KindStrategy(returns_deleted_object=True),
}
