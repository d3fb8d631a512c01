"""Pod volumes: ValidateVolumes and validateVolumeSource of pkg/apis/core/validation/validation.go, with
each source's own rules (those shared with persistent volumes come from `volume_sources.py`, the files a
source writes from `volume_files.py`, the downward API's from `downward_api.py`, projected volumes' from
`projected_volumes.py`), and validateEphemeralVolumeSource with the claim template it holds.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_label, dns1123_subdomain, inclusive_range_error
from apiserver.registry import field
from apiserver.registry.core import downward_api, resource_names
from apiserver.registry.core import volume_sources as shared
from apiserver.registry.core.projected_volumes import projected_volume_source
from apiserver.registry.core.pvc_validation import claim_spec
from apiserver.registry.core.volume_files import file_mode, key_to_path, local_descending_path
from apiserver.registry.meta import template_object_meta

Obj = dict[str, Any]

_PULL_POLICIES = ("Always", "IfNotPresent", "Never")


def _required(source: Obj, at: str, *keys: str) -> list[FieldError]:
    return [field.required(f"{at}.{key}") for key in keys if not source.get(key)]


def _items(source: Obj, at: str) -> list[FieldError]:
    found = file_mode(source.get("defaultMode"), f"{at}.defaultMode")
    for i, item in enumerate(source.get("items") or []):
        found += key_to_path(item if isinstance(item, dict) else {}, f"{at}.items[{i}]")
    return found


def _empty_dir(source: Obj, at: str) -> list[FieldError]:
    limit = resource_names.parsed(source["sizeLimit"]) if source.get("sizeLimit") is not None else None
    if limit is not None and limit.value < 0:
        return [field.forbidden(f"{at}.sizeLimit", "SizeLimit field must be a valid resource quantity")]
    return []


def _git_repo(source: Obj, at: str) -> list[FieldError]:
    return _required(source, at, "repository") + local_descending_path(source.get("directory") or "", f"{at}.directory")


def _secret(source: Obj, at: str) -> list[FieldError]:
    return _required(source, at, "secretName") + _items(source, at)


def _config_map(source: Obj, at: str) -> list[FieldError]:
    return _required(source, at, "name") + _items(source, at)


def _initiator_errors(value: str, path: str) -> list[FieldError]:
    if not value.startswith(("iqn", "eui", "naa")):
        return [field.invalid(path, value, "must be valid format starting with iqn, eui, or naa")]
    return [field.invalid(path, value, "must be valid format")] if shared.bad_initiator(value) else []


def _iscsi(source: Obj, at: str) -> list[FieldError]:
    found = _required(source, at, "targetPortal")
    iqn = source.get("iqn") or ""
    found += _initiator_errors(iqn, f"{at}.iqn") if iqn else [field.required(f"{at}.iqn")]
    lun = source.get("lun") or 0
    if not 0 <= lun <= 255:
        found.append(field.invalid(f"{at}.lun", lun, inclusive_range_error(0, 255)))
    if (source.get("chapAuthDiscovery") or source.get("chapAuthSession")) and source.get("secretRef") is None:
        found.append(field.required(f"{at}.secretRef"))
    initiator = source.get("initiatorName")
    if initiator is not None:
        if not initiator.startswith(("iqn", "eui", "naa")):
            found.append(field.invalid(f"{at}.initiatorname", initiator,
                                       "must be valid format starting with iqn, eui, or naa"))
        elif shared.bad_initiator(initiator):
            found.append(field.invalid(f"{at}.initiatorname", initiator, "must be valid format"))
    return found


def _secret_ref_name(source: Obj, at: str) -> list[FieldError]:
    ref = source.get("secretRef")
    return [field.required(f"{at}.secretRef.name")] if isinstance(ref, dict) and not ref.get("name") else []


def _storage_os(source: Obj, at: str) -> list[FieldError]:
    name = source.get("volumeName") or ""
    found = ([field.invalid(f"{at}.volumeName", name, m) for m in dns1123_label(name)] if name
             else [field.required(f"{at}.volumeName")])
    namespace = source.get("volumeNamespace") or ""
    if namespace:
        found += [field.invalid(f"{at}.volumeNamespace", namespace, m) for m in dns1123_label(namespace)]
    return found + _secret_ref_name(source, at)


def _csi(source: Obj, at: str) -> list[FieldError]:
    found = shared.csi_driver_name(source.get("driver") or "", f"{at}.driver")
    ref = source.get("nodePublishSecretRef")
    if isinstance(ref, dict):
        name = ref.get("name") or ""
        if not name:
            found.append(field.required(f"{at}.nodePublishSecretRef.name"))
        else:
            found += [field.invalid(f"{at}.name", name, m) for m in dns1123_subdomain(name)]
    return found


def _image(source: Obj, at: str, is_pod: bool) -> list[FieldError]:
    found = _required(source, at, "reference") if is_pod else []
    return found + field.required_choice(source.get("pullPolicy"), f"{at}.pullPolicy", _PULL_POLICIES)


def _ephemeral(source: Obj, at: str) -> list[FieldError]:
    """validateEphemeralVolumeSource: the claim template, with the options upstream gives a new one
    (ValidationOptionsForPersistentVolumeClaimTemplate: no invalid label values, no invalid data source
    groups)."""
    template = source.get("volumeClaimTemplate")
    if template is None:
        return [field.required(f"{at}.volumeClaimTemplate")]
    template = template if isinstance(template, dict) else {}
    spec = template.get("spec")
    found = template_object_meta(template.get("metadata"), f"{at}.volumeClaimTemplate.metadata")
    return found + claim_spec(spec if isinstance(spec, dict) else {}, f"{at}.volumeClaimTemplate.spec")


# validateVolumeSource's order: (field, where a second source is refused, where its errors go, its checker;
# a projected volume's takes what upstream reads from the options).
_SOURCES: tuple[tuple[str, str, str, shared.SourceCheck | None], ...] = (
    ("emptyDir", "emptyDir", "emptyDir", _empty_dir),
    ("hostPath", "hostPath", "hostPath", shared.host_path),
    ("gitRepo", "gitRepo", "gitRepo", _git_repo),
    ("gcePersistentDisk", "gcePersistentDisk", "persistentDisk", shared.gce_persistent_disk),
    ("awsElasticBlockStore", "awsElasticBlockStore", "awsElasticBlockStore", shared.aws_elastic_block_store),
    ("secret", "secret", "secret", _secret),
    ("nfs", "nfs", "nfs", shared.nfs),
    ("iscsi", "iscsi", "iscsi", _iscsi),
    ("glusterfs", "glusterfs", "glusterfs", lambda s, at: _required(s, at, "endpoints", "path")),
    ("flocker", "flocker", "flocker", shared.flocker),
    ("persistentVolumeClaim", "persistentVolumeClaim", "persistentVolumeClaim",
     lambda s, at: _required(s, at, "claimName")),
    ("rbd", "rbd", "rbd", lambda s, at: _required(s, at, "monitors", "image")),
    ("cinder", "cinder", "cinder", lambda s, at: _required(s, at, "volumeID") + _secret_ref_name(s, at)),
    ("cephfs", "cephFS", "cephfs", lambda s, at: _required(s, at, "monitors")),
    ("quobyte", "quobyte", "quobyte", shared.quobyte),
    # Upstream misspells the path of a second source here.
    ("downwardAPI", "downwarAPI", "downwardAPI", downward_api.volume_source),
    ("fc", "fc", "fc", shared.fc),
    ("flexVolume", "flexVolume", "flexVolume", shared.flex_pv),
    ("configMap", "configMap", "configMap", _config_map),
    ("azureFile", "azureFile", "azureFile", lambda s, at: _required(s, at, "secretName", "shareName")),
    ("vsphereVolume", "vsphereVolume", "vsphereVolume", shared.vsphere),
    ("photonPersistentDisk", "photonPersistentDisk", "photonPersistentDisk", shared.photon),
    ("portworxVolume", "portworxVolume", "portworxVolume", shared.portworx),
    ("azureDisk", "azureDisk", "azureDisk", shared.azure_disk),
    ("storageos", "storageos", "storageos", _storage_os),
    ("projected", "projected", "projected", None),
    ("scaleIO", "scaleIO", "scaleIO", shared.scale_io_pv),
    ("csi", "csi", "csi", _csi),
    ("ephemeral", "ephemeral", "ephemeral", _ephemeral),
)


def _volume_source(volume: Obj, name: str, is_pod: bool, at: str, pod_name: str,
                   allow_non_local_token_path: bool) -> list[FieldError]:
    found: list[FieldError] = []
    count = 0
    for key, second_at, own_at, check in _SOURCES:
        source = volume.get(key)
        if source is None:
            continue
        if count:
            found.append(field.forbidden(f"{at}.{second_at}", "may not specify more than 1 volume type"))
            continue
        count += 1
        source = source if isinstance(source, dict) else {}
        if check is None:
            found += projected_volume_source(source, f"{at}.{own_at}", allow_non_local_token_path)
        else:
            found += check(source, f"{at}.{own_at}")
        if key == "iscsi" and source.get("initiatorName") is not None \
                and len(f"{name}:{source.get('targetPortal') or ''}") > 64:
            found.append(field.invalid(f"{at}.name", name, "Total length of <volume name>:<iscsi.targetPortal> must "
                                       "be under 64 characters if iscsi.initiatorName is specified."))
        if key == "ephemeral" and pod_name and name:
            # The claim the pod gets is named after both; skipped when a name is missing, refused elsewhere.
            claim = f"{pod_name}-{name}"
            found += [field.invalid(f"{at}.name", name, f"PVC name {field.go_quote(claim)}: {msg}")
                      for msg in dns1123_subdomain(claim)]
    if volume.get("image") is not None:
        if count:
            found.append(field.forbidden(f"{at}.image", "may not specify more than 1 volume type"))
        else:
            count += 1
            found += _image(volume["image"] if isinstance(volume["image"], dict) else {}, f"{at}.image", is_pod)
    if not count:
        found.append(field.required(at, "must specify a volume type"))
    return found


def volumes(items: Any, path: str, is_pod: bool, pod_name: str = "",
            allow_non_local_token_path: bool = False) -> tuple[dict[str, Obj], list[FieldError]]:
    """ValidateVolumes: the volumes the containers may mount (only those without a problem), by name, and
    what is wrong. A pod's (named) claim may not be one its own ephemeral volumes create. An update whose
    old spec had a token path now refused may keep one (AllowNonLocalProjectedTokenPath)."""
    found: list[FieldError] = []
    names: dict[str, Obj] = {}
    items = [volume if isinstance(volume, dict) else {} for volume in items or ()]
    created = {f"{pod_name}-{v.get('name') or ''}" for v in items if pod_name and v.get("ephemeral") is not None}
    for i, volume in enumerate(items):
        at = f"{path}[{i}]"
        name = volume.get("name") or ""
        problems = _volume_source(volume, name, is_pod, at, pod_name, allow_non_local_token_path)
        if not name:
            problems.append(field.required(f"{at}.name"))
        else:
            problems += [field.invalid(f"{at}.name", name, m) for m in dns1123_label(name)]
        if name in names:
            problems.append(field.duplicate(f"{at}.name", name))
        if problems:
            found += problems
        else:
            names[name] = volume
        claim = volume.get("persistentVolumeClaim")
        if isinstance(claim, dict) and claim.get("claimName") in created:
            found.append(field.invalid(f"{at}.persistentVolumeClaim.claimName", claim["claimName"],
                                       "must not reference a PVC that gets created for an ephemeral volume"))
    return names, found
