"""The rules of metav1 validation every write's options share (apimachinery's
pkg/apis/meta/v1/validation: ValidateFieldManager, ValidateDryRun), whether the options come from the
query (create, update, patch: apiserver/http/write_options.py) or from a DeleteOptions body
(apiserver/kinds/propagation.py)."""

from __future__ import annotations

from apiserver.errors import FieldError
from apiserver.registry import field

_MAX_MANAGER_BYTES = 128


def field_manager(manager: str) -> list[FieldError]:
    """ValidateFieldManager: at most 128 bytes, and only printable characters, each other one named
    with its byte position."""
    problems = [field.too_long("fieldManager", _MAX_MANAGER_BYTES)] \
        if len(manager.encode()) > _MAX_MANAGER_BYTES else []
    position = 0
    for char in manager:
        if not char.isprintable():
            problems.append(field.invalid("fieldManager", manager,
                                          f"invalid character U+{ord(char):04X} (at position {position})"))
        position += len(char.encode())
    return problems


def dry_run(values: list[str]) -> list[FieldError]:
    """ValidateDryRun: All is the only value there is."""
    if any(value != "All" for value in values):
        return [field.not_supported_shown("dryRun", field.go_json(values), ("All",))]
    return []
