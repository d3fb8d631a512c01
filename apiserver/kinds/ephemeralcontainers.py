"""The pods/ephemeralcontainers subresource (kubectl debug): what an update through it may change, and
upstream's rules for it (pkg/registry/core/pod/strategy.go podEphemeralContainersStrategy,
pkg/apis/core/validation ValidatePodEphemeralContainersUpdate and validateEphemeralContainers).

The update keeps the pod's spec and status as they were but for spec.ephemeralContainers (metadata goes
through as in any update). Ephemeral containers may be added, never removed or changed; each needs a
name unique among all the pod's containers and an image, may target only a regular or init container,
and may set only the fields upstream's allow list names: no ports, resources, probes or lifecycle.
"""

from __future__ import annotations

import json
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_label
from apiserver.registry.core.pod_containers import set_for_ephemeral

Obj = dict[str, Any]
SUBRESOURCE = "ephemeralcontainers"
_MIRROR_POD = "kubernetes.io/config.mirror"
_PATH = "spec.ephemeralContainers"
# EphemeralContainerCommon's fields in Go's order, with allowedEphemeralContainerFields' verdict.
_FIELDS = {
    "name": True, "image": True, "command": True, "args": True, "workingDir": True, "ports": False,
    "envFrom": True, "env": True, "resources": False, "resizePolicy": False, "restartPolicy": False,
    "restartPolicyRules": False, "volumeMounts": True, "volumeDevices": True, "livenessProbe": False,
    "readinessProbe": False, "startupProbe": False, "lifecycle": False, "terminationMessagePath": True,
    "terminationMessagePolicy": True, "imagePullPolicy": True, "securityContext": True, "stdin": True,
    "stdinOnce": True, "tty": True,
}


def prepare_update(new: Obj, old: Obj) -> Obj:
    """dropNonEphemeralContainerUpdates: old's spec and status, new's ephemeral containers and metadata."""
    spec = dict(old.get("spec") or {})
    wanted = (new.get("spec") or {}).get("ephemeralContainers")
    if wanted:
        spec["ephemeralContainers"] = wanted
    else:
        spec.pop("ephemeralContainers", None)
    prepared = {**new, "spec": spec}
    if "status" in old:
        prepared["status"] = old["status"]
    else:
        prepared.pop("status", None)
    return prepared


def validate_update(new: Obj, old: Obj) -> list[FieldError]:
    if _MIRROR_POD in (old["metadata"].get("annotations") or {}):
        return [FieldError("FieldValueForbidden", "", "Forbidden: static pods do not support ephemeral containers")]
    spec = new.get("spec") or {}
    found = _containers(spec)
    given = {c.get("name"): c for c in spec.get("ephemeralContainers") or () if isinstance(c, dict)}
    for before in (old.get("spec") or {}).get("ephemeralContainers") or ():
        name = before.get("name")
        after = given.get(name)
        if after is None:
            found.append(FieldError("FieldValueForbidden", _PATH,
                                    f"Forbidden: existing ephemeral containers {json.dumps(name)} may not be removed\n"))
        elif after != before:
            found.append(FieldError("FieldValueForbidden", _PATH,
                                    f"Forbidden: existing ephemeral containers {json.dumps(name)} may not be changed\n"
                                    + _diff(before, after)))
    return found


def _containers(spec: Obj) -> list[FieldError]:
    others = {c.get("name") for key in ("containers", "initContainers") for c in spec.get(key) or ()
              if isinstance(c, dict)}
    names = set(others)
    found: list[FieldError] = []
    for i, container in enumerate(spec.get("ephemeralContainers") or ()):
        where = f"{_PATH}[{i}]"
        if not isinstance(container, dict):
            continue
        name = container.get("name")
        if not name:
            found.append(FieldError("FieldValueRequired", f"{where}.name", "Required value"))
        else:
            found.extend(FieldError("FieldValueInvalid", f"{where}.name", f"Invalid value: {json.dumps(name)}: {m}")
                         for m in dns1123_label(str(name)))
        if not container.get("image"):
            found.append(FieldError("FieldValueRequired", f"{where}.image", "Required value"))
        if name and name in names:
            found.append(FieldError("FieldValueDuplicate", f"{where}.name", f"Duplicate value: {json.dumps(name)}"))
        names.add(name)
        target = container.get("targetContainerName")
        if target and target not in others:
            found.append(FieldError("FieldValueNotFound", f"{where}.targetContainerName",
                                    f"Not found: {json.dumps(target)}"))
        found.extend(FieldError("FieldValueForbidden", f"{where}.{field}",
                                "Forbidden: cannot be set for an Ephemeral Container")
                     for field, allowed in _FIELDS.items() if not allowed and set_for_ephemeral(container, field))
        for j, mount in enumerate(container.get("volumeMounts") or ()):
            for field in ("subPath", "subPathExpr"):
                if isinstance(mount, dict) and mount.get(field):
                    found.append(FieldError("FieldValueForbidden", f"{where}.volumeMounts[{j}].{field}",
                                            "Forbidden: cannot be set for an Ephemeral Container"))
    return found


def _diff(before: Obj, after: Obj) -> str:
    """The changed fields, old and new (upstream prints go-cmp's diff, whose layout is kept unstable)."""
    lines = []
    for key in sorted(set(before) | set(after)):
        if before.get(key) != after.get(key):
            lines.append(f"  {key}: {json.dumps(before.get(key))} -> {json.dumps(after.get(key))}")
    return "\n".join(lines)
