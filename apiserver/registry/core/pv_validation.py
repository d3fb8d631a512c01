"""PersistentVolume validation: ValidatePersistentVolumeSpec and ValidatePersistentVolume(Update) of
pkg/apis/core/validation/validation.go.

"""

from __future__ import annotations

import posixpath
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_subdomain
from apiserver.registry import field
from apiserver.registry.core import go_structs, resource_names
from apiserver.registry.core import volume_sources as sources

Obj = dict[str, Any]

ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
_RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
VOLUME_MODES = ("Block", "Filesystem")

# The sources in upstream's order: (field, the path its own errors are reported at, its checker).
# iSCSI's checker also reads the volume's name: it is None here and called apart.
_SOURCES: tuple[tuple[str, str, sources.SourceCheck | None], ...] = (
    ("hostPath", "hostPath", sources.host_path),
    # Upstream reports a GCE disk's own errors under "persistentDisk".
    ("gcePersistentDisk", "persistentDisk", sources.gce_persistent_disk),
    ("awsElasticBlockStore", "awsElasticBlockStore", sources.aws_elastic_block_store),
    ("glusterfs", "glusterfs", sources.glusterfs_pv),
    ("flocker", "flocker", sources.flocker),
    ("nfs", "nfs", sources.nfs),
    ("rbd", "rbd", sources.rbd_pv),
    ("quobyte", "quobyte", sources.quobyte),
    ("cephfs", "cephfs", sources.cephfs_pv),
    ("iscsi", "iscsi", None),
    ("cinder", "cinder", sources.cinder_pv),
    ("fc", "fc", sources.fc),
    ("flexVolume", "flexVolume", sources.flex_pv),
    ("azureFile", "azureFile", sources.azure_file_pv),
    ("vsphereVolume", "vsphereVolume", sources.vsphere),
    ("photonPersistentDisk", "photonPersistentDisk", sources.photon),
    ("portworxVolume", "portworxVolume", sources.portworx),
    ("azureDisk", "azureDisk", sources.azure_disk),
    ("scaleIO", "scaleIO", sources.scale_io_pv),
    ("local", "local", sources.local),
    ("storageos", "storageos", sources.storage_os_pv),
    ("csi", "csi", sources.csi_pv),
)
# Where a second source is refused: upstream names CephFS "cephFS" there.
_FORBIDDEN_AT = {"cephfs": "cephFS"}


def _modes(modes: list[Any], at: str) -> list[FieldError]:
    found: list[FieldError] = []
    once_pod = others = False
    for mode in modes:
        if mode not in ACCESS_MODES:
            found.append(field.not_supported(at, mode, ACCESS_MODES))
        if mode == "ReadWriteOncePod":
            once_pod = True
        elif mode in ACCESS_MODES:
            others = True
    if once_pod and others:
        found.append(field.forbidden(at, "may not use ReadWriteOncePod with other access modes"))
    return found


def _capacity(capacity: Obj) -> list[FieldError]:
    found: list[FieldError] = []
    if not capacity:
        found.append(field.required("spec.capacity"))
    if "storage" not in capacity or len(capacity) > 1:
        shown = {k: str(v) if (v := resource_names.parsed(a)) is not None else a for k, a in capacity.items()}
        found.append(field.not_supported_shown("spec.capacity", field.go_map(shown) if capacity else "null",
                                               ("storage",)))
    for name, amount in capacity.items():
        value = resource_names.parsed(amount)
        if value is None:
            continue
        if value.int_value() < 0:
            found.append(field.invalid(f"spec.capacity[{name}]", value.int_value(), "must be a valid resource quantity"))
        if value.value <= 0:
            found.append(field.invalid(f"spec.capacity[{name}]", str(value), "must be greater than zero"))
    return found


def _sources(spec: Obj, pv_name: str, node_affinity: bool) -> list[FieldError]:
    found: list[FieldError] = []
    count = 0
    for key, own_path, check in _SOURCES:
        source = spec.get(key)
        if source is None:
            continue
        source = source if isinstance(source, dict) else {}
        # A flex volume is counted but never refused as a second source.
        if count > 0 and key != "flexVolume":
            found.append(field.forbidden(f"spec.{_FORBIDDEN_AT.get(key, key)}", "may not specify more than 1 volume type"))
            continue
        count += 1
        if check is None:
            found += sources.iscsi_pv(source, f"spec.{own_path}", pv_name)
        else:
            found += check(source, f"spec.{own_path}")
        if key == "local" and not node_affinity:
            found.append(field.required("spec.nodeAffinity", "Local volume requires node affinity"))
    if count == 0:
        found.append(field.required("spec", "must specify a volume type"))
    return found


