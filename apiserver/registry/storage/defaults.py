"""storage.k8s.io/v1 defaulting: pkg/apis/storage/v1/defaults.go."""

from __future__ import annotations

from typing import Any

from apiserver.registry.core.defaults import spec_of

Obj = dict[str, Any]


def storage_class(obj: Obj) -> None:
    obj.setdefault("reclaimPolicy", "Delete")
    obj.setdefault("volumeBindingMode", "Immediate")


def csi_driver(obj: Obj) -> None:
    spec = spec_of(obj)
    spec.setdefault("attachRequired", True)
    spec.setdefault("podInfoOnMount", False)
    spec.setdefault("volumeLifecycleModes", ["Persistent"])
    spec.setdefault("storageCapacity", False)
    spec.setdefault("fsGroupPolicy", "ReadWriteOnceWithFSType")
    spec.setdefault("requiresRepublish", False)
    spec.setdefault("seLinuxMount", False)
