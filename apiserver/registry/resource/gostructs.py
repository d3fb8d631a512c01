"""A claim's spec as Go's json.Marshal writes the internal struct upstream shows in "field is immutable".

The internal types (pkg/apis/resource/types.go) carry no json tags: every field is written under its
Go name, in declaration order, unset pointers and slices as null, zero numbers and strings as such;
an embedded struct's fields are written in its place (DeviceClaimConfiguration's DeviceConfiguration,
ResourceClaimTemplateSpec's ObjectMeta).
"""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]
# A struct: (json name, Go name, kind) in Go order; kind is "value" (Go's zero when unset: the
# default's), a struct's name, or "[]" + a struct's name for a slice of them.
_Fields = tuple[tuple[str, str, Any], ...]

_STRUCTS: dict[str, _Fields] = {
    "ResourceClaimSpec": (("devices", "Devices", "DeviceClaim"),),
    "DeviceClaim": (
        ("requests", "Requests", "[]DeviceRequest"),
        ("constraints", "Constraints", "[]DeviceConstraint"),
        ("config", "Config", "[]DeviceClaimConfiguration"),
    ),
    "DeviceRequest": (
        ("name", "Name", ""),
        ("exactly", "Exactly", "*ExactDeviceRequest"),
        ("firstAvailable", "FirstAvailable", "[]DeviceSubRequest"),
    ),
    "ExactDeviceRequest": (
        ("deviceClassName", "DeviceClassName", ""),
        ("selectors", "Selectors", "[]DeviceSelector"),
        ("allocationMode", "AllocationMode", ""),
        ("count", "Count", 0),
        ("adminAccess", "AdminAccess", None),
        ("tolerations", "Tolerations", "[]DeviceToleration"),
        ("capacity", "Capacity", "*CapacityRequirements"),
    ),
    "DeviceSubRequest": (
        ("name", "Name", ""),
        ("deviceClassName", "DeviceClassName", ""),
        ("selectors", "Selectors", "[]DeviceSelector"),
        ("allocationMode", "AllocationMode", ""),
        ("count", "Count", 0),
        ("tolerations", "Tolerations", "[]DeviceToleration"),
        ("capacity", "Capacity", "*CapacityRequirements"),
    ),
    "DeviceSelector": (("cel", "CEL", "*CELDeviceSelector"),),
    "CELDeviceSelector": (("expression", "Expression", ""),),
    "DeviceToleration": (
        ("key", "Key", ""),
        ("operator", "Operator", ""),
        ("value", "Value", ""),
        ("effect", "Effect", ""),
        ("tolerationSeconds", "TolerationSeconds", None),
    ),
    "CapacityRequirements": (("requests", "Requests", None),),
    "DeviceConstraint": (
        ("requests", "Requests", None),
        ("matchAttribute", "MatchAttribute", None),
        ("distinctAttribute", "DistinctAttribute", None),
    ),
    "DeviceClaimConfiguration": (
        ("requests", "Requests", None),
        ("opaque", "Opaque", "*OpaqueDeviceConfiguration"),
    ),
    "OpaqueDeviceConfiguration": (("driver", "Driver", ""), ("parameters", "Parameters", None)),
    "AllocationResult": (
        ("devices", "Devices", "DeviceAllocationResult"),
        ("nodeSelector", "NodeSelector", "*NodeSelector"),
        ("allocationTimestamp", "AllocationTimestamp", None),
    ),
    "DeviceAllocationResult": (
        ("results", "Results", "[]DeviceRequestAllocationResult"),
        ("config", "Config", "[]DeviceAllocationConfiguration"),
    ),
    "DeviceRequestAllocationResult": (
        ("request", "Request", ""),
        ("driver", "Driver", ""),
        ("pool", "Pool", ""),
        ("device", "Device", ""),
        ("adminAccess", "AdminAccess", None),
        ("tolerations", "Tolerations", "[]DeviceToleration"),
        ("bindingConditions", "BindingConditions", None),
        ("bindingFailureConditions", "BindingFailureConditions", None),
        ("shareID", "ShareID", None),
        ("consumedCapacity", "ConsumedCapacity", None),
    ),
    # DeviceConfiguration is embedded: its Opaque is written in its place.
    "DeviceAllocationConfiguration": (
        ("source", "Source", ""),
        ("requests", "Requests", None),
        ("opaque", "Opaque", "*OpaqueDeviceConfiguration"),
    ),
    "NodeSelector": (("nodeSelectorTerms", "NodeSelectorTerms", "[]NodeSelectorTerm"),),
    "NodeSelectorTerm": (
        ("matchExpressions", "MatchExpressions", "[]NodeSelectorRequirement"),
        ("matchFields", "MatchFields", "[]NodeSelectorRequirement"),
    ),
    "NodeSelectorRequirement": (("key", "Key", ""), ("operator", "Operator", ""), ("values", "Values", None)),
    "ResourceClaimConsumerReference": (
        ("apiGroup", "APIGroup", ""),
        ("resource", "Resource", ""),
        ("name", "Name", ""),
        ("uid", "UID", ""),
    ),
    "AllocatedDeviceStatus": (
        ("driver", "Driver", ""),
        ("pool", "Pool", ""),
        ("device", "Device", ""),
        ("shareID", "ShareID", None),
        ("conditions", "Conditions", "[]Condition"),
        ("data", "Data", None),
        ("networkData", "NetworkData", "*NetworkDeviceData"),
    ),
    "Condition": (
        ("type", "Type", ""),
        ("status", "Status", ""),
        ("observedGeneration", "ObservedGeneration", 0),
        ("lastTransitionTime", "LastTransitionTime", None),
        ("reason", "Reason", ""),
        ("message", "Message", ""),
    ),
    "NetworkDeviceData": (
        ("interfaceName", "InterfaceName", ""),
        ("ips", "IPs", None),
        ("hardwareAddress", "HardwareAddress", ""),
    ),
}


_META_ORDER = (
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
)


def _value(value: Any, kind: Any) -> Any:
    if not isinstance(kind, str) or not kind:
        return kind if value is None else value
    if kind.startswith("[]"):
        if not isinstance(value, list):
            return None
        return [_struct(item, kind[2:]) for item in value]
    if kind.startswith("*"):
        return None if value is None else _struct(value, kind[1:])
    return _struct(value, kind)


def _struct(value: Any, name: str) -> Obj:
    value = value if isinstance(value, dict) else {}
    return {go: _value(value.get(key), kind) for key, go, kind in _STRUCTS[name]}


def claim_spec(spec: Any) -> Obj:
    return _struct(spec, "ResourceClaimSpec")


def view(value: Any, kind: str) -> Any:
    """A value of a struct's kind ("AllocationResult", "[]AllocatedDeviceStatus", "*NodeSelector") as
    Go holds it: every field, unset ones at Go's zero value."""
    return _value(value, kind)


def allocation_result(allocation: Any) -> Obj:
    return _struct(allocation, "AllocationResult")


def claim_template_spec(spec: Any) -> Obj:
    """The embedded metav1.ObjectMeta keeps its json tags (all omitempty) and is written in its place."""
    spec = spec if isinstance(spec, dict) else {}
    meta = spec.get("metadata") if isinstance(spec.get("metadata"), dict) else {}
    shown: Obj = {}
    for key in _META_ORDER:
        value = meta.get(key)
        if value not in (None, "", 0, {}, []):
            shown[key] = dict(sorted(value.items())) if isinstance(value, dict) else value
    shown["Spec"] = claim_spec(spec.get("spec"))
    return shown