def persistent_volume_spec(spec: Obj, pv_name: str) -> list[FieldError]:
    """ValidatePersistentVolumeSpec of a PersistentVolume (not an inline volume)."""
    found: list[FieldError] = []
    modes = spec.get("accessModes") or []
    if not modes:
        found.append(field.required("spec.accessModes"))
    found += _modes(modes, "spec.accessModes")
    found += _capacity(spec.get("capacity") or {})
    policy = spec.get("persistentVolumeReclaimPolicy") or ""
    if policy and policy not in _RECLAIM_POLICIES:
        found.append(field.not_supported("spec.persistentVolumeReclaimPolicy", policy, _RECLAIM_POLICIES))
    affinity = spec.get("nodeAffinity")
    if affinity is not None:
        if affinity.get("required") is not None:
            found += sources.node_selector(affinity["required"], False, "spec.nodeAffinity.required")
        else:
            found.append(field.required("spec.nodeAffinity.required", "must specify required node constraints"))
    found += _sources(spec, pv_name, affinity is not None)
    host_path = spec.get("hostPath")
    if isinstance(host_path, dict) and posixpath.normpath(host_path.get("path") or ".") == "/" \
            and policy == "Recycle":
        found.append(field.forbidden("spec.persistentVolumeReclaimPolicy",
                                     "may not be 'recycle' for a hostPath mount of '/'"))
    class_name = spec.get("storageClassName") or ""
    if class_name:
        found += [field.invalid("spec.storageClassName", class_name, msg) for msg in dns1123_subdomain(class_name)]
    mode = spec.get("volumeMode")
    if mode is not None and mode not in VOLUME_MODES:
        found.append(field.not_supported("spec.volumeMode", mode, VOLUME_MODES))
    attributes_class = spec.get("volumeAttributesClassName")
    if attributes_class is not None:
        if not attributes_class:
            found.append(field.required("spec.volumeAttributesClassName", "an empty string is disallowed"))
        else:
            found += [field.invalid("spec.volumeAttributesClassName", attributes_class, msg)
                      for msg in dns1123_subdomain(attributes_class)]
        if spec.get("csi") is None:
            found.append(field.required("spec.csi", "has to be specified when using volumeAttributesClassName"))
    return found


_MOUNTABLE = ("gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "nfs", "rbd", "quobyte", "iscsi", "cinder",
              "cephfs", "azureFile", "vsphereVolume", "azureDisk", "photonPersistentDisk")
_MOUNT_OPTIONS = "volume.beta.kubernetes.io/mount-options"


def _mount_options(obj: Obj) -> list[FieldError]:
    """pkg/volume/validation's checkMountOption: the mount options annotation needs a source that mounts."""
    spec = obj.get("spec") or {}
    if any(spec.get(key) is not None for key in _MOUNTABLE):
        return []
    if _MOUNT_OPTIONS in ((obj.get("metadata") or {}).get("annotations") or {}):
        return [field.forbidden(f"metadata.annotations.{_MOUNT_OPTIONS}",
                                "may not specify mount options for this volume type")]
    return []


def _validate(obj: Obj) -> list[FieldError]:
    """ValidatePersistentVolume (its metadata aside)."""
    return persistent_volume_spec(obj.get("spec") or {}, str((obj.get("metadata") or {}).get("name") or ""))


def persistent_volume(obj: Obj) -> list[FieldError]:
    """The strategy's Validate: ValidatePersistentVolume, then the mount options' rule."""
    return _validate(obj) + _mount_options(obj)


_SOURCE_KEYS = tuple(key for key, _, _ in _SOURCES)


def _source_of(spec: Obj) -> Obj:
    return {key: spec[key] for key in _SOURCE_KEYS if spec.get(key) is not None}


def persistent_volume_update(new: Obj, old: Obj) -> list[FieldError]:
    """The strategy's ValidateUpdate: the new volume judged as on create, then ValidatePersistentVolumeUpdate
    (which judges it once more: upstream reports those errors twice): source, mode and attributes class stay."""
    found = persistent_volume(new) + _validate(new)
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    new_source = _source_of(spec)
    old_csi = old_spec.get("csi")
    if isinstance(old_csi, dict) and old_csi.get("controllerExpandSecretRef") is None \
            and isinstance(spec.get("csi"), dict) and spec["csi"].get("controllerExpandSecretRef") is not None:
        # A controller expansion secret may be added to a CSI volume that had none.
        new_source["csi"] = {k: v for k, v in spec["csi"].items() if k != "controllerExpandSecretRef"}
    old_shown = go_structs.struct("PersistentVolumeSource", old_spec)
    new_shown = go_structs.struct("PersistentVolumeSource", {**spec, **new_source})
    if new_source != _source_of(old_spec) and new_shown != old_shown:
        found.append(field.forbidden("spec.persistentvolumesource",
                                     "spec.persistentvolumesource is immutable after creation\n"
                                     + go_structs.diff(old_shown, new_shown)))
    found += field.immutable("volumeMode", spec.get("volumeMode"), old_spec.get("volumeMode"))
    old_class = old_spec.get("volumeAttributesClassName")
    if old_class != spec.get("volumeAttributesClassName") and old_class is not None \
            and spec.get("volumeAttributesClassName") is None:
        found.append(field.forbidden("spec.volumeAttributesClassName", "update from non-nil value to nil is forbidden"))
    return found
