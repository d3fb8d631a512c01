"""The string formats a CRD's schema may name, as apiextensions keeps them and kube-openapi's strfmt checks them.

A format the schema's type does not support is dropped before validation
(apiextensions-apiserver/pkg/apiserver/validation/formats.go, StripUnsupportedFormatsPostProcessorForVersion):
a string (or untyped) schema keeps the names of supportedVersionedFormats, hyphens ignored; an integer
keeps int32 and int64, a number float and double, any other type none. The checks are those strfmt.Default
registers (default.go, bson.go, date.go, time.go, duration.go, kubernetes-extensions.go), with the
govalidator ones in govalidator.py and net/mail's parser in gomail.py.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Any

from apiserver.cel import formats
from apiserver.crd import durations
from apiserver.kinds import gomail, govalidator, ip_validation

Schema = dict[str, Any]

# supportedVersionedFormats up to 1.36 (the k8s names came in 1.34), names normalized as go-openapi does (hyphens removed).
SUPPORTED = frozenset(name.replace("-", "") for name in (
    "bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid", "uuid3", "uuid4",
    "uuid5", "isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor", "byte", "password",
    "date", "duration", "datetime", "k8s-short-name", "k8s-long-name"))


def types_of(schema: Schema) -> list[str]:
    """The schema's types as kube-openapi holds them: x-kubernetes-int-or-string is integer and string."""
    if schema.get("x-kubernetes-int-or-string"):
        return ["integer", "string"]
    declared = schema.get("type")
    return [declared] if isinstance(declared, str) and declared else []


def effective_format(schema: Schema) -> str:
    """The schema's format once those its type does not support are stripped."""
    name = schema.get("format")
    if not isinstance(name, str) or not name:
        return ""
    types = types_of(schema)
    kind = types[0] if len(types) == 1 else ""
    if kind in ("", "string"):
        return name if name.replace("-", "") in SUPPORTED else ""
    if kind == "integer":
        return name if name in ("int32", "int64") else ""
    if kind == "number":
        return name if name in ("float", "double") else ""
    return ""


def is_known(name: str) -> bool:
    """Whether strfmt's registry holds the format, so that a string is checked against it."""
    return bool(name) and name.replace("-", "") in SUPPORTED


def _is_ipv4(text: str) -> bool:
    """isIPv4: netutils.ParseIPSloppy takes it (leading zeros too, as Go before 1.17) and it has a dot."""
    return ip_validation.parse_ip_sloppy(text) is not None and "." in text


def _is_cidr(text: str) -> bool:
    """isCIDR: netutils.ParseCIDRSloppy takes it."""
    return ip_validation.parse_cidr_sloppy(text) is not None


def _is_email(text: str) -> bool:
    """IsEmail: net/mail.ParseAddress takes it (a display name, comments and a one-address group too)."""
    return gomail.is_address(text)


# HostnamePattern's classes [a-zA-Z0-9\p{S}\p{L}] and [a-zA-Z\p{L}] after _hostname_shape: a symbol
# stands as "~" (itself a symbol) and any other letter as "a", so that re needs no Unicode categories.
_ANY = "[a-zA-Z0-9~]"
_HOSTNAME = re.compile(rf"{_ANY}(?:-?{_ANY}{{0,62}})?|(?:{_ANY}(?:[a-zA-Z0-9~-]{{0,61}}{_ANY})?\.)+[a-zA-Z]{{2,63}}")


def _hostname_shape(text: str) -> str | None:
    """The text with \\p{S} characters as "~" and other \\p{L} ones as "a"; None if it holds any other
    character HostnamePattern refuses everywhere."""
    shaped = []
    for ch in text:
        if ch.isascii() and (ch.isalnum() or ch in ".-"):
            shaped.append(ch)
            continue
        category = unicodedata.category(ch)
        if category[0] == "S":
            shaped.append("~")
        elif category[0] == "L":
            shaped.append("a")
        else:
            return None
    return "".join(shaped)


def _is_hostname(text: str) -> bool:
    """IsHostname: HostnamePattern, at most 255 bytes, and no label longer than 63 bytes."""
    shaped = _hostname_shape(text)
    if shaped is None or _HOSTNAME.fullmatch(shaped) is None:
        return False
    raw = text.encode()
    return len(raw) <= 255 and all(len(label) <= 63 for label in raw.split(b"."))


def _is_bson_object_id(text: str) -> bool:
    """IsBSONObjectID: hex.DecodeString gives 12 bytes."""
    return re.fullmatch(r"[0-9a-fA-F]{24}", text) is not None


_SHORT_NAME = "[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"


def _is_short_name(text: str) -> bool:
    """IsShortName: an RFC 1123 label in lower case, at most 63 bytes."""
    return len(text) <= 63 and re.fullmatch(_SHORT_NAME, text) is not None


def _is_long_name(text: str) -> bool:
    """IsLongName: lower-case labels joined by dots, at most 253 bytes (no limit on one label)."""
    return len(text) <= 253 and re.fullmatch(rf"{_SHORT_NAME}(?:\.{_SHORT_NAME})*", text) is not None


def _uuid(version: str) -> Callable[[str], bool]:
    """UUIDPattern and its versioned kin: hyphens optional, any case."""
    variant = "[89ab]" if version in ("4", "5") else "[0-9a-f]"
    pattern = re.compile(rf"[0-9a-f]{{8}}-?[0-9a-f]{{4}}-?{version or '[0-9a-f]'}[0-9a-f]{{3}}-?"
                         rf"{variant}[0-9a-f]{{3}}-?[0-9a-f]{{12}}", re.IGNORECASE)
    return lambda text: pattern.fullmatch(text) is not None


_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})")

_CHECKS: dict[str, Callable[[str], bool]] = {
    "bsonobjectid": _is_bson_object_id,
    "uri": govalidator.is_request_uri,
    "email": _is_email,
    "hostname": _is_hostname,
    "ipv4": _is_ipv4,
    "ipv6": govalidator.is_ipv6,
    "cidr": _is_cidr,
    "mac": govalidator.is_mac,
    "uuid": _uuid(""),
    "uuid3": _uuid("3"),
    "uuid4": _uuid("4"),
    "uuid5": _uuid("5"),
    "isbn": lambda text: govalidator.is_isbn10(text) or govalidator.is_isbn13(text),
    "isbn10": govalidator.is_isbn10,
    "isbn13": govalidator.is_isbn13,
    "creditcard": govalidator.is_credit_card,
    "ssn": govalidator.is_ssn,
    "hexcolor": govalidator.is_hex_color,
    "rgbcolor": govalidator.is_rgb_color,
    "byte": lambda text: _BASE64.fullmatch(text) is not None,
    "password": lambda text: True,
    "date": formats.is_date,
    "duration": lambda text: durations.parse_duration(text) is not None,
    "datetime": formats.is_date_time,
    "k8sshortname": _is_short_name,
    "k8slongname": _is_long_name,
}
assert set(_CHECKS) == SUPPORTED, "every supported format has its check"


def is_valid(name: str, text: str) -> bool:
    """Whether the text is of the (known) format."""
    return _CHECKS[name.replace("-", "")](text)
