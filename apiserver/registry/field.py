"""Field errors as upstream's `field.Required`, `field.Invalid`, ... write them, and the Go renderings
of values their messages show.

Mirrors staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go; each constructor returns
one errors.FieldError, and a kind's validation returns them in upstream's order.
"""

from __future__ import annotations

import json
from typing import Any

from apiserver.errors import FieldError


def required(path: str, detail: str = "") -> FieldError:
    return FieldError("FieldValueRequired", path, "Required value" + (": " + detail if detail else ""))


def invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {json.dumps(value)}: {detail}")


def invalid_shown(path: str, shown: str, detail: str) -> FieldError:
    """Invalid, for a value whose Go rendering the caller has made (a struct, a map)."""
    return FieldError("FieldValueInvalid", path, f"Invalid value: {shown}: {detail}")


def duplicate(path: str, value: Any) -> FieldError:
    return FieldError("FieldValueDuplicate", path, f"Duplicate value: {json.dumps(value)}")


def not_supported(path: str, value: Any, supported: tuple[str, ...]) -> FieldError:
    return FieldError("FieldValueNotSupported", path, f"Unsupported value: {json.dumps(value)}: supported values: "
                      + ", ".join(json.dumps(s) for s in supported))


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError("FieldValueForbidden", path, f"Forbidden: {detail}")


def port_number(path: str, value: Any) -> list[FieldError]:
    if not isinstance(value, int) or not 1 <= value <= 65535:
        return [invalid(path, value, "must be between 1 and 65535, inclusive")]
    return []


def go_map(labels: dict[str, Any]) -> str:
    """A label map as Go's %#v prints it."""
    return "map[string]string{" + ", ".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in sorted(labels.items())) + "}"


def go_strings(values: Any) -> str:
    """A string slice as Go's %#v prints it."""
    return "[]string{" + ", ".join(json.dumps(v) for v in values) + "}"


def go_selector(selector: Any) -> str:
    """A metav1.LabelSelector as Go's %#v prints it."""
    if not isinstance(selector, dict):
        return "null"
    labels = selector.get("matchLabels")
    shown = go_map(labels) if labels else "map[string]string(nil)"
    return f"v1.LabelSelector{{MatchLabels:{shown}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}}"


def json_text(value: Any) -> str:
    """A value as JSON text, as Go's %q quotes a string."""
    return json.dumps(value)
