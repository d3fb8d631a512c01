"""storage.k8s.io/v1 defaulting: pkg/apis/storage/v1/defaults.go (+ zz_generated.defaults.go).

Feature gates at 1.36 defaults: SELinuxMountReadWriteOncePod on (seLinuxMount defaults to false),
VolumeLimitScaling off (preventPodSchedulingIfMissing is not defaulted).
"""

from __future__ import annotations

from typing import Any

from apiserver.registry.core.defaults import spec_of

Obj = dict[str, Any]


def _default(obj: Obj, name: str, value: Any) -> None:
    # A pointer field is defaulted when nil: absent or null.
    if obj.get(name) is None:
        obj[name] = value


def storage_class(obj: Obj) -> None:
    _default(obj, "reclaimPolicy", "Delete")
    _default(obj, "volumeBindingMode", "Immediate")


def csi_driver(obj: Obj) -> None:
    spec = spec_of(obj)
    _default(spec, "attachRequired", True)
    _default(spec, "podInfoOnMount", False)
    _default(spec, "storageCapacity", False)
    _default(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType")
    if not spec.get("volumeLifecycleModes"):
        spec["volumeLifecycleModes"] = ["Persistent"]
    _default(spec, "requiresRepublish", False)
    _default(spec, "seLinuxMount", False)


def volume_attachment(obj: Obj) -> None:
    """SetObjectDefaults_VolumeAttachment: an inline volume spec's sources get core's volume defaults.

    Capacity's rounding up to milli-units (SetDefaults_ResourceList) is not ported."""
    source = spec_of(obj).get("source")
    inline = source.get("inlineVolumeSpec") if isinstance(source, dict) else None
    if not isinstance(inline, dict):
        return
    if isinstance(inline.get("hostPath"), dict):
        _default(inline["hostPath"], "type", "")
    rbd = inline.get("rbd")
    if isinstance(rbd, dict):
        for name, value in (("pool", "rbd"), ("user", "admin"), ("keyring", "/etc/ceph/keyring")):
            if not rbd.get(name):
                rbd[name] = value
    if isinstance(inline.get("iscsi"), dict) and not inline["iscsi"].get("iscsiInterface"):
        inline["iscsi"]["iscsiInterface"] = "default"
    azure_disk = inline.get("azureDisk")
    if isinstance(azure_disk, dict):
        for name, value in (("cachingMode", "ReadWrite"), ("fsType", "ext4"), ("readOnly", False),
                            ("kind", "Shared")):
            _default(azure_disk, name, value)
    scale_io = inline.get("scaleIO")
    if isinstance(scale_io, dict):
        for name, value in (("storageMode", "ThinProvisioned"), ("fsType", "xfs")):
            if not scale_io.get(name):
                scale_io[name] = value
