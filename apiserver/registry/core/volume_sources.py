"""Persistent volume sources and node selectors: the validate*PersistentVolumeSource functions (and the
sources pods share with volumes) and ValidateNodeSelector of pkg/apis/core/validation/validation.go.

Each checker takes the source's object and its path and returns upstream's errors in upstream's order.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import (
    dns1123_label,
    dns1123_subdomain,
    inclusive_range_error,
    label_value,
    qualified_name,
)
from apiserver.registry import field

Obj = dict[str, Any]
SourceCheck = Callable[[Obj, str], list[FieldError]]

HOST_PATH_TYPES = ("", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate",
                   "Socket")
_PARTITION = inclusive_range_error(1, 255)
_IQN = re.compile(r"iqn\.\d{4}-\d{2}\.([A-Za-z0-9\-.]+)(:[^,;*&$|\s]+)$")
_EUI = re.compile(r"^eui.[A-Za-z0-9]{16}$")
_NAA = re.compile(r"^naa.[A-Za-z0-9]{32}$")
_CACHING_MODES = ("None", "ReadOnly", "ReadWrite")
_DISK_KINDS = ("Dedicated", "Managed", "Shared")


def _required(source: Obj, at: str, *keys: str) -> list[FieldError]:
    return [field.required(f"{at}.{key}") for key in keys if not source.get(key)]


def no_backsteps(value: str, path: str) -> list[FieldError]:
    """validatePathNoBacksteps."""
    return [field.invalid(path, value, "must not contain '..'")] if ".." in value.split("/") else []


def host_path(source: Obj, at: str) -> list[FieldError]:
    found = _required(source, at, "path") + no_backsteps(source.get("path") or "", f"{at}.path")
    kind = source.get("type")
    if kind is not None and kind not in HOST_PATH_TYPES:
        found.append(field.not_supported(f"{at}.type", kind, HOST_PATH_TYPES))
    return found


def _partition(source: Obj, at: str) -> list[FieldError]:
    partition = source.get("partition") or 0
    return [field.invalid(f"{at}.partition", partition, _PARTITION)] if not 0 <= partition <= 255 else []


def gce_persistent_disk(source: Obj, at: str) -> list[FieldError]:
    return _required(source, at, "pdName") + _partition(source, at)


def aws_elastic_block_store(source: Obj, at: str) -> list[FieldError]:
    return _required(source, at, "volumeID") + _partition(source, at)


def glusterfs_pv(source: Obj, at: str) -> list[FieldError]:
    found = _required(source, at, "endpoints", "path")
    namespace = source.get("endpointsNamespace")
    if namespace is not None:
        if namespace == "":
            found.append(field.invalid(f"{at}.endpointsNamespace", namespace,
                                       "if the endpointnamespace is set, it must be a valid namespace name"))
        else:
            found += [field.invalid(f"{at}.endpointsNamespace", namespace, msg) for msg in dns1123_label(namespace)]
    return found


def nfs(source: Obj, at: str) -> list[FieldError]:
    found = _required(source, at, "server", "path")
    path = source.get("path") or ""
    if not path.startswith("/"):
        found.append(field.invalid(f"{at}.path", path, "must be an absolute path"))
    return found


def rbd_pv(source: Obj, at: str) -> list[FieldError]:
    return _required(source, at, "monitors", "image")


def quobyte(source: Obj, at: str) -> list[FieldError]:
    found: list[FieldError] = []
    registry = source.get("registry") or ""
    if not registry:
        found.append(field.required(f"{at}.registry", "must be a host:port pair or multiple pairs separated by commas"))
    elif len(source.get("tenant") or "") >= 65:
        found.append(field.required(f"{at}.tenant", "must be a UUID and may not exceed a length of 64 characters"))
    else:
        for pair in registry.split(","):
            host, colon, _port = pair.rpartition(":")
            if not colon or ":" in host.strip("[]"):
                found.append(field.invalid(f"{at}.registry", registry,
                                           "must be a host:port pair or multiple pairs separated by commas"))
    return found + _required(source, at, "volume")


def cephfs_pv(source: Obj, at: str) -> list[FieldError]:
    return _required(source, at, "monitors")


def bad_initiator(value: str) -> bool:
    if value.startswith("iqn"):
        return _IQN.search(value) is None
    if value.startswith("eui"):
        return _EUI.search(value) is None
    if value.startswith("naa"):
        return _NAA.search(value) is None
    return True


def iscsi_pv(source: Obj, at: str, pv_name: str) -> list[FieldError]:
    found = _required(source, at, "targetPortal")
    portal = source.get("targetPortal") or ""
    if source.get("initiatorName") is not None and len(f"{pv_name}:{portal}") > 64:
        found.append(field.invalid(f"{at}.targetportal", portal, "Total length of <volume name>:<iscsi.targetPortal> "
                                   "must be under 64 characters if iscsi.initiatorName is specified."))
    iqn = source.get("iqn") or ""
    if not iqn:
        found.append(field.required(f"{at}.iqn"))
    elif bad_initiator(iqn):
        found.append(field.invalid(f"{at}.iqn", iqn, "must be valid format"))
    lun = source.get("lun") or 0
    if not 0 <= lun <= 255:
        found.append(field.invalid(f"{at}.lun", lun, inclusive_range_error(0, 255)))
    if (source.get("chapAuthDiscovery") or source.get("chapAuthSession")) and source.get("secretRef") is None:
        found.append(field.required(f"{at}.secretRef"))
    if source.get("secretRef") is not None and not source["secretRef"].get("name"):
        found.append(field.required(f"{at}.secretRef.name"))
    initiator = source.get("initiatorName")
    if initiator is not None:
        if not initiator.startswith(("iqn", "eui", "naa")):
            found.append(field.invalid(f"{at}.initiatorname", initiator, "must be valid format"))
        if initiator.startswith(("iqn", "eui", "naa")) and bad_initiator(initiator):
            found.append(field.invalid(f"{at}.initiatorname", initiator, "must be valid format"))
    return found


def _secret_ref_named(source: Obj, at: str) -> list[FieldError]:
    ref = source.get("secretRef")
    if ref is None:
        return []
    return _required(ref, f"{at}.secretRef", "name", "namespace")


def cinder_pv(source: Obj, at: str) -> list[FieldError]:
    return _required(source, at, "volumeID") + _secret_ref_named(source, at)


def fc(source: Obj, at: str) -> list[FieldError]:
    found: list[FieldError] = []
    wwns, wwids = source.get("targetWWNs") or [], source.get("wwids") or []
    if not wwns and not wwids:
        found.append(field.required(f"{at}.targetWWNs", "must specify either targetWWNs or wwids, but not both"))
    if wwns and wwids:
        found.append(field.invalid(f"{at}.targetWWNs", wwns, "targetWWNs and wwids can not be specified simultaneously"))
    if wwns:
        lun = source.get("lun")
        if lun is None:
            found.append(field.required(f"{at}.lun", "lun is required if targetWWNs is specified"))
        elif not 0 <= lun <= 255:
            found.append(field.invalid(f"{at}.lun", lun, inclusive_range_error(0, 255)))
    return found


def flex_pv(source: Obj, at: str) -> list[FieldError]:
    found = _required(source, at, "driver")
    for key in source.get("options") or {}:
        namespace = key.split("/", 1)[0] if "/" in key else key
        normalized = "." + namespace.lower()
        if normalized.endswith((".kubernetes.io", ".k8s.io")):
            found.append(field.invalid(f"{at}.options[{key}]", key, "kubernetes.io and k8s.io namespaces are reserved"))
    return found


def azure_file_pv(source: Obj, at: str) -> list[FieldError]:
    found = _required(source, at, "secretName", "shareName")
    if source.get("secretNamespace") is not None and not source["secretNamespace"]:
        found.append(field.required(f"{at}.secretNamespace"))
    return found


def vsphere(source: Obj, at: str) -> list[FieldError]:
    return _required(source, at, "volumePath")


def photon(source: Obj, at: str) -> list[FieldError]:
    return _required(source, at, "pdID")


def portworx(source: Obj, at: str) -> list[FieldError]:
    return _required(source, at, "volumeID")


def azure_disk(source: Obj, at: str) -> list[FieldError]:
    found = _required(source, at, "diskName", "diskURI")
    uri, mode, kind = source.get("diskURI") or "", source.get("cachingMode"), source.get("kind")
    if mode is not None and mode not in _CACHING_MODES:
        found.append(field.not_supported(f"{at}.cachingMode", mode, _CACHING_MODES))
    if kind is not None and kind not in _DISK_KINDS:
        found.append(field.not_supported(f"{at}.kind", kind, _DISK_KINDS))
    if kind == "Managed" and not uri.startswith("/subscriptions/"):
        found.append(field.not_supported(
            f"{at}.diskURI", uri,
            ("/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}",)))
    if kind is not None and kind != "Managed" and not uri.startswith("https://"):
        found.append(field.not_supported(
            f"{at}.diskURI", uri, ("https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd",)))
    return found


def scale_io_pv(source: Obj, at: str) -> list[FieldError]:
    return _required(source, at, "gateway", "system", "volumeName")


def local(source: Obj, at: str) -> list[FieldError]:
    return _required(source, at, "path") + no_backsteps(source.get("path") or "", f"{at}.path")


def _dns_label(value: str, path: str) -> list[FieldError]:
    return [field.invalid(path, value, msg) for msg in dns1123_label(value)]


def storage_os_pv(source: Obj, at: str) -> list[FieldError]:
    name = source.get("volumeName") or ""
    found = _dns_label(name, f"{at}.volumeName") if name else [field.required(f"{at}.volumeName")]
    if source.get("volumeNamespace"):
        found += _dns_label(source["volumeNamespace"], f"{at}.volumeNamespace")
    return found + _secret_ref_named(source, at)


def flocker(source: Obj, at: str) -> list[FieldError]:
    found: list[FieldError] = []
    name, uuid = source.get("datasetName") or "", source.get("datasetUUID") or ""
    if not name and not uuid:
        found.append(field.required(at, "one of datasetName and datasetUUID is required"))
    if name and uuid:
        found.append(field.invalid(at, "resource", "datasetName and datasetUUID can not be specified simultaneously"))
    if "/" in name:
        found.append(field.invalid(f"{at}.datasetName", name, "must not contain '/'"))
    return found


def csi_driver_name(name: str, path: str) -> list[FieldError]:
    """ValidateCSIDriverName."""
    if not name:
        return [field.required(path)]
    found = [field.too_long(path, 63)] if len(name) > 63 else []
    return found + [field.invalid(path, name, msg) for msg in dns1123_subdomain(name.lower())]


def _pv_secret_reference(ref: Obj, at: str) -> list[FieldError]:
    name, namespace = ref.get("name") or "", ref.get("namespace") or ""
    found = ([field.invalid(f"{at}.name", name, msg) for msg in dns1123_subdomain(name)] if name
             else [field.required(f"{at}.name")])
    return found + (_dns_label(namespace, f"{at}.namespace") if namespace else [field.required(f"{at}.namespace")])


def csi_pv(source: Obj, at: str) -> list[FieldError]:
    found = csi_driver_name(source.get("driver") or "", f"{at}.driver") + _required(source, at, "volumeHandle")
    for key in ("controllerPublishSecretRef", "controllerExpandSecretRef", "nodePublishSecretRef",
                "nodeExpandSecretRef"):
        if source.get(key) is not None:
            found += _pv_secret_reference(source[key], f"{at}.{key}")
    return found


# -- node selectors ------------------------------------------------------------------------------

def _node_selector_requirement(req: Obj, allow_bad_values: bool, at: str) -> list[FieldError]:
    found: list[FieldError] = []
    operator, values = req.get("operator") or "", req.get("values") or []
    if operator in ("In", "NotIn"):
        if not values:
            found.append(field.required(f"{at}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            found.append(field.forbidden(f"{at}.values",
                                         "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            found.append(field.required(f"{at}.values",
                                        "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        found.append(field.invalid(f"{at}.operator", operator, "not a valid selector operator"))
    key = req.get("key") or ""
    found += [field.invalid(f"{at}.key", key, msg) for msg in qualified_name(key)]
    if not allow_bad_values:
        for i, value in enumerate(values):
            found += [field.invalid(f"{at}.values[{i}]", value, msg) for msg in label_value(value)]
    return found


def _node_field_requirement(req: Obj, at: str) -> list[FieldError]:
    found: list[FieldError] = []
    operator, values = req.get("operator") or "", req.get("values") or []
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            found.append(field.required(
                f"{at}.values", "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
    else:
        found.append(field.invalid(f"{at}.operator", operator, "not a valid selector operator"))
    key = req.get("key") or ""
    if key != "metadata.name":
        found.append(field.invalid(f"{at}.key", key, "not a valid field selector key"))
    else:
        for i, value in enumerate(values):
            found += [field.invalid(f"{at}.values[{i}]", value, msg) for msg in dns1123_subdomain(value)]
    return found


def node_selector(selector: Obj, allow_bad_values: bool, at: str) -> list[FieldError]:
    """ValidateNodeSelector."""
    terms = selector.get("nodeSelectorTerms") or []
    if not terms:
        return [field.required(f"{at}.nodeSelectorTerms", "must have at least one node selector term")]
    found: list[FieldError] = []
    for i, term in enumerate(terms):
        found += node_selector_term(term if isinstance(term, dict) else {}, allow_bad_values,
                                    f"{at}.nodeSelectorTerms[{i}]")
    return found


def node_selector_term(term: Obj, allow_bad_values: bool, at: str) -> list[FieldError]:
    """ValidateNodeSelectorTerm."""
    found: list[FieldError] = []
    for j, req in enumerate(term.get("matchExpressions") or []):
        found += _node_selector_requirement(req or {}, allow_bad_values, f"{at}.matchExpressions[{j}]")
    for j, req in enumerate(term.get("matchFields") or []):
        found += _node_field_requirement(req or {}, f"{at}.matchFields[{j}]")
    return found
