"""Values of the right JSON type that decoding into upstream's Go types still refuses, in Go's words.

encoding/json refuses a number outside its Go integer's range; a []byte field takes only base64
(encoding/base64's StdEncoding, whose errors name the offset of the first bad byte); metav1.Time and
MicroTime take only RFC 3339 text (time.Parse's errors); resource.Quantity only its own syntax. Each
error is what upstream's decoder says after "<Kind> in version ... cannot be handled as a <Kind>: ".
"""

from __future__ import annotations

import json
import re
from typing import Any

from apiserver.kinds import quantity, schemas

_TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
_MICRO_TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"
_INT_RANGES = {"int32": (-(1 << 31), (1 << 31) - 1), "int64": (-(1 << 63), (1 << 63) - 1)}
_BASE64 = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_RFC3339 = "2006-01-02T15:04:05Z07:00"
_RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"


def judges(definition: str | None, fmt: str | None) -> bool:
    """Whether values of this schema can be refused for more than their JSON type."""
    return fmt in _INT_RANGES or fmt == "byte" or definition in (_TIME, _MICRO_TIME, schemas.QUANTITY)


def stops(definition: str | None) -> bool:
    """Whether a value of this definition is decoded by its own UnmarshalJSON (metav1.Time, MicroTime,
    resource.Quantity), whose error stops encoding/json where a mistyped value's is kept for the end."""
    return definition in (_TIME, _MICRO_TIME, schemas.QUANTITY)


def value_error(value: Any, definition: str | None, fmt: str | None, go_type: str, where: str,
                unstructured: bool = False) -> str | None:
    """Why Go refuses this value for a field (`where`: encoding/json's Struct.path) of this schema;
    `unstructured`: converted from a map (DefaultUnstructuredConverter), as patches and apply are."""
    if isinstance(value, int) and not isinstance(value, bool) and fmt in _INT_RANGES:
        low, high = _INT_RANGES[fmt]
        if not low <= value <= high:
            return f"json: cannot unmarshal number {value} into Go struct field {where} of type {go_type}"
        return None
    if definition == schemas.QUANTITY and value is not None and (isinstance(value, bool) or not isinstance(
            value, (str, int, float))):
        # Quantity.UnmarshalJSON parses any JSON text but a string's or null as the quantity itself.
        try:
            quantity.parse(json.dumps(value))
        except quantity.QuantityError as exc:
            return str(exc)
        return None
    if not isinstance(value, str):
        return None
    if fmt == "byte":
        problem = base64_error(value.encode())
        return f"error decoding from json: {problem}" if problem and unstructured else problem
    if definition in (_TIME, _MICRO_TIME):
        return time_error(value, _RFC3339_MICRO if definition == _MICRO_TIME else _RFC3339)
    if definition == schemas.QUANTITY:
        try:
            quantity.parse(value)
        except quantity.QuantityError as exc:
            return str(exc)
    return None


def base64_error(data: bytes) -> str | None:
    """encoding/base64 StdEncoding.Decode's CorruptInputError, quantum by quantum as decodeQuantum
    reads them (line breaks skipped, padding only at the end)."""
    si, n = 0, len(data)
    while si < n:
        j = 0
        while j < 4:
            if si == n:
                if j == 0:
                    return None
                return f"illegal base64 data at input byte {si - j}"
            byte = data[si]
            si += 1
            if byte in _BASE64:
                j += 1
                continue
            if byte in b"\r\n":
                continue
            if byte != ord("=") or j < 2:
                return f"illegal base64 data at input byte {si - 1}"
            if j == 2:  # "==" expected, its first "=" read
                while si < n and data[si] in b"\r\n":
                    si += 1
                if si == n:
                    return f"illegal base64 data at input byte {n}"
                if data[si] != ord("="):
                    return f"illegal base64 data at input byte {si - 1}"
                si += 1
            while si < n and data[si] in b"\r\n":
                si += 1
            return f"illegal base64 data at input byte {si}" if si < n else None
    return None


# time.Parse's layout elements for the two layouts, each with the text it takes.
_ELEMENTS = {
    "2006": r"\d{4}", "01": r"\d{2}", "02": r"\d{2}", "15": r"\d{2}", "04": r"\d{2}", "05": r"\d{2}",
    ".000000": r"\.\d{6}", "Z07:00": r"Z|[+-]\d{2}:\d{2}",
}
_RANGES = {"01": ("month", 1, 12), "02": ("day", 1, 31), "15": ("hour", 0, 23), "04": ("minute", 0, 59),
           "05": ("second", 0, 59)}


def time_error(value: str, layout: str) -> str | None:
    """time.Parse(layout, value)'s error for the RFC 3339 layouts metav1.Time and MicroTime use."""
    elements = re.findall(r"2006|01|02|15|04|05|\.000000|Z07:00|[^0-9Z.]+|.", layout)
    rest = value

    def failed(element: str) -> str:
        return f'parsing time "{value}" as "{layout}": cannot parse "{rest}" as "{element}"'

    for element in elements:
        pattern = _ELEMENTS.get(element)
        if pattern is None:
            if not rest.startswith(element):
                return failed(element)
            rest = rest[len(element):]
            continue
        match = re.match(pattern, rest)
        if match is None:
            return failed(element)
        if element in _RANGES:
            name, low, high = _RANGES[element]
            if not low <= int(match.group()) <= high:
                return f'parsing time "{value}": {name} out of range'
        rest = rest[match.end():]
        if element == "05" and layout == _RFC3339:
            fraction = re.match(r"[.,]\d+", rest)  # fractional seconds the layout leaves out are taken
            rest = rest[fraction.end():] if fraction else rest
    if rest:
        return f'parsing time "{value}": extra text: "{rest}"'
    return None
