"""storage.k8s.io/v1 validation: pkg/apis/storage/validation/validation.go, every function, in its order
(StorageClass, VolumeAttachment, CSINode, CSIDriver, CSIStorageCapacity, VolumeAttributesClass).

Metadata is judged by the write path (`registry/meta.py`). Feature gates at 1.36 defaults:
SELinuxMountReadWriteOncePod and MutableCSINodeAllocatableCount on, VolumeLimitScaling off.
Values the Go code shows as internal structs (which have no json tags) are written with Go's field names.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import quantity
from apiserver.kinds.validation import dns1123_subdomain, qualified_name
from apiserver.registry import field
from apiserver.registry.core import go_structs
from apiserver.registry.meta import label_selector

Obj = dict[str, Any]

_MAX_PARAMETER_SIZE = 256 * (1 << 10)
_MAX_PARAMETERS = 512
_MAX_ATTACHMENT_METADATA_SIZE = 256 * (1 << 10)
_MAX_VOLUME_ERROR_MESSAGE = 1024
_CSI_NODE_ID_MAX_LENGTH = 256
_RECLAIM_POLICIES = ("Delete", "Retain")
_BINDING_MODES = ("Immediate", "WaitForFirstConsumer")
_FS_GROUP_POLICIES = ("File", "None", "ReadWriteOnceWithFSType")
_LIFECYCLE_MODES = ("Persistent", "Ephemeral")


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def csi_driver_name(name: str, path: str) -> list[FieldError]:
    """core's ValidateCSIDriverName: required, at most 63 characters, a subdomain in lower case."""
    if not name:
        return [field.required(path)]
    found = [field.too_long(path, 63)] if len(name) > 63 else []
    return found + [field.invalid(path, name, msg) for msg in dns1123_subdomain(name.lower())]


def _provisioner(provisioner: str, path: str) -> list[FieldError]:
    """validateProvisioner: a qualified name, judged (and shown) in lower case."""
    if not provisioner:
        return [field.required(path)]
    return [field.invalid(path, provisioner.lower(), msg) for msg in qualified_name(provisioner.lower())]


def _parameters(params: Obj, allow_empty: bool, path: str) -> list[FieldError]:
    """validateParameters: at most 512 keys, none empty, 256 KiB in all."""
    if len(params) > _MAX_PARAMETERS:
        return [field.too_long(path, _MAX_PARAMETERS)]
    found = [field.invalid(path, key, "field can not be empty.") for key in params if not key]
    if sum(len(k) + len(_str(v)) for k, v in params.items()) > _MAX_PARAMETER_SIZE:
        found.append(field.too_long(path, _MAX_PARAMETER_SIZE))
    if not allow_empty and not params:
        found.append(field.required(path, "must contain at least one key/value pair"))
    return found


# StorageClass

def _topology_term(term: Obj, path: str) -> tuple[dict[str, frozenset[str]], list[FieldError]]:
    """core's ValidateTopologySelectorTerm: each key once, with values, and the term as key -> values."""
    found: list[FieldError] = []
    expressions: dict[str, frozenset[str]] = {}
    for i, requirement in enumerate(_list(term.get("matchLabelExpressions"))):
        requirement = _dict(requirement)
        at = f"{path}.matchLabelExpressions[{i}]"
        values = [_str(v) for v in _list(requirement.get("values"))]
        if not values:
            found.append(field.required(f"{at}.values"))
        for j, value in enumerate(values):
            if value in values[:j]:
                found.append(field.duplicate(f"{at}.values[{j}]", value))
        key = _str(requirement.get("key"))
        found += [field.invalid(f"{at}.key", key, msg) for msg in qualified_name(key)]
        if key in expressions:
            found.append(field.duplicate(f"{at}.key", key))
        expressions[key] = frozenset(values)
    return expressions, found


def _allowed_topologies(terms: list[Any]) -> list[FieldError]:
    """validateAllowedTopologies. Upstream's list of seen terms starts with one empty term per term (it is
    made with a length, then appended to), so a term without expressions is a duplicate of each."""
    found: list[FieldError] = []
    seen: list[dict[str, frozenset[str]]] = [{} for _ in terms]
    for i, term in enumerate(terms):
        expressions, errors = _topology_term(_dict(term), f"allowedTopologies[{i}]")
        found += errors
        found += [field.duplicate(f"allowedTopologies[{i}].matchLabelExpressions", "")
                  for earlier in seen if earlier == expressions]
        seen.append(expressions)
    return found


