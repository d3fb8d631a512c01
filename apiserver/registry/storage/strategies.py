"""storage.k8s.io/v1's strategies: pkg/registry/storage/<kind>/strategy.go, and the warnings of
pkg/api/storage/util.go.

VolumeAttachment's status is reset on create and kept on update by the write path (it has a status
subresource). Feature gates at 1.36 defaults: VolumeLimitScaling is off, so a CSIDriver's
preventPodSchedulingIfMissing is dropped; CSIServiceAccountTokenSecrets is on.
"""

from __future__ import annotations

from typing import Any

from apiserver.registry import admission_plugins
from apiserver.registry.node.warnings import deprecated_label_message, node_selector
from apiserver.registry.storage import defaults, validation
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]

_TOKEN_IN_SECRETS_RECOMMENDED = ("spec.serviceAccountTokenInSecrets is unset; if supported by this CSI driver, set "
                                 "to true to prevent possible logging of tokens in volume attributes")


def _csi_driver_create(obj: Obj) -> None:
    (obj.get("spec") or {}).pop("preventPodSchedulingIfMissing", None)


def _csi_driver_update(new: Obj, old: Obj) -> None:
    """Drops what a disabled gate guards unless old already held it; a spec change is a new generation
    (upstream sets none on create)."""
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    if old_spec.get("preventPodSchedulingIfMissing") is None:
        spec.pop("preventPodSchedulingIfMissing", None)
    if spec != old_spec:
        new["metadata"]["generation"] = int(old["metadata"].get("generation") or 0) + 1


def _token_warnings(spec: Obj) -> list[str]:
    return [_TOKEN_IN_SECRETS_RECOMMENDED] if spec.get("tokenRequests") and \
        spec.get("serviceAccountTokenInSecrets") is None else []


def _csi_driver_update_warnings(new: Obj, old: Obj) -> list[str]:
    spec = new.get("spec") or {}
    if (spec.get("tokenRequests") or None) == ((old.get("spec") or {}).get("tokenRequests") or None):
        return []
    return _token_warnings(spec)


def _storage_class_warnings(obj: Obj) -> list[str]:
    """GetWarningsForStorageClass: deprecated node labels in allowedTopologies."""
    warnings = []
    for i, term in enumerate(obj.get("allowedTopologies") or ()):
        for j, expression in enumerate((term or {}).get("matchLabelExpressions") or ()):
            message = deprecated_label_message((expression or {}).get("key"))
            if message is not None:
                warnings.append(f"allowedTopologies[{i}].matchLabelExpressions[{j}].key: {message}")
    return warnings


STRATEGIES: dict[str, Strategy] = {
    "StorageClass": KindStrategy(
        default=defaults.storage_class, validate=validation.storage_class,
        validate_update=validation.storage_class_update, returns_deleted_object=True,
        warnings_on_create=_storage_class_warnings,
        warnings_on_update=lambda new, old: _storage_class_warnings(new)),
    "CSIDriver": KindStrategy(
        default=defaults.csi_driver, prepare_for_create=_csi_driver_create, prepare_for_update=_csi_driver_update,
        validate=validation.csi_driver, validate_update=validation.csi_driver_update, returns_deleted_object=True,
        warnings_on_create=lambda obj: _token_warnings(obj.get("spec") or {}),
        warnings_on_update=_csi_driver_update_warnings),
    "VolumeAttributesClass": KindStrategy(
        prepare_for_create=lambda obj: admission_plugins.storage_object_in_use_protection(
            obj, "kubernetes.io/vac-protection"),
        validate=validation.volume_attributes_class, validate_update=validation.volume_attributes_class_update,
        returns_deleted_object=True),
    "CSINode": KindStrategy(validate=validation.csi_node, validate_update=validation.csi_node_update,
                            returns_deleted_object=True),
    "CSIStorageCapacity": KindStrategy(
        validate=validation.csi_storage_capacity, validate_update=validation.csi_storage_capacity_update,
        warnings_on_create=lambda obj: node_selector(obj.get("nodeTopology"), "nodeTopology"),
        warnings_on_update=lambda new, old: node_selector(new.get("nodeTopology"), "nodeTopology")),
    # The status strategy judges an update as the main one does (its spec is old's).
    "VolumeAttachment": KindStrategy(
        default=defaults.volume_attachment, validate=validation.volume_attachment,
        validate_update=validation.volume_attachment_update, returns_deleted_object=True,
        validate_subresource_update=lambda _, new, old: validation.volume_attachment_update(new, old)),
}
