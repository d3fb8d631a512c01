"""pod-template-hash as kube-controller-manager computes it (controller.ComputeHash).

Upstream hashes a Deployment's pod template by printing the decoded Go struct with go-spew's `%#v`
(types shown, map keys sorted, methods off) into an FNV-32a hash, then the collision count as
four little-endian bytes in an eight-byte buffer, and writes the decimal sum in the safe alphabet
of rand.SafeEncodeString. The print is rebuilt here from the stored JSON and the Go types in
`gotypes`: every field in declaration order as `Name:(type)value`, nil pointers and slices as
`(type)<nil>`, values inside slices and maps without their type.

A template that uses a type the table lacks (or a value this printer cannot reproduce, such as a
set timestamp) still gets a stable hash, of its canonical JSON, which will not equal upstream's.
"""

from __future__ import annotations

import logging
import re
import struct
from typing import Any

import orjson

from apiserver.controllers.gotypes import MAP_TYPES, STRING_TYPES, STRUCTS

log = logging.getLogger("apiserver.controllers")

_SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_INTS = frozenset({"int", "int32", "int64", "uint64"})
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_QUANTITY = re.compile(r"^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$")


class Unsupported(Exception):
    """The template holds something the Go print cannot be rebuilt for."""


def fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def safe_encode(text: str) -> str:
    return "".join(_SAFE_ALPHABET[ord(c) % len(_SAFE_ALPHABET)] for c in text)


def compute_hash(template: dict[str, Any], collision_count: int | None) -> str:
    try:
        printed = spew("v1.PodTemplateSpec", template, typed=True).encode()
    except Unsupported as exc:
        log.debug("pod-template-hash of a template this server cannot print as Go does (%s)", exc)
        printed = orjson.dumps(template, option=orjson.OPT_SORT_KEYS)
    data = printed
    if collision_count is not None:
        data += struct.pack("<I", collision_count & 0xFFFFFFFF) + b"\0\0\0\0"
    return safe_encode(str(fnv32a(data)))


def spew(go_type: str, value: Any, typed: bool) -> str:
    """go-spew's `%#v` of `value` decoded into `go_type`; `typed` is false where spew skips the type
    (slice elements, map keys and values, the target of a pointer)."""
    prefix = f"({go_type})" if typed else ""
    if go_type.startswith("*"):
        if value is None:
            return f"({go_type})<nil>" if typed else "<nil>"
        return prefix + spew(go_type[1:], value, typed=False)
    if go_type.startswith("[]"):
        if value is None:
            return prefix + "<nil>"
        if not isinstance(value, list):
            raise Unsupported(f"{go_type} from {type(value).__name__}")
        return prefix + "[" + " ".join(spew(go_type[2:], item, typed=False) for item in value) + "]"
    if go_type.startswith("map[") or go_type in MAP_TYPES:
        key_type, value_type = MAP_TYPES.get(go_type) or _map_parts(go_type)
        if value is None:
            return prefix + "<nil>"
        if not isinstance(value, dict):
            raise Unsupported(f"{go_type} from {type(value).__name__}")
        entries = (f"{spew(key_type, k, False)}:{spew(value_type, value[k], False)}" for k in sorted(value))
        return prefix + "map[" + " ".join(entries) + "]"
    if go_type in STRUCTS:
        return prefix + _struct(go_type, value)
    return prefix + _scalar(go_type, value)


def _map_parts(go_type: str) -> tuple[str, str]:
    key, _, rest = go_type[4:].partition("]")
    return key, rest


def _struct(go_type: str, value: Any) -> str:
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise Unsupported(f"{go_type} from {type(value).__name__}")
    fields = []
    for go_name, json_name, field_type in STRUCTS[go_type]:
        field_value = value if json_name == "" else value.get(json_name)
        if json_name == "" or field_value is not None or not _has_zero(field_type):
            fields.append(f"{go_name}:{spew(field_type, field_value, typed=True)}")
        else:
            fields.append(f"{go_name}:{spew(field_type, _zero(field_type), typed=True)}")
    return "{" + " ".join(fields) + "}"


def _has_zero(go_type: str) -> bool:
    """Whether an absent value decodes to something other than nil (a value-typed scalar)."""
    return go_type in _INTS or go_type in ("string", "bool") or go_type in STRING_TYPES


