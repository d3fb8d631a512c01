"""PersistentVolumeClaim validation and strategy: ValidatePersistentVolumeClaim(Spec, Update) of
pkg/apis/core/validation/validation.go, and pkg/registry/core/persistentvolumeclaim/strategy.go's data
source handling (pkg/api/persistentvolumeclaim/util.go) at 1.36's gates (AnyVolumeDataSource on,
CrossNamespaceVolumeDataSource off, VolumeAttributesClass and RecoverVolumeExpansionFailure on).
"""

from __future__ import annotations

import copy
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_label, dns1123_subdomain
from apiserver.registry import field
from apiserver.registry.core import go_structs, resource_names
from apiserver.registry.core.pv_validation import ACCESS_MODES, VOLUME_MODES
from apiserver.registry.meta import label_selector

Obj = dict[str, Any]

# Upstream passes a *field.Path as the bad value, which json.Marshal writes as an empty object.
_FIELD_PATH = "{}"
_BETA_CLASS = "volume.beta.kubernetes.io/storage-class"
_SPEC_IMMUTABLE = "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"


def _data_source(source: Obj, at: str, allow_bad_group: bool, with_namespace: bool) -> list[FieldError]:
    """validateDataSource and validateDataSourceRef."""
    found = [field.required(f"{at}.{key}") for key in ("name", "kind") if not source.get(key)]
    group, kind = source.get("apiGroup") or "", source.get("kind") or ""
    if not group and kind != "PersistentVolumeClaim":
        found.append(field.invalid(at, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
    if group and not allow_bad_group:
        found += [field.invalid(f"{at}.apiGroup", group, msg) for msg in dns1123_subdomain(group)]
    namespace = source.get("namespace") or ""
    if with_namespace and namespace:
        found += [field.invalid(f"{at}.namespace", namespace, msg) for msg in dns1123_label(namespace)]
    return found


def claim_spec(spec: Obj, path: str, allow_bad_group: bool = False) -> list[FieldError]:
    """ValidatePersistentVolumeClaimSpec."""
    found: list[FieldError] = []
    modes = spec.get("accessModes") or []
    if not modes:
        found.append(field.required(f"{path}.accessModes", "at least 1 access mode is required"))
    if spec.get("selector") is not None:
        found += label_selector(spec["selector"], f"{path}.selector")
    once_pod = others = False
    for mode in modes:
        if mode not in ACCESS_MODES:
            found.append(field.not_supported(f"{path}.accessModes", mode, ACCESS_MODES))
        if mode == "ReadWriteOncePod":
            once_pod = True
        elif mode in ACCESS_MODES:
            others = True
    if once_pod and others:
        found.append(field.forbidden(f"{path}.accessModes", "may not use ReadWriteOncePod with other access modes"))
    requests = (spec.get("resources") or {}).get("requests") or {}
    at = f"{path}.resources[storage]"
    if "storage" not in requests:
        found.append(field.required(at))
    else:
        storage = resource_names.parsed(requests["storage"])
        if storage is not None and storage.value <= 0:
            found.append(field.invalid(at, str(storage), "must be greater than zero"))
        else:
            found += resource_names.quantity_value("storage", requests["storage"], at)
    class_name = spec.get("storageClassName")
    if class_name:
        found += [field.invalid(f"{path}.storageClassName", class_name, msg) for msg in dns1123_subdomain(class_name)]
    mode = spec.get("volumeMode")
    if mode is not None and mode not in VOLUME_MODES:
        found.append(field.not_supported(f"{path}.volumeMode", mode, VOLUME_MODES))
    source, ref = spec.get("dataSource"), spec.get("dataSourceRef")
    if source is not None:
        found += _data_source(source, f"{path}.dataSource", allow_bad_group, False)
    if ref is not None:
        found += _data_source(ref, f"{path}.dataSourceRef", allow_bad_group, True)
    if ref is not None and ref.get("namespace"):
        if source is not None:
            found.append(field.invalid_shown(path, _FIELD_PATH, "may not be specified when dataSourceRef.namespace is "
                                                                "specified"))
    elif source is not None and ref is not None and not _same_source(source, ref):
        found.append(field.invalid_shown(path, _FIELD_PATH, "must match dataSourceRef"))
    attributes_class = spec.get("volumeAttributesClassName")
    if attributes_class:
        found += [field.invalid(f"{path}.volumeAttributesClassName", attributes_class, msg)
                  for msg in dns1123_subdomain(attributes_class)]
    return found


def _same_source(source: Obj, ref: Obj) -> bool:
    return source.get("apiGroup") == ref.get("apiGroup") and all(
        (source.get(k) or "") == (ref.get(k) or "") for k in ("kind", "name"))


def persistent_volume_claim(obj: Obj) -> list[FieldError]:
    """ValidatePersistentVolumeClaim (its metadata aside)."""
    return claim_spec(obj.get("spec") or {}, "spec")


def _bad_group_in_use(spec: Obj) -> bool:
    return any(isinstance(spec.get(k), dict) and spec[k].get("apiGroup") is not None
               for k in ("dataSource", "dataSourceRef"))


def _upgrade_from_annotation(old: Obj, new: Obj) -> bool:
    old_annotations = (old.get("metadata") or {}).get("annotations") or {}
    new_annotations = (new.get("metadata") or {}).get("annotations") or {}
    new_class = (new.get("spec") or {}).get("storageClassName")
    return (_BETA_CLASS in old_annotations and (old.get("spec") or {}).get("storageClassName") is None
            and new_class is not None and new_class == old_annotations[_BETA_CLASS]
            and new_annotations.get(_BETA_CLASS, old_annotations[_BETA_CLASS]) == old_annotations[_BETA_CLASS])


def persistent_volume_claim_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidatePersistentVolumeClaimUpdate (its metadata aside): only a bound claim's storage request and
    attributes class, a first volume name and a first storage class may change."""
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    found = claim_spec(spec, "spec", _bad_group_in_use(old_spec))
    new_clone, old_clone = copy.deepcopy(spec), copy.deepcopy(old_spec)
    if not old_spec.get("volumeName"):
        old_clone["volumeName"] = new_clone.get("volumeName")
    old_annotations = (old.get("metadata") or {}).get("annotations") or {}
    if _upgrade_from_annotation(old, new):
        new_clone["storageClassName"] = None
    else:
        new_value = ((new.get("metadata") or {}).get("annotations") or {}).get(_BETA_CLASS, "")
        if new_value != old_annotations.get(_BETA_CLASS, ""):
            found.append(field.invalid(f"metadata.annotations.{_BETA_CLASS}", new_value, "field is immutable"))
        new_class = spec.get("storageClassName")
        if new_class is not None and old_spec.get("storageClassName") is None \
                and (_BETA_CLASS not in old_annotations or new_class == old_annotations[_BETA_CLASS]):
            new_clone["storageClassName"] = old_clone.get("storageClassName")
    bound = (new.get("status") or {}).get("phase") == "Bound"
    requests = (new_clone.get("resources") or {}).get("requests")
    if bound and requests is not None:
        requests["storage"] = ((old_spec.get("resources") or {}).get("requests") or {}).get("storage")
    if bound:
        new_clone["volumeAttributesClassName"] = old_clone.get("volumeAttributesClassName")
    old_shown = go_structs.struct("PersistentVolumeClaimSpec", old_clone)
    new_shown = go_structs.struct("PersistentVolumeClaimSpec", new_clone)
    if old_shown != new_shown:
        found.append(field.forbidden("spec", _SPEC_IMMUTABLE + "\n" + go_structs.diff(old_shown, new_shown)))
    old_size = resource_names.parsed(((old_spec.get("resources") or {}).get("requests") or {}).get("storage", "0"))
    new_size = resource_names.parsed(((spec.get("resources") or {}).get("requests") or {}).get("storage", "0"))
    status_size = resource_names.parsed(((old.get("status") or {}).get("capacity") or {}).get("storage", "0"))
    if old_size is not None and new_size is not None and status_size is not None \
            and new_size.value < old_size.value and new_size.value <= status_size.value:
        found.append(field.forbidden("spec.resources.requests.storage", "field can not be less than status.capacity"))
    found += field.immutable("volumeMode", spec.get("volumeMode"), old_spec.get("volumeMode"))
    if old_spec.get("volumeAttributesClassName") != spec.get("volumeAttributesClassName") \
            and (old.get("status") or {}).get("currentVolumeAttributesClassName") is not None:
        if spec.get("volumeAttributesClassName") is None:
            found.append(field.forbidden("spec.volumeAttributesClassName",
                                         "update to nil is forbidden when status.currentVolumeAttributesClassName "
                                         "is not nil"))
        elif not spec["volumeAttributesClassName"]:
            found.append(field.forbidden("spec.volumeAttributesClassName",
                                         "update to empty string is forbidden when "
                                         "status.currentVolumeAttributesClassName is not nil"))
    return found


# -- strategy --------------------------------------------------------------------------------------

def _is_pvc_or_snapshot(source: Any) -> bool:
    if not isinstance(source, dict):
        return False
    group, kind = source.get("apiGroup") or "", source.get("kind")
    return (kind == "PersistentVolumeClaim" and group == "") or \
        (kind == "VolumeSnapshot" and group == "snapshot.storage.k8s.io")


def _data_sources(spec: Obj, old_spec: Obj | None) -> None:
    """DropDisabledFields, EnforceDataSourceBackwardsCompatibility and NormalizeDataSources."""
    ref = spec.get("dataSourceRef")
    old_ref = (old_spec or {}).get("dataSourceRef")
    if isinstance(ref, dict) and ref.get("namespace") and old_ref is None:
        spec.pop("dataSourceRef", None)  # CrossNamespaceVolumeDataSource is off
    in_use = old_spec is not None and (old_spec.get("dataSource") is not None or old_ref is not None)
    if not in_use and spec.get("dataSourceRef") is None and spec.get("dataSource") is not None \
            and not _is_pvc_or_snapshot(spec["dataSource"]):
        spec.pop("dataSource", None)
    normalize_data_sources(spec)


def _reference(source: Obj) -> Obj:
    """The group, kind and name one data source field copies from the other (kind and name always written)."""
    copied = {"apiGroup": source["apiGroup"]} if source.get("apiGroup") is not None else {}
    return copied | {"kind": source.get("kind") or "", "name": source.get("name") or ""}


def normalize_data_sources(spec: Obj) -> None:
    """NormalizeDataSources: whichever of dataSource and dataSourceRef is set alone fills the other."""
    source, ref = spec.get("dataSource"), spec.get("dataSourceRef")
    if isinstance(source, dict) and ref is None:
        spec["dataSourceRef"] = _reference(source)
    elif isinstance(ref, dict) and source is None and not ref.get("namespace"):
        spec["dataSource"] = _reference(ref)


def prepare_for_create(obj: Obj) -> None:
    if isinstance(obj.get("spec"), dict):
        _data_sources(obj["spec"], None)


def prepare_for_update(new: Obj, old: Obj) -> None:
    # Upstream normalizes the old claim too; what this server stored was normalized when written.
    if isinstance(new.get("spec"), dict):
        _data_sources(new["spec"], old.get("spec") or {})
