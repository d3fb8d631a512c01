"""resourceclaimStatusStrategy (pkg/registry/resource/resourceclaim/strategy.go): what a write of
resourceclaims/status prepares, and the rules of its ValidateUpdate that read the namespace or ask the
authorizer (pkg/registry/resource/utils.go: AuthorizedForAdminStatus, AuthorizedForBinding,
AuthorizedForDeviceStatus), at 1.36's defaults: DRAAdminAccess, DRAResourceClaimDeviceStatus,
DRAConsumableCapacity, DRADeviceBindingConditions and DRAResourceClaimGranularStatusAuthorization are
all on, so dropDisabledStatusFields drops nothing and every check runs.
"""

from __future__ import annotations

from typing import Any

from apiserver.auth.access import Attributes
from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_label, dns1123_subdomain
from apiserver.registry import field
from apiserver.registry.hooks import Cluster, Request
from apiserver.registry.resource import claim_status_validation as rules
from apiserver.registry.resource import gostructs
from apiserver.registry.resource.validation import as_dict, as_list

Obj = dict[str, Any]

ADMIN_NAMESPACE_LABEL = "resource.kubernetes.io/admin-access"
NODE_NAME_EXTRA = "authentication.kubernetes.io/node-name"  # serviceaccount.NodeNameKey
_SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
_GROUP, _CLAIMS = "resource.k8s.io", "resourceclaims"  # whose synthetic subresources are asked about


def prepare_status_update(new: Obj, old: Obj, now: str) -> None:
    """PrepareForUpdate after the spec and metadata are taken from old: dropDeallocatedStatusDevices,
    the status of devices the old allocation held and the new one does not is dropped."""
    status = as_dict(new.get("status"))
    devices = as_list(status.get("devices"))
    if not devices:
        return
    gone = {rules.shared_device_id(r) for r in _results(as_dict(old.get("status")))}
    gone -= {rules.shared_device_id(r) for r in _results(status)}
    kept = [d for d in devices if rules.shared_device_id(as_dict(d)) not in gone]
    if kept:
        status["devices"] = kept
    else:
        status.pop("devices", None)


def _results(status: Obj) -> list[Obj]:
    devices = as_dict(as_dict(status.get("allocation")).get("devices"))
    return [as_dict(r) for r in as_list(devices.get("results"))]


def _admin_requested(status: Obj) -> str | None:
    """adminRequested: the path of the first result granted admin access."""
    return next((f"status.allocation.devices.results[{i}].adminAccess" for i, result in enumerate(_results(status))
                 if result.get("adminAccess") is True), None)


def authorized_for_admin_status(new: Obj, old: Obj, cluster: Cluster) -> list[FieldError]:
    """AuthorizedForAdminStatus: a new grant of admin access needs the namespace labelled for it; one the
    old allocation held was judged when it was made (the allocation is immutable)."""
    if _admin_requested(as_dict(old.get("status"))) is not None:
        return []
    at = _admin_requested(as_dict(new.get("status")))
    if at is None:
        return []
    namespace = str(new["metadata"].get("namespace") or "")
    ns = cluster.get("namespaces", "", namespace)
    if ns is None:
        return [FieldError("InternalError", at, "Internal error: could not retrieve namespace to verify admin "
                           f'access: namespaces "{namespace}" not found')]
    if (as_dict(as_dict(ns.get("metadata")).get("labels"))).get(ADMIN_NAMESPACE_LABEL) != "true":
        return [field.forbidden(at, f"admin access to devices requires the `{ADMIN_NAMESPACE_LABEL}: true` label "
                                    "on the containing namespace")]
    return []


def authorized_for_binding(new: Obj, old: Obj, request: Request) -> list[FieldError]:
    """AuthorizedForBinding: changing the allocation or reservedFor needs the request's verb on the
    synthetic resourceclaims/binding, cluster-wide and for every name."""
    status, old_status = as_dict(new.get("status")), as_dict(old.get("status"))
    kinds = (("allocation", "*AllocationResult"), ("reservedFor", "[]ResourceClaimConsumerReference"))
    same = all(rules.semantic(gostructs.view(status.get(key), kind))
               == rules.semantic(gostructs.view(old_status.get(key), kind)) for key, kind in kinds)
    if same or request.ask is None:
        return []
    refusal = request.ask(Attributes(request.verb, _GROUP, _CLAIMS, "binding", "", ""))
    if refusal is None:
        return []
    return [field.forbidden("status.allocation", 'changing status.allocation or status.reservedFor requires '
                                                 f'resource="resourceclaims/binding", verb="{request.verb}" '
                                                 f"permission: {refusal}")]