def _zero(go_type: str) -> Any:
    if go_type in _INTS:
        return 0
    if go_type == "bool":
        return False
    return ""


def _scalar(go_type: str, value: Any) -> str:
    if go_type == "string" or go_type in STRING_TYPES:
        if not isinstance(value, str):
            raise Unsupported(f"{go_type} from {type(value).__name__}")
        return value
    if go_type in _INTS:
        if isinstance(value, bool) or not isinstance(value, int):
            raise Unsupported(f"{go_type} from {type(value).__name__}")
        return str(value)
    if go_type == "bool":
        if not isinstance(value, bool):
            raise Unsupported(f"bool from {type(value).__name__}")
        return "true" if value else "false"
    if go_type == "v1.Time":
        if value is not None:
            raise Unsupported("a set timestamp")  # a parsed time carries its Location pointer
        return "{Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}}"
    if go_type == "intstr.IntOrString":
        return _int_or_string(value)
    if go_type == "resource.Quantity":
        return _quantity(value)
    raise Unsupported(go_type)


def _int_or_string(value: Any) -> str:
    if isinstance(value, bool):
        raise Unsupported("IntOrString from a boolean")
    if isinstance(value, int):
        kind, number, text = 0, value, ""
    elif isinstance(value, str):
        kind, number, text = 1, 0, value
    elif value is None:
        kind, number, text = 0, 0, ""
    else:
        raise Unsupported(f"IntOrString from {type(value).__name__}")
    return f"{{Type:(intstr.Type){kind} IntVal:(int32){number} StrVal:(string){text}}}"


def _quantity(value: Any) -> str:
    """resource.Quantity as ParseQuantity leaves it on its int64 fast path, the canonical text kept."""
    text = str(value) if isinstance(value, (int, str)) and not isinstance(value, bool) else None
    if text is None:
        raise Unsupported(f"Quantity from {type(value).__name__}")
    amount, scale, form, cached = _parse_quantity(text)
    return (f"{{i:(resource.int64Amount){{value:(int64){amount} scale:(resource.Scale){scale}}} "
            f"d:(resource.infDecAmount){{Dec:(*inf.Dec)<nil>}} s:(string){cached} Format:(resource.Format){form}}}")


def _parse_quantity(text: str) -> tuple[int, int, str, str]:
    if text == "0":
        return 0, 0, "DecimalSI", text
    match = _QUANTITY.match(text)
    if match is None:
        raise Unsupported(f"quantity {text!r}")
    sign, whole, fraction, suffix = match.group(1), match.group(2), match.group(3) or "", match.group(4)
    whole = whole.lstrip("0") or "0"
    if suffix in _BINARY:
        form, exponent = "BinarySI", _BINARY[suffix]
    elif suffix in _DECIMAL:
        form, exponent = "DecimalSI", _DECIMAL[suffix]
    elif suffix[:1] in ("e", "E") and re.fullmatch(r"[eE][+-]?[0-9]+", suffix):
        form, exponent = "DecimalExponent", int(suffix[1:])
    else:
        raise Unsupported(f"quantity {text!r}")
    mantissa = 1
    if form == "BinarySI":
        if fraction:
            raise Unsupported(f"quantity {text!r} needs the arbitrary-precision path")
        scale = 0
        mantissa = 1 << exponent
        precision = 15 - len(whole) - int(exponent * 3 / 10) - 1
    else:
        scale = exponent
        precision = 18 - (len(whole) + len(fraction))
    if precision < 0:
        raise Unsupported(f"quantity {text!r} needs the arbitrary-precision path")
    scale -= len(fraction)
    if scale < -9:
        raise Unsupported(f"quantity {text!r} needs the arbitrary-precision path")
    shifted = whole + fraction
    number = int(shifted)
    result = number * mantissa
    if result >= 2 ** 63:
        raise Unsupported(f"quantity {text!r} needs the arbitrary-precision path")
    if sign == "-":
        result = -result
    if form == "BinarySI":
        canonical = exponent % 10 == 0 and number & 0x07 != 0
    else:
        canonical = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
    return result, scale, form, text if canonical else ""
