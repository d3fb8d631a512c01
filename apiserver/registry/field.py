"""Field errors as upstream's `field.Required`, `field.Invalid`, ... write them, with Go's rendering of
the value each shows.

Mirrors staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go (ErrorBody): numbers and
booleans plainly, strings quoted as Go's %q quotes them, anything else as Go's json.Marshal writes it
(compact, `<`, `>` and `&` escaped). A struct's JSON is the caller's to give in its Go field order.
"""

from __future__ import annotations

import json
from typing import Any

from apiserver.errors import FieldError

_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
               "\\": "\\\\", '"': '\\"'}


def go_quote(value: str) -> str:
    """strconv.Quote: printable characters as they are, the rest escaped."""
    out = []
    for ch in value:
        if ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'


def go_json(value: Any) -> str:
    """encoding/json.Marshal: compact, with HTML's special characters escaped."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def go_type_name(value: Any) -> str:
    """Go's %T of a JSON value decoded into unstructured content (map[string]interface{})."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    return "[]interface {}" if isinstance(value, list) else "map[string]interface {}"


def go_value(value: Any) -> str:
    """A bad value as a field error shows it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    return go_json(value)


def _body(kind: str, value: Any, detail: str) -> str:
    return f"{kind}: {go_value(value)}" + (f": {detail}" if detail else "")


def required(path: str, detail: str = "") -> FieldError:
    return FieldError("FieldValueRequired", path, "Required value" + (": " + detail if detail else ""))


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError("FieldValueForbidden", path, "Forbidden" + (": " + detail if detail else ""))


def invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, _body("Invalid value", value, detail))


def invalid_shown(path: str, shown: str, detail: str) -> FieldError:
    """Invalid, for a value whose rendering the caller has made (an internal struct's JSON)."""
    return FieldError("FieldValueInvalid", path, f"Invalid value: {shown}" + (f": {detail}" if detail else ""))


def duplicate(path: str, value: Any) -> FieldError:
    return FieldError("FieldValueDuplicate", path, _body("Duplicate value", value, ""))


def duplicate_shown(path: str, shown: str) -> FieldError:
    return FieldError("FieldValueDuplicate", path, f"Duplicate value: {shown}")


def not_found(path: str, value: Any) -> FieldError:
    return FieldError("FieldValueNotFound", path, _body("Not found", value, ""))


def not_supported(path: str, value: Any, supported: tuple[str, ...]) -> FieldError:
    detail = "supported values: " + ", ".join(go_quote(s) for s in supported) if supported else ""
    return FieldError("FieldValueNotSupported", path, _body("Unsupported value", value, detail))


def not_supported_shown(path: str, shown: str, supported: tuple[str, ...]) -> FieldError:
    return FieldError("FieldValueNotSupported", path,
                      f"Unsupported value: {shown}: supported values: " + ", ".join(go_quote(s) for s in supported))


def required_choice(value: Any, path: str, choices: tuple[str, ...]) -> list[FieldError]:
    """A field that must be one of choices: Required when empty, NotSupported when another value."""
    if not value:
        return [required(path)]
    return [] if value in choices else [not_supported(path, value, choices)]


def too_long(path: str, limit: int) -> FieldError:
    return FieldError("FieldValueTooLong", path, f"Too long: may not be more than {limit} byte{'s' * (limit != 1)}")


def too_many(path: str, actual: int, limit: int) -> FieldError:
    return FieldError("FieldValueTooMany", path,
                      f"Too many: {actual}: must have at most {limit} item{'s' * (limit != 1)}")


def port_number(path: str, value: Any) -> list[FieldError]:
    if not isinstance(value, int) or not 1 <= value <= 65535:
        return [invalid(path, value, "must be between 1 and 65535, inclusive")]
    return []


def nonnegative(path: str, value: Any) -> list[FieldError]:
    """ValidateNonnegativeField."""
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return [invalid(path, value, "must be greater than or equal to 0")]
    return []


def immutable(path: str, new: Any, old: Any) -> list[FieldError]:
    """ValidateImmutableField."""
    return [] if new == old else [invalid(path, new, "field is immutable")]


def go_map(labels: dict[str, Any]) -> str:
    """A map[string]string as Go's json.Marshal writes it: keys sorted."""
    return go_json(dict(sorted(labels.items())))


def go_selector(selector: Any) -> str:
    """A metav1.LabelSelector as json.Marshal writes it."""
    if not isinstance(selector, dict):
        return "null"
    shown: dict[str, Any] = {}
    if selector.get("matchLabels"):
        shown["matchLabels"] = dict(sorted(selector["matchLabels"].items()))
    if selector.get("matchExpressions"):
        # key and operator lack omitempty: Go writes them even when empty.
        shown["matchExpressions"] = [
            {"key": e.get("key") or "", "operator": e.get("operator") or "", **({"values": e["values"]}
                                                                                if e.get("values") else {})}
            for e in selector["matchExpressions"] if isinstance(e, dict)]
    return go_json(shown)
