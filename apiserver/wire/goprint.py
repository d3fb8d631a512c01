"""Go's fmt verbs on a JSON value decoded as unstructured content (map[string]interface{}), for messages
that print one: %v (`plain`) and %#v (`sharp`); %T is registry.field.go_type_name.

Maps print with their keys sorted, as fmt sorts them; numbers as the int64 or float64 they decode to.
`sorted_keys` gives a value as encoding/json marshals it from such content: every map's keys sorted.
"""

from __future__ import annotations

import decimal
from typing import Any

from apiserver.registry.field import go_quote


def sorted_keys(value: Any) -> Any:
    """The value with every object's keys in sorted order, as json.Marshal writes a map[string]interface{}."""
    if isinstance(value, dict):
        return {k: sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sorted_keys(v) for v in value]
    return value


def plain(value: Any) -> str:
    """fmt's %v (and %+v): no quotes, maps as map[k:v ...], lists as [a b], nil as <nil>."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{plain(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(plain(v) for v in value) + "]"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _float(value)
    return str(value)


def sharp(value: Any, map_type: str = "map[string]interface {}") -> str:
    """fmt's %#v of a value held in an interface{}: Go syntax, with a nil and a container's type named;
    `map_type` names the maps' Go type (go-yaml decodes into map[interface {}]interface {})."""
    if isinstance(value, dict):
        inner = ", ".join(f"{go_quote(k)}:{_sharp_element(value[k], map_type)}" for k in sorted(value))
        return map_type + "{" + inner + "}"
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(_sharp_element(v, map_type) for v in value) + "}"
    if isinstance(value, str):
        return go_quote(value)
    return plain(value)


def _sharp_element(value: Any, map_type: str) -> str:
    return "interface {}(nil)" if value is None else sharp(value, map_type)


def _float(value: float) -> str:
    """%v of a float64: the shortest form, in exponent notation from 1e21 up and below 1e-4."""
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        return f"{mantissa}e{sign}{abs(int(exponent)):02d}"
    return text


def json_number(value: float) -> str:
    """encoding/json's text of a number: a float64 in %f below 1e21 (and from 1e-6), else in %e with
    a negative exponent's leading zero dropped."""
    if isinstance(value, int) or value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    if 1e-6 <= abs(value) < 1e21:
        return format(decimal.Decimal(repr(value)), "f")
    text = plain(value)
    return text[:-2] + text[-1] if text[-4:-1] in ("e-0",) else text