def _modified_drivers(status: Obj, old_status: Obj) -> list[str]:
    """getModifiedDrivers: the drivers of device statuses added, changed or removed, sorted."""
    old_devices = {rules.shared_device_id(as_dict(d)): as_dict(d) for d in as_list(old_status.get("devices"))}
    drivers: set[str] = set()
    for device in as_list(status.get("devices")):
        device = as_dict(device)
        before = old_devices.pop(rules.shared_device_id(device), None)
        if before is None or _device_view(before) != _device_view(device):
            drivers.add(str(device.get("driver") or ""))
    drivers.update(str(d.get("driver") or "") for d in old_devices.values())
    return sorted(drivers)


def _device_view(device: Obj) -> Any:
    return rules.semantic(gostructs.view(device, "AllocatedDeviceStatus"))


def _allocated_node(status: Obj) -> str:
    """nodeNameFromAllocation: the one node a selector of one term, one `metadata.name In [node]`, names."""
    terms = as_list(as_dict(as_dict(status.get("allocation")).get("nodeSelector")).get("nodeSelectorTerms"))
    if len(terms) != 1:
        return ""
    term = as_dict(terms[0])
    fields = as_list(term.get("matchFields"))
    if as_list(term.get("matchExpressions")) or len(fields) != 1:
        return ""
    requirement = as_dict(fields[0])
    values = as_list(requirement.get("values"))
    if requirement.get("key") != "metadata.name" or requirement.get("operator") != "In" or len(values) != 1:
        return ""
    return str(values[0])


def _on_allocated_node(request: Request, node: str) -> bool:
    """saAssociatedWithAllocatedNode: a ServiceAccount whose token was bound to that very node."""
    requester = request.requester
    if not node or requester is None:
        return False
    # serviceaccount.SplitUsername: a namespace's and a ServiceAccount's valid names.
    parts = requester.name.removeprefix(_SERVICE_ACCOUNT_PREFIX).split(":")
    if not requester.name.startswith(_SERVICE_ACCOUNT_PREFIX) or len(parts) != 2 or dns1123_label(parts[0]) \
            or dns1123_subdomain(parts[1]):
        return False
    names = requester.extra.get(NODE_NAME_EXTRA) or []
    return len(names) == 1 and not dns1123_subdomain(names[0]) and names[0] == node


def authorized_for_device_status(new: Obj, old: Obj, request: Request) -> list[FieldError]:
    """AuthorizedForDeviceStatus: each driver whose device status changes needs, on the synthetic
    resourceclaims/driver named for it, `arbitrary-node:<verb>`, or first `associated-node:<verb>` for a
    ServiceAccount on the node the claim is allocated to."""
    status = as_dict(new.get("status"))
    drivers = _modified_drivers(status, as_dict(old.get("status")))
    if not drivers or request.ask is None:
        return []
    verbs = [f"arbitrary-node:{request.verb}"]
    if _on_allocated_node(request, _allocated_node(status)):
        verbs.insert(0, f"associated-node:{request.verb}")
    found: list[FieldError] = []
    for driver in drivers:
        refusals = []
        for verb in verbs:  # any one of them allows it; the first refusal is the one told
            refusal = request.ask(Attributes(verb, _GROUP, _CLAIMS, "driver", request.namespace, driver))
            if refusal is None:
                break
            refusals.append(refusal)
        else:
            found.append(field.forbidden("status.devices", 'changing status.devices requires '
                                                           f'resource="resourceclaims/driver", verb="[{" ".join(verbs)}]" '
                                                           f"permission: {refusals[0]}"))
    return found


def validate_status_in_cluster(subresource: str, new: Obj, old: Obj, request: Request,
                               cluster: Cluster) -> list[FieldError]:
    """The head of the status strategy's ValidateUpdate, before ValidateResourceClaimStatusUpdate. Device
    status is only authorized while the claim is allocated: deallocating drops it."""
    found = authorized_for_admin_status(new, old, cluster)
    found += authorized_for_binding(new, old, request)
    if as_dict(new.get("status")).get("allocation") is not None:
        found += authorized_for_device_status(new, old, request)
    return found


def validate_status_update(subresource: str, new: Obj, old: Obj) -> list[FieldError]:
    return rules.status_update(new, old)
