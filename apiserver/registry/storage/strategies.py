"""storage.k8s.io/v1's strategies: pkg/registry/storage/<kind>/strategy.go."""

from __future__ import annotations

from apiserver.registry import admission_plugins
from apiserver.registry.storage import defaults, validation
from apiserver.registry.strategy import NO_RULES, KindStrategy, Strategy

STRATEGIES: dict[str, Strategy] = {
    "StorageClass": KindStrategy(default=defaults.storage_class, validate=validation.storage_class,
                                 validate_update=validation.storage_class_update, returns_deleted_object=True),
    "CSIDriver": KindStrategy(default=defaults.csi_driver, validate_update=validation.csi_driver_update,
                              returns_deleted_object=True),
    "VolumeAttributesClass": KindStrategy(
        prepare_for_create=lambda obj: admission_plugins.storage_object_in_use_protection(
            obj, "kubernetes.io/vac-protection"), returns_deleted_object=True),
    "CSINode": KindStrategy(returns_deleted_object=True), "CSIStorageCapacity": NO_RULES,
    "VolumeAttachment": KindStrategy(returns_deleted_object=True),
}