def storage_class(obj: Obj) -> list[FieldError]:
    """ValidateStorageClass."""
    found = _provisioner(_str(obj.get("provisioner")), "provisioner")
    found += _parameters(_dict(obj.get("parameters")), True, "parameters")
    reclaim = obj.get("reclaimPolicy")
    if reclaim and reclaim not in _RECLAIM_POLICIES:
        found.append(field.not_supported("reclaimPolicy", reclaim, _RECLAIM_POLICIES))
    mode = obj.get("volumeBindingMode")
    if mode is None:
        found.append(field.required("volumeBindingMode"))
    elif mode not in _BINDING_MODES:
        found.append(field.not_supported("volumeBindingMode", mode, _BINDING_MODES))
    return found + _allowed_topologies(_list(obj.get("allowedTopologies")))


def storage_class_update(new: Obj, old: Obj) -> list[FieldError]:
    """The strategy's ValidateUpdate: the class judged as on create, then what it provisions with fixed."""
    found = storage_class(new)
    parameters, old_parameters = new.get("parameters") or {}, old.get("parameters") or {}
    if parameters != old_parameters:
        found.append(field.invalid_shown("parameters", field.go_map(parameters) if new.get("parameters") is not None
                                         else "null", "field is immutable"))
    for name in ("provisioner", "reclaimPolicy", "volumeBindingMode"):
        found += field.immutable(name, new.get(name), old.get(name))
    return found


# VolumeAttachment

def _volume_error(error: Any, path: str) -> list[FieldError]:
    if not isinstance(error, dict):
        return []
    found: list[FieldError] = []
    if len(_str(error.get("message"))) > _MAX_VOLUME_ERROR_MESSAGE:
        found.append(field.too_long(f"{path}.message", _MAX_ATTACHMENT_METADATA_SIZE))
    code = error.get("errorCode")
    if isinstance(code, int) and code < 0:
        found.append(field.invalid(f"{path}.errorCode", code, "must be between 0 and 2147483647, inclusive"))
    return found


def volume_attachment_status(status: Obj) -> list[FieldError]:
    """validateVolumeAttachmentStatus."""
    metadata = _dict(status.get("attachmentMetadata"))
    found = []
    if sum(len(k) + len(_str(v)) for k, v in metadata.items()) > _MAX_ATTACHMENT_METADATA_SIZE:
        found.append(field.too_long("status.attachmentMetadata", _MAX_ATTACHMENT_METADATA_SIZE))
    return found + _volume_error(status.get("attachError"), "status.attachError") + \
        _volume_error(status.get("detachError"), "status.detachError")


def _attachment_source(source: Obj) -> list[FieldError]:
    """validateVolumeAttachmentSource: exactly one of a persistent volume's name and an inline spec.

    An inline spec is judged by core's ValidatePersistentVolumeSpec, which is not ported yet."""
    inline, pv_name = source.get("inlineVolumeSpec"), source.get("persistentVolumeName")
    if inline is None and pv_name is None:
        return [field.required("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName")]
    if inline is not None and pv_name is not None:
        return [field.forbidden("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName")]
    if pv_name is not None and not pv_name:
        return [field.required("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName")]
    return []


def volume_attachment(obj: Obj) -> list[FieldError]:
    """ValidateVolumeAttachment: the attacher, the source, the node, the status, the volume's name."""
    spec = _dict(obj.get("spec"))
    source = _dict(spec.get("source"))
    found = csi_driver_name(_str(spec.get("attacher")), "spec.attacher")
    found += _attachment_source(source)
    node_name = _str(spec.get("nodeName"))
    found += [field.invalid("spec.nodeName", node_name, msg) for msg in dns1123_subdomain(node_name)]
    found += volume_attachment_status(_dict(obj.get("status")))
    if source.get("persistentVolumeName") is not None:
        pv_name = _str(source["persistentVolumeName"])
        found += [field.invalid("spec.source.persistentVolumeName", pv_name, msg) for msg in dns1123_subdomain(pv_name)]
    return found


def _attachment_spec_json(spec: Obj) -> str:
    source = _dict(spec.get("source"))
    return field.go_json({
        "Attacher": _str(spec.get("attacher")),
        "Source": {"PersistentVolumeName": source.get("persistentVolumeName"),
                   "InlineVolumeSpec": go_structs.rendered("*PersistentVolumeSpec", source.get("inlineVolumeSpec"))},
        "NodeName": _str(spec.get("nodeName"))})


