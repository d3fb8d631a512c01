"""resource.k8s.io/v1: device claims' defaulting (pkg/apis/resource/v1/defaults.go) and the group's
strategies (pkg/registry/resource/<kind>/strategy.go)."""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field, meta
from apiserver.registry.hooks import Cluster
from apiserver.registry.resource import claim_status, slice_validation, validation
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]


def _tolerations(tolerations: Any) -> None:
    for toleration in tolerations if isinstance(tolerations, list) else ():
        if isinstance(toleration, dict) and not toleration.get("operator"):
            toleration["operator"] = "Equal"


def _device_requests(requests: Any) -> None:
    """SetDefaults_ExactDeviceRequest and SetDefaults_DeviceSubRequest, with the generated defaulter's
    Equal for a device toleration's operator."""
    for request in requests or ():
        if not isinstance(request, dict):
            continue
        for exact in [request.get("exactly")] + [sub for sub in request.get("firstAvailable") or ()]:
            if isinstance(exact, dict):
                if not exact.get("allocationMode"):
                    exact["allocationMode"] = "ExactCount"
                if exact["allocationMode"] == "ExactCount" and not exact.get("count"):
                    exact["count"] = 1
                _tolerations(exact.get("tolerations"))


def _default_resource_claim(obj: Obj) -> None:
    _device_requests(((obj.get("spec") or {}).get("devices") or {}).get("requests"))
    allocation = (obj.get("status") or {}).get("allocation")
    if isinstance(allocation, dict):
        for result in (allocation.get("devices") or {}).get("results") or ():
            if isinstance(result, dict):
                _tolerations(result.get("tolerations"))


def _default_resource_claim_template(obj: Obj) -> None:
    spec = (obj.get("spec") or {}).get("spec") or {}
    _device_requests((spec.get("devices") or {}).get("requests"))


def _default_resource_slice(obj: Obj) -> None:
    """SetDefaults_DeviceTaint: a device's taint without timeAdded gets now, to the second.
    (SetDefaults_Device's allocation multipliers are left: their field is dropped with its alpha gate.)"""
    for device in _devices(obj):
        for taint in device.get("taints") or ():
            if isinstance(taint, dict) and taint.get("timeAdded") is None:
                taint["timeAdded"] = meta.now()


ADMIN_NAMESPACE_LABEL = "resource.kubernetes.io/admin-access"


def _authorized_for_admin(requests: Any, namespace: str, cluster: Cluster) -> list[FieldError]:
    """AuthorizedForAdmin (pkg/registry/resource/utils.go): a request for admin access to devices (only
    an `exactly` request may ask) needs its namespace labelled for it."""
    at = next((f"spec.devices.requests[{i}].adminAccess" for i, request in enumerate(requests or ())
               if isinstance(request, dict) and isinstance(request.get("exactly"), dict)
               and request["exactly"].get("adminAccess") is True), None)
    if at is None:
        return []
    ns = cluster.get("namespaces", "", namespace)
    if ns is None:
        # (NamespaceLifecycle refused the write before this could be reached)
        return [FieldError("InternalError", at, "Internal error: could not retrieve namespace to verify admin "
                           f'access: namespaces "{namespace}" not found')]
    if ((ns.get("metadata") or {}).get("labels") or {}).get(ADMIN_NAMESPACE_LABEL) != "true":
        return [field.forbidden(at, f"admin access to devices requires the `{ADMIN_NAMESPACE_LABEL}: true` label "
                                    "on the containing namespace")]
    return []


def _claim_admin_access(obj: Obj, cluster: Cluster) -> list[FieldError]:
    requests = ((obj.get("spec") or {}).get("devices") or {}).get("requests")
    return _authorized_for_admin(requests, str(obj["metadata"].get("namespace") or ""), cluster)


def _template_admin_access(obj: Obj, cluster: Cluster) -> list[FieldError]:
    requests = (((obj.get("spec") or {}).get("spec") or {}).get("devices") or {}).get("requests")
    return _authorized_for_admin(requests, str(obj["metadata"].get("namespace") or ""), cluster)


_LIST_ATTRIBUTES = ("bools", "ints", "strings", "versions")


def _devices(slice_obj: Obj | None) -> list[Obj]:
    spec = (slice_obj or {}).get("spec")
    devices = spec.get("devices") if isinstance(spec, dict) else None
    return [d for d in devices if isinstance(d, dict)] if isinstance(devices, list) else []


def _drop_disabled_slice_fields(new: Obj, old: Obj | None) -> None:
    """resourceslice's dropDisabledFields for the gates off at 1.36 (DRANodeAllocatableResources and
    DRAListTypeAttributes, both alpha): their fields are dropped unless the old slice used them."""
    devices, old_devices = _devices(new), _devices(old)
    if not any(d.get("nodeAllocatableResourceMappings") for d in old_devices):
        for device in devices:
            device.pop("nodeAllocatableResourceMappings", None)
    in_use = any(
        isinstance(a, dict) and any(a.get(k) is not None for k in _LIST_ATTRIBUTES)
        for d in old_devices
        for a in (d.get("attributes") or {}).values()
    )
    if not in_use:
        for device in devices:
            for attribute in (device.get("attributes") or {}).values():
                for key in _LIST_ATTRIBUTES:
                    if isinstance(attribute, dict):
                        attribute.pop(key, None)


def _prepare_slice_update(new: Obj, old: Obj) -> None:
    """resourceslice's PrepareForUpdate: any change of the spec as sent bumps the generation, before the
    disabled fields are dropped (so a change to a dropped field bumps it too)."""
    if new.get("spec") != old.get("spec"):
        new["metadata"]["generation"] = int(old["metadata"].get("generation") or 0) + 1
    _drop_disabled_slice_fields(new, old)


STRATEGIES: dict[str, Strategy] = {
    "ResourceClaim": KindStrategy(
        default=_default_resource_claim,
        validate_in_cluster=_claim_admin_access,
        returns_deleted_object=True,
        validate=validation.resource_claim,
        validate_update=validation.resource_claim_update,
        prepare_for_status_update=claim_status.prepare_status_update,
        validate_subresource_in_cluster=claim_status.validate_status_in_cluster,
        validate_subresource_update=claim_status.validate_status_update,
        status_keeps_metadata=True,
        reset_fields=(("status", (("f:metadata",), ("f:spec",))),),
    ),
    "ResourceClaimTemplate": KindStrategy(
        default=_default_resource_claim_template,
        validate_in_cluster=_template_admin_access,
        returns_deleted_object=True,
        validate=validation.resource_claim_template,
        validate_update=validation.resource_claim_template_update,
    ),
    "DeviceClass": KindStrategy(
        checks_generate_name=False, returns_deleted_object=True, validate=validation.device_class,
        name_rule=meta.long_name,
    ),
    "ResourceSlice": KindStrategy(
        default=_default_resource_slice,
        prepare_for_create=lambda obj: _drop_disabled_slice_fields(obj, None),
        prepare_for_update=_prepare_slice_update,
        returns_deleted_object=True,
        validate=slice_validation.resource_slice,
        validate_update=slice_validation.resource_slice_update,
    ),
}
