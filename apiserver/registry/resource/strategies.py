"""resource.k8s.io/v1: device claims' defaulting (pkg/apis/resource/v1/defaults.go) and the group's
strategies (pkg/registry/resource/<kind>/strategy.go)."""

from __future__ import annotations

from typing import Any

from apiserver.registry.resource import slice_validation, validation
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]


def _device_requests(requests: Any) -> None:
    for request in requests or ():
        if not isinstance(request, dict):
            continue
        for exact in [request.get("exactly")] + [sub for sub in request.get("firstAvailable") or ()]:
            if isinstance(exact, dict):
                if not exact.get("allocationMode"):
                    exact["allocationMode"] = "ExactCount"
                if exact["allocationMode"] == "ExactCount" and not exact.get("count"):
                    exact["count"] = 1


def _default_resource_claim(obj: Obj) -> None:
    _device_requests(((obj.get("spec") or {}).get("devices") or {}).get("requests"))


def _default_resource_claim_template(obj: Obj) -> None:
    spec = (obj.get("spec") or {}).get("spec") or {}
    _device_requests((spec.get("devices") or {}).get("requests"))


STRATEGIES: dict[str, Strategy] = {
    "ResourceClaim": KindStrategy(
        default=_default_resource_claim,
        returns_deleted_object=True,
        validate=validation.resource_claim,
        validate_update=validation.resource_claim_update,
    ),
    "ResourceClaimTemplate": KindStrategy(
        default=_default_resource_claim_template,
        returns_deleted_object=True,
        validate=validation.resource_claim_template,
        validate_update=validation.resource_claim_template_update,
    ),
    "DeviceClass": KindStrategy(
        checks_generate_name=False, returns_deleted_object=True, validate=validation.device_class
    ),
    "ResourceSlice": KindStrategy(
        returns_deleted_object=True,
        validate=slice_validation.resource_slice,
        validate_update=slice_validation.resource_slice_update,
    ),
}
