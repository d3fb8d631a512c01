"""The annotations a pod (or a pod template) is judged by beside its spec: ValidatePodSpecificAnnotations
(mirror pods, tolerations, deletion cost, the deprecated seccomp and AppArmor annotations),
validateSeccompAnnotationsAndFields and validateAppArmorAnnotationsAndFieldsMatchOnCreate of
pkg/apis/core/validation/validation.go.

A tolerations annotation that is not a JSON list of tolerations is refused with a shorter message than
Go's json.Unmarshal error text, which this server does not reproduce.
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.core.pod_spec_rules import tolerations, visit_containers

Obj = dict[str, Any]

MIRROR_POD = "kubernetes.io/config.mirror"
_TOLERATIONS = "scheduler.alpha.kubernetes.io/tolerations"
_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/"
_APPARMOR_CONTAINER = "container.apparmor.security.beta.kubernetes.io/"
_LOCALHOST = "localhost/"
_INT32 = re.compile(r"-?[0-9]+")


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _seccomp_profile(profile: str, path: str) -> list[FieldError]:
    """ValidateSeccompProfile (a deprecated annotation's value)."""
    if profile in ("runtime/default", "docker/default", "unconfined"):
        return []
    if profile.startswith(_LOCALHOST):
        local = profile.removeprefix(_LOCALHOST)
        found = [field.invalid(path, local, "must be a relative path")] if posixpath.isabs(local) else []
        if ".." in local.split("/"):
            found.append(field.invalid(path, local, "must not contain '..'"))
        return found
    return [field.invalid(path, profile, "must be a valid seccomp profile")]


def _deletion_cost_valid(value: str) -> bool:
    """helper.GetDeletionCostFromPodAnnotations: a decimal int32 without a plus sign or leading zeros."""
    if not value or not (value[0] == "-" or value == "0" or "1" <= value[0] <= "9"):
        return False
    return bool(_INT32.fullmatch(value)) and -2**31 <= int(value) < 2**31


def _tolerations(value: str, path: str) -> list[FieldError]:
    """ValidateTolerationsInPodAnnotations."""
    try:
        items = json.loads(value)
    except ValueError:
        items = None
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        return [field.invalid(path, _TOLERATIONS, "cannot unmarshal the annotation into a list of tolerations")]
    return tolerations(items, f"{path}.{_TOLERATIONS}") if items else []


def _app_armor_format(profile: str) -> str | None:
    if profile in ("", "runtime/default", "unconfined") or profile.startswith(_LOCALHOST):
        return None
    return f"invalid AppArmor profile name: {field.go_quote(profile)}"


def deletion_cost_tolerated(old_annotations: Any) -> bool:
    """AllowInvalidPodDeletionCost on update: an old pod's invalid deletion cost may stay."""
    value = _dict(old_annotations).get(_DELETION_COST)
    return value is not None and not _deletion_cost_valid(str(value))


def pod_specific_annotations(annotations: Any, spec: Obj, path: str,
                             invalid_deletion_cost: bool = False) -> list[FieldError]:
    """ValidatePodSpecificAnnotations."""
    annotations = _dict(annotations)
    found: list[FieldError] = []
    if MIRROR_POD in annotations and not spec.get("nodeName"):
        found.append(field.invalid(f"{path}[{MIRROR_POD}]", annotations[MIRROR_POD],
                                   "must set spec.nodeName if mirror pod annotation is set"))
    if annotations.get(_TOLERATIONS):
        found += _tolerations(str(annotations[_TOLERATIONS]), path)
    if not invalid_deletion_cost and _DELETION_COST in annotations \
            and not _deletion_cost_valid(str(annotations[_DELETION_COST])):
        found.append(field.invalid(f"{path}[{_DELETION_COST}]", annotations[_DELETION_COST],
                                   "must be a 32bit integer"))
    if _SECCOMP_POD in annotations:
        found += _seccomp_profile(str(annotations[_SECCOMP_POD]), f"{path}.{_SECCOMP_POD}")
    for key, value in annotations.items():
        if key.startswith(_SECCOMP_CONTAINER):
            found += _seccomp_profile(str(value), f"{path}.{key}")
    names = {c.get("name") for c, _ in visit_containers(spec, "spec")}
    for key, value in annotations.items():
        if not key.startswith(_APPARMOR_CONTAINER):
            continue
        container = key.removeprefix(_APPARMOR_CONTAINER)
        if container not in names:
            found.append(field.invalid(f"{path}[{key}]", container, "container not found"))
        problem = _app_armor_format(str(value))
        if problem:
            found.append(field.invalid(f"{path}[{key}]", value, problem))
    return found


def pod_specific_annotation_updates(new: Obj, old: Obj, spec: Obj, path: str) -> list[FieldError]:
    """ValidatePodSpecificAnnotationUpdates: AppArmor and mirror pod annotations are never added, changed or
    removed; then the new annotations are judged again."""
    new_annotations, old_annotations = _dict(new.get("annotations")), _dict(old.get("annotations"))
    found: list[FieldError] = []
    for key, was in old_annotations.items():
        if key in new_annotations and new_annotations[key] == was:
            continue
        if key.startswith(_APPARMOR_CONTAINER):
            found.append(field.forbidden(f"{path}[{key}]", "may not remove or update AppArmor annotations"))
        if key == MIRROR_POD:
            found.append(field.forbidden(f"{path}[{key}]", "may not remove or update mirror pod annotation"))
    for key in new_annotations:
        if key in old_annotations:
            continue
        if key.startswith(_APPARMOR_CONTAINER):
            found.append(field.forbidden(f"{path}[{key}]", "may not add AppArmor annotations"))
        if key == MIRROR_POD:
            found.append(field.forbidden(f"{path}[{key}]", "may not add mirror pod annotation"))
    return found + pod_specific_annotations(new_annotations, spec, path, deletion_cost_tolerated(old_annotations))


def app_armor_field(annotation: str) -> Obj | None:
    """podutil.ApparmorFieldForAnnotation, kept only when ValidateAppArmorProfileField takes it."""
    if annotation == "unconfined":
        return {"type": "Unconfined"}
    if annotation == "runtime/default":
        return {"type": "RuntimeDefault"}
    profile = annotation.removeprefix(_LOCALHOST)
    if annotation.startswith(_LOCALHOST) and profile and profile == profile.strip() and len(profile) <= 4095:
        return {"type": "Localhost", "localhostProfile": profile}
    return None


def _app_armor_skew(pod: Obj) -> list[tuple[Obj, str, Obj | None, bool]]:
    """applyAppArmorVersionSkew's decisions: per container with a deprecated AppArmor annotation and no
    field, (container, annotation key, the field to set or None, whether it is warned of): an annotation
    that makes no valid field is only warned of, one the pod's own profile says already is neither."""
    spec = _dict(pod.get("spec"))
    if _dict(spec.get("os")).get("name") == "windows":
        return []
    annotations = _dict(_dict(pod.get("metadata")).get("annotations"))
    pod_profile = _dict(spec.get("securityContext")).get("appArmorProfile")
    found: list[tuple[Obj, str, Obj | None, bool]] = []
    for c, _ in visit_containers(spec, "spec"):
        key = _APPARMOR_CONTAINER + str(c.get("name") or "")
        context = c.get("securityContext")
        if key not in annotations or (isinstance(context, dict) and context.get("appArmorProfile") is not None):
            continue
        profile = app_armor_field(str(annotations[key]))
        copied = profile is not None and profile != pod_profile
        found.append((c, key, profile if copied else None, profile is None or copied))
    return found


def app_armor_version_skew(pod: Obj) -> None:
    """The pod strategy's applyAppArmorVersionSkew on create: a container's deprecated AppArmor annotation
    becomes its field, unless it has one or the pod's own profile says the same."""
    for c, _, profile, _ in _app_armor_skew(pod):
        if profile is not None:
            c["securityContext"] = {**_dict(c.get("securityContext")), "appArmorProfile": profile}


def app_armor_skew_warnings(pod: Obj) -> list[str]:
    """What applyAppArmorVersionSkew warns of while it prepares a created pod (before WarningsOnCreate)."""
    return [f'metadata.annotations[{key}]: deprecated since v1.30; use the "appArmorProfile" field instead'
            for _, key, _, warned in _app_armor_skew(pod) if warned]


def _seccomp_match(annotation: str, profile: Obj, path: str) -> list[FieldError]:
    """validateSeccompAnnotationsAndFieldsMatch."""
    kind = profile.get("type")
    mismatch = [field.forbidden(f"{path}.type", "seccomp type in annotation and field must match")]
    if kind == "Unconfined":
        return mismatch if annotation != "unconfined" else []
    if kind == "RuntimeDefault":
        return mismatch if annotation not in ("runtime/default", "docker/default") else []
    if kind == "Localhost":
        if not annotation.startswith(_LOCALHOST):
            return mismatch
        if annotation.removeprefix(_LOCALHOST) != profile.get("localhostProfile"):
            return [field.forbidden(f"{path}.localhostProfile", "seccomp profile in annotation and field must match")]
    return []


def seccomp_annotations_and_fields(meta: Obj, spec: Obj, path: str) -> list[FieldError]:
    """validateSeccompAnnotationsAndFields: where both say a seccomp profile, they say the same."""
    annotations = _dict(meta.get("annotations"))
    found: list[FieldError] = []
    pod_profile = _dict(spec.get("securityContext")).get("seccompProfile")
    if isinstance(pod_profile, dict) and _SECCOMP_POD in annotations:
        found += _seccomp_match(str(annotations[_SECCOMP_POD]), pod_profile, f"{path}.securityContext.seccompProfile")
    for c, at in visit_containers(spec, path):
        profile = _dict(c.get("securityContext")).get("seccompProfile")
        key = _SECCOMP_CONTAINER + str(c.get("name") or "")
        if isinstance(profile, dict) and key in annotations:
            found += _seccomp_match(str(annotations[key]), profile, f"{at}.securityContext.seccompProfile")
    return found


def app_armor_annotations_and_fields(meta: Obj, spec: Obj, path: str) -> list[FieldError]:
    """validateAppArmorAnnotationsAndFieldsMatchOnCreate (Windows pods aside)."""
    if _dict(spec.get("os")).get("name") == "windows":
        return []
    annotations = _dict(meta.get("annotations"))
    pod_profile = _dict(spec.get("securityContext")).get("appArmorProfile")
    found: list[FieldError] = []
    for c, at in visit_containers(spec, path):
        own = _dict(c.get("securityContext")).get("appArmorProfile")
        profile = own if isinstance(own, dict) else pod_profile
        key = _APPARMOR_CONTAINER + str(c.get("name") or "")
        if not isinstance(profile, dict) or key not in annotations:
            continue
        annotation, where = str(annotations[key]), f"{at}.securityContext.appArmorProfile"
        kind = profile.get("type")
        mismatch = field.forbidden(f"{where}.type", "apparmor type in annotation and field must match")
        expected = {"Unconfined": "unconfined", "RuntimeDefault": "runtime/default"}.get(str(kind))
        if expected is not None and annotation != expected:
            found.append(mismatch)
        elif kind == "Localhost":
            if not annotation.startswith(_LOCALHOST):
                found.append(mismatch)
            elif annotation.removeprefix(_LOCALHOST) != profile.get("localhostProfile"):
                found.append(field.forbidden(f"{where}.localhostProfile",
                                             "apparmor profile in annotation and field must match"))
    return found
