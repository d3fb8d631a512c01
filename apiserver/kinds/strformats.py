"""The string formats a CRD's schema may name, as apiextensions keeps them and kube-openapi's strfmt checks them.

A format the schema's type does not support is dropped before validation
(apiextensions-apiserver/pkg/apiserver/validation/formats.go, StripUnsupportedFormatsPostProcessorForVersion):
a string (or untyped) schema keeps the names of supportedVersionedFormats, hyphens ignored; an integer
keeps int32 and int64, a number float and double, any other type none. The checks are
kube-openapi/pkg/validation/strfmt's; the formats without one here (email, hostname, uri, cidr, mac,
isbn, creditcard, ssn, hexcolor, rgbcolor, bsonobjectid, k8s-short-name, k8s-long-name) pass unchecked.
"""

from __future__ import annotations

import datetime
import ipaddress
import re
from collections.abc import Callable
from typing import Any

from apiserver.crd import durations

Schema = dict[str, Any]

# supportedVersionedFormats up to 1.34, names normalized as go-openapi does (hyphens removed).
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


def _is_date(text: str) -> bool:
    """time.Parse("2006-01-02", text)."""
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


_CLOCK = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))")


def _is_date_time(text: str) -> bool:
    """strfmt.IsDateTime: a date, a "t", then a clock matching DateTimePattern (text after a second "t" unread)."""
    if len(text) < 4:
        return False
    parts = text.lower().split("t")
    if len(parts) < 2 or not _is_date(parts[0]):
        return False
    clock = _CLOCK.fullmatch(parts[1])
    if clock is None:
        return False
    return clock.group(1) <= "23" and clock.group(2) <= "59" and clock.group(3) <= "59"


def _is_ip(text: str, version: int, separator: str) -> bool:
    try:
        return ipaddress.ip_address(text).version == version and separator in text
    except ValueError:
        return False


def _uuid(version: str) -> Callable[[str], bool]:
    """UUIDPattern and its versioned kin: hyphens optional, any case."""
    variant = "[89ab]" if version in ("4", "5") else "[0-9a-f]"
    pattern = re.compile(rf"[0-9a-f]{{8}}-?[0-9a-f]{{4}}-?{version or '[0-9a-f]'}[0-9a-f]{{3}}-?"
                         rf"{variant}[0-9a-f]{{3}}-?[0-9a-f]{{12}}", re.IGNORECASE)
    return lambda text: pattern.fullmatch(text) is not None


_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})")

_CHECKS: dict[str, Callable[[str], bool]] = {
    "date": _is_date,
    "datetime": _is_date_time,
    "uuid": _uuid(""),
    "uuid3": _uuid("3"),
    "uuid4": _uuid("4"),
    "uuid5": _uuid("5"),
    "ipv4": lambda text: _is_ip(text, 4, "."),
    "ipv6": lambda text: _is_ip(text, 6, ":"),
    "byte": lambda text: _BASE64.fullmatch(text) is not None,
    "duration": lambda text: durations.parse_duration(text) is not None,
    "password": lambda text: True,
}


def is_valid(name: str, text: str) -> bool:
    """Whether the text is of the (known) format; one without a check here passes."""
    check = _CHECKS.get(name.replace("-", ""))
    return check is None or check(text)