def volume_attachment_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateVolumeAttachmentUpdate: judged as on create, and the whole spec fixed."""
    found = volume_attachment(new)
    if _dict(new.get("spec")) != _dict(old.get("spec")):
        found.append(field.invalid_shown("spec", _attachment_spec_json(_dict(new.get("spec"))), "field is immutable"))
    return found


# CSINode

def _csi_node_driver(driver: Obj, names: set[str], path: str) -> list[FieldError]:
    """validateCSINodeDriver: a driver name, a node id, a non-negative count, unique names and keys."""
    name = _str(driver.get("name"))
    found = csi_driver_name(name, f"{path}.name")
    node_id = _str(driver.get("nodeID"))
    if not node_id:
        found.append(field.required(f"{path}.nodeID"))
    if len(node_id) > _CSI_NODE_ID_MAX_LENGTH:
        found.append(field.invalid(f"{path}.nodeID", node_id, f"must be {_CSI_NODE_ID_MAX_LENGTH} characters or less"))
    count = _dict(driver.get("allocatable")).get("count")
    if count is not None:
        found += field.nonnegative(f"{path}.allocatable.count", count)
    if name in names:
        found.append(field.duplicate(f"{path}.name", name))
    names.add(name)
    keys: set[str] = set()
    for key in _list(driver.get("topologyKeys")):
        key = _str(key)
        if not key:
            found.append(field.required(path))
        if key in keys:
            found.append(field.duplicate(path, key))
        keys.add(key)
        found += [field.invalid(path, key, msg) for msg in qualified_name(key)]
    return found


def csi_node(obj: Obj) -> list[FieldError]:
    names: set[str] = set()
    found: list[FieldError] = []
    for i, driver in enumerate(_list(_dict(obj.get("spec")).get("drivers"))):
        found += _csi_node_driver(_dict(driver), names, f"spec.drivers[{i}]")
    return found


def _driver_json(driver: Obj) -> str:
    # MutableCSINodeAllocatableCount is on: drivers are compared, and shown, without their allocatable.
    keys = driver.get("topologyKeys")
    return field.go_json({"Name": _str(driver.get("name")), "NodeID": _str(driver.get("nodeID")),
                          "TopologyKeys": keys if isinstance(keys, list) and keys else None, "Allocatable": None})


def csi_node_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateCSINodeUpdate: judged as on create; a driver kept by name keeps all but its allocatable."""
    found = csi_node(new)
    new_drivers = [_dict(d) for d in _list(_dict(new.get("spec")).get("drivers"))]
    for old_driver in _list(_dict(old.get("spec")).get("drivers")):
        old_driver = _dict(old_driver)
        for new_driver in new_drivers:
            if _str(old_driver.get("name")) == _str(new_driver.get("name")) and \
                    _driver_json(new_driver) != _driver_json(old_driver):
                found.append(field.invalid_shown("spec.drivers", _driver_json(new_driver), "field is immutable"))
    return found


# CSIDriver

def _token_requests(requests: list[Any]) -> list[FieldError]:
    """validateTokenRequests: audiences unique, lifetimes from 10 minutes to 2^32 seconds."""
    found: list[FieldError] = []
    audiences: set[str] = set()
    for i, request in enumerate(requests):
        request = _dict(request)
        at = f"spec.tokenRequests[{i}]"
        audience = _str(request.get("audience"))
        if audience in audiences:
            found.append(field.duplicate(f"{at}.audience", audience))
            continue
        audiences.add(audience)
        seconds = request.get("expirationSeconds")
        if not isinstance(seconds, int):
            continue
        if seconds < 600:
            found.append(field.invalid(f"{at}.expirationSeconds", seconds,
                                       "may not specify a duration less than 10 minutes"))
        if seconds > 1 << 32:
            found.append(field.invalid(f"{at}.expirationSeconds", seconds,
                                       "may not specify a duration larger than 2^32 seconds"))
    return found


