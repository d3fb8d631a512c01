"""Values written the way kube-apiserver's Go code writes them: fmt's %v and encoding/json.

Python's own renderings differ where a client can see it: 1e6 is "1e+06" for fmt and "1000000" for
encoding/json, 3.0 is "3" for both, and encoding/json escapes <, > and & inside strings.
"""

from __future__ import annotations

import json
import math
from typing import Any

_GO_STRING_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                      ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))


def _shortest(value: float) -> tuple[str, int]:
    """The shortest round-tripping digits of |value| and the decimal point's position after the first."""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    point = len(whole) + int(exponent or 0)
    point -= len(whole + fraction) - len((whole + fraction).lstrip("0"))
    digits = digits.rstrip("0") or "0"
    return digits, point


def _exponent_form(sign: str, digits: str, point: int, min_exp_digits: int) -> str:
    exp = point - 1
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):0{min_exp_digits}d}"


def _fixed_form(sign: str, digits: str, point: int) -> str:
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _special(value: float) -> str | None:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return None


def format_float(value: float) -> str:
    """fmt's %v of a float64: %g with the shortest digits, so exponent form below 1e-4 and from 1e6 on."""
    special = _special(value)
    if special is not None:
        return special
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    digits, point = _shortest(value)
    exp = point - 1
    # strconv decides %g's form with precision 6 when asked for the shortest digits.
    if exp < -4 or exp >= 6:
        return _exponent_form(sign, digits, point, 2)
    return _fixed_form(sign, digits, point)


def _json_float(value: float) -> str:
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits, point = _shortest(value)
    if abs(value) < 1e-6 or abs(value) >= 1e21:
        return _exponent_form(sign, digits, point, 1)
    return _fixed_form(sign, digits, point)


def _json_string(value: str) -> str:
    text = json.dumps(value, ensure_ascii=False)
    for raw, escaped in _GO_STRING_ESCAPES:
        text = text.replace(raw, escaped)
    return text


def json_text(value: Any) -> str:
    """encoding/json's Marshal of a decoded JSON value: compact, map keys sorted."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _json_float(value)
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, list):
        return "[" + ",".join(json_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(_json_string(k) + ":" + json_text(value[k]) for k in sorted(value)) + "}"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def value_text(value: Any) -> str:
    """fmt's %v of a decoded JSON scalar (strings bare, numbers and booleans as Go prints them)."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return format_float(value)
    return str(value)
