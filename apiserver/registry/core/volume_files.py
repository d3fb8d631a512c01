"""The files a volume writes into a pod (configMap, secret, downward API and projected sources): where each
may go and with which mode, as pkg/apis/core/validation/validation.go judges them (validateKeyToPath,
ValidateLocalNonReservedPath, validateLocalDescendingPath, the file mode checks).
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.core.volume_sources import no_backsteps

Obj = dict[str, Any]

_FILE_MODE = "must be a number between 0 and 0777 (octal), both inclusive"


def file_mode(value: Any, path: str) -> list[FieldError]:
    """A defaultMode or mode, when set: a permission within 0777."""
    return [field.invalid(path, value, _FILE_MODE)] if isinstance(value, int) and not 0 <= value <= 0o777 else []


def local_descending_path(value: str, path: str) -> list[FieldError]:
    """validateLocalDescendingPath: relative, without a `..` element."""
    found = [field.invalid(path, value, "must be a relative path")] if value.startswith("/") else []
    return found + no_backsteps(value, path)


def local_non_reserved_path(value: str, path: str) -> list[FieldError]:
    """ValidateLocalNonReservedPath: a descending path that does not start with `..` either (the kubelet keeps
    its `..data` links there); a leading `../` was already refused as a backstep."""
    found = local_descending_path(value, path)
    if value.startswith("..") and not value.startswith("../"):
        found.append(field.invalid(path, value, "must not start with '..'"))
    return found


def key_to_path(item: Obj, path: str) -> list[FieldError]:
    """validateKeyToPath: one key of a configMap or secret written as a file."""
    found = [field.required(f"{path}.{key}") for key in ("key", "path") if not item.get(key)]
    found += local_non_reserved_path(str(item.get("path") or ""), f"{path}.path")
    return found + file_mode(item.get("mode"), f"{path}.mode")
