"""storage.k8s.io/v1 validation: pkg/apis/storage/validation/validation.go, for the rules ported so far."""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field

Obj = dict[str, Any]


def storage_class(obj: Obj) -> list[FieldError]:
    return [] if obj.get("provisioner") else [field.required("provisioner")]


def storage_class_update(new: Obj, old: Obj) -> list[FieldError]:
    found = storage_class(new)
    if found:
        return found
    if new.get("parameters") != old.get("parameters"):
        found.append(field.forbidden("parameters", "updates to parameters are forbidden."))
    if new["provisioner"] != old.get("provisioner"):
        found.append(field.forbidden("provisioner", "updates to provisioner are forbidden."))
    if new.get("reclaimPolicy") != old.get("reclaimPolicy"):
        found.append(field.forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."))
    if new.get("volumeBindingMode") != old.get("volumeBindingMode"):
        found.append(field.invalid("volumeBindingMode", new.get("volumeBindingMode"), "field is immutable"))
    return found


def csi_driver_update(new: Obj, old: Obj) -> list[FieldError]:
    """What a driver's node plugins were deployed with cannot change under them."""
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    return [field.invalid(f"spec.{name}", spec.get(name), "field is immutable")
            for name in ("attachRequired", "fsGroupPolicy")
            if spec.get(name) != old_spec.get(name)]