def _csi_driver_spec(spec: Obj) -> list[FieldError]:
    """validateCSIDriverSpec."""
    found: list[FieldError] = []
    for name, path in (("attachRequired", "spec.attachedRequired"), ("podInfoOnMount", "spec.podInfoOnMount"),
                       ("storageCapacity", "spec.storageCapacity")):
        if spec.get(name) is None:
            found.append(field.required(path))
    policy = spec.get("fsGroupPolicy")
    if policy is not None and policy not in _FS_GROUP_POLICIES:
        found.append(field.not_supported("spec.fsGroupPolicy", policy, _FS_GROUP_POLICIES))
    token_requests = _list(spec.get("tokenRequests"))
    found += _token_requests(token_requests)
    found += [field.not_supported("spec.volumeLifecycleModes", mode, _LIFECYCLE_MODES)
              for mode in _list(spec.get("volumeLifecycleModes")) if mode not in _LIFECYCLE_MODES]
    if spec.get("seLinuxMount") is None:
        found.append(field.required("spec.seLinuxMount"))
    period = spec.get("nodeAllocatableUpdatePeriodSeconds")
    if isinstance(period, int) and period < 10:
        found.append(field.invalid("spec.nodeAllocatableUpdatePeriodSeconds", period,
                                   "must be greater than or equal to 10 seconds"))
    in_secrets = spec.get("serviceAccountTokenInSecrets")
    if in_secrets is not None and not token_requests:
        found.append(field.invalid("spec.serviceAccountTokenInSecrets", in_secrets,
                                   "serviceAccountTokenInSecrets is set but no tokenRequests are specified"))
    return found


def csi_driver(obj: Obj) -> list[FieldError]:
    return _csi_driver_spec(_dict(obj.get("spec")))


def csi_driver_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateCSIDriverUpdate: the spec judged, and what node plugins were deployed with fixed."""
    spec, old_spec = _dict(new.get("spec")), _dict(old.get("spec"))
    found = _csi_driver_spec(spec)
    found += field.immutable("spec.attachedRequired", spec.get("attachRequired"), old_spec.get("attachRequired"))
    modes, old_modes = spec.get("volumeLifecycleModes"), old_spec.get("volumeLifecycleModes")
    if (modes or None) != (old_modes or None):
        found.append(field.invalid("spec.volumeLifecycleModes", modes, "field is immutable"))
    return found


# CSIStorageCapacity

def _selector_key(selector: Any) -> Any:
    """A *LabelSelector as Semantic.DeepEqual compares it: nil differs from empty, empty lists equal none."""
    if not isinstance(selector, dict):
        return None
    return (sorted((selector.get("matchLabels") or {}).items()),
            [(e.get("key") or "", e.get("operator") or "", e.get("values") or [])
             for e in selector.get("matchExpressions") or () if isinstance(e, dict)])


def csi_storage_capacity(obj: Obj) -> list[FieldError]:
    """ValidateCSIStorageCapacity: the node topology, the class's name, a capacity not below zero."""
    found = label_selector(obj.get("nodeTopology"), "nodeTopology")
    class_name = _str(obj.get("storageClassName"))
    found += [field.invalid("storageClassName", class_name, msg) for msg in dns1123_subdomain(class_name)]
    if obj.get("capacity") is not None:
        try:
            capacity = quantity.parse(obj["capacity"])
        except quantity.QuantityError:
            return found  # refused when decoded
        if capacity.value < 0:
            found.append(field.invalid("capacity", str(capacity), "must be greater than or equal to 0"))
    return found


def csi_storage_capacity_update(new: Obj, old: Obj) -> list[FieldError]:
    """The strategy's ValidateUpdate: judged as on create, then what GetCapacity was asked with fixed."""
    found = csi_storage_capacity(new)
    if _selector_key(new.get("nodeTopology")) != _selector_key(old.get("nodeTopology")):
        found.append(field.invalid_shown("nodeTopology", field.go_selector(new.get("nodeTopology")),
                                         "field is immutable"))
    if _str(new.get("storageClassName")) != _str(old.get("storageClassName")):
        found.append(field.invalid("storageClassName", _str(new.get("storageClassName")), "field is immutable"))
    return found


# VolumeAttributesClass

def volume_attributes_class(obj: Obj) -> list[FieldError]:
    """ValidateVolumeAttributesClass: a driver name, and at least one parameter."""
    return _provisioner(_str(obj.get("driverName")), "driverName") + \
        _parameters(_dict(obj.get("parameters")), False, "parameters")


def volume_attributes_class_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateVolumeAttributesClassUpdate: driver and parameters fixed, then judged as on create."""
    found: list[FieldError] = []
    if _str(new.get("driverName")) != _str(old.get("driverName")):
        found.append(field.forbidden("driverName", "updates to driverName are forbidden."))
    if (new.get("parameters") or {}) != (old.get("parameters") or {}):
        found.append(field.forbidden("parameters", "updates to parameters are forbidden."))
    return found + volume_attributes_class(new)
