"""ConfigMap and Secret validation: ValidateConfigMap(Update) and ValidateSecret(Update) of
pkg/apis/core/validation/validation.go, whole.

Keys are config-map keys; a Secret's type decides which keys it must hold; `immutable` freezes the
data. Sizes count decoded bytes (1 MiB at most, as upstream's MaxSecretSize).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds.validation import config_map_key
from apiserver.registry import field

Obj = dict[str, Any]

MAX_SIZE = 1024 * 1024
_IMMUTABLE = "field is immutable when `immutable` is set"


def _decoded_length(value: Any) -> int:
    try:
        return len(base64.b64decode(str(value), validate=False))
    except (binascii.Error, ValueError):
        return len(str(value))


def config_map(obj: Obj) -> list[FieldError]:
    found: list[FieldError] = []
    data, binary = obj.get("data") or {}, obj.get("binaryData") or {}
    total = 0
    for key, value in data.items():
        found += [field.invalid(f"data[{key}]", key, msg) for msg in config_map_key(key)]
        if key in binary:
            found.append(field.invalid(f"data[{key}]", key, "duplicate of key present in binaryData"))
        total += len(str(value).encode())
    for key, value in binary.items():
        found += [field.invalid(f"binaryData[{key}]", key, msg) for msg in config_map_key(key)]
        total += _decoded_length(value)
    if total > MAX_SIZE:
        # Upstream's field.NewPath(""): a path of one empty name, which renders as "[]".
        found.append(field.too_long("[]", MAX_SIZE))
    return found


def config_map_update(new: Obj, old: Obj) -> list[FieldError]:
    found: list[FieldError] = []
    if old.get("immutable") is True:
        if new.get("immutable") is not True:
            found.append(field.forbidden("immutable", _IMMUTABLE))
        if (new.get("data") or {}) != (old.get("data") or {}):
            found.append(field.forbidden("data", _IMMUTABLE))
        if (new.get("binaryData") or {}) != (old.get("binaryData") or {}):
            found.append(field.forbidden("binaryData", _IMMUTABLE))
    return found + config_map(new)


def _json_object(raw: Any) -> str | None:
    """The error of json.Unmarshal into a map, for a docker config that is not one."""
    try:
        decoded = json.loads(base64.b64decode(str(raw)))
    except (ValueError, binascii.Error):
        return "invalid character looking for beginning of value"
    return None if isinstance(decoded, dict) else "json: cannot unmarshal into Go value of type map[string]interface {}"


def secret(obj: Obj) -> list[FieldError]:
    found: list[FieldError] = []
    data = obj.get("data") or {}
    total = 0
    for key, value in data.items():
        found += [field.invalid(f"data[{key}]", key, msg) for msg in config_map_key(key)]
        total += _decoded_length(value)
    if total > MAX_SIZE:
        found.append(field.too_long("data", MAX_SIZE))
    kind = obj.get("type") or ""
    if kind == "kubernetes.io/service-account-token":
        if not ((obj["metadata"].get("annotations") or {}).get("kubernetes.io/service-account.name")):
            found.append(field.required("metadata.annotations[kubernetes.io/service-account.name]"))
    elif kind in ("kubernetes.io/dockercfg", "kubernetes.io/dockerconfigjson"):
        key = ".dockercfg" if kind == "kubernetes.io/dockercfg" else ".dockerconfigjson"
        if key not in data:
            found.append(field.required(f"data[{key}]"))
        else:
            problem = _json_object(data[key])
            if problem is not None:
                found.append(field.invalid(f"data[{key}]", "<secret contents redacted>", problem))
    elif kind == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:
            found += [field.required("data[username]"), field.required("data[password]")]
    elif kind == "kubernetes.io/ssh-auth":
        if not data.get("ssh-privatekey"):
            found.append(field.required("data[ssh-privatekey]"))
    elif kind == "kubernetes.io/tls":
        found += [field.required(f"data[{key}]") for key in ("tls.crt", "tls.key") if key not in data]
    return found


def secret_update(new: Obj, old: Obj) -> list[FieldError]:
    found = field.immutable("type", new.get("type") or "", old.get("type") or "")
    if old.get("immutable") is True:
        if new.get("immutable") is not True:
            found.append(field.forbidden("immutable", _IMMUTABLE))
        if (new.get("data") or {}) != (old.get("data") or {}):
            found.append(field.forbidden("data", _IMMUTABLE))
    return found + secret(new)
