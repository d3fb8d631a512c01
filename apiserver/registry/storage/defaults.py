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
