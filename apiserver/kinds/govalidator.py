"""The string checks strfmt borrows from its vendored govalidator (kube-openapi/pkg/internal/third_party/
govalidator), with the Go library functions they call: net.ParseMAC, net.ParseIP, url.ParseRequestURI.

Go's regexp classes are ASCII (`\\d`, `\\s` is `[\\t\\n\\f\\r ]`) and `$` ends the text, so the patterns
below spell their classes out and are matched whole; lengths are of the UTF-8 bytes, as Go counts them.
"""

from __future__ import annotations

import re

from apiserver.cel import requesturi
from apiserver.kinds import ip_validation

_CREDIT_CARD = re.compile(r"(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}"
                          r"|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})")
_ISBN10 = re.compile(r"(?:[0-9]{9}X|[0-9]{10})")
_ISBN13 = re.compile(r"[0-9]{13}")
_HEX_COLOR = re.compile(r"#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_BYTE = r"\s*(?:0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])\s*".replace(r"\s", "[\t\n\f\r ]")
_RGB_COLOR = re.compile(rf"rgb\({_BYTE},{_BYTE},{_BYTE}\)")
_SSN = re.compile(r"[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}")
_NOT_DIGITS = re.compile(r"[^0-9]+")
_SPACES_AND_MINUS = re.compile(r"[\t\n\f\r -]+")
_HEX = frozenset(b"0123456789abcdefABCDEF")


def is_request_uri(text: str) -> bool:
    """IsRequestURI: url.ParseRequestURI takes it."""
    return requesturi.error(text) is None


def is_hex_color(text: str) -> bool:
    return _HEX_COLOR.fullmatch(text) is not None


def is_rgb_color(text: str) -> bool:
    return _RGB_COLOR.fullmatch(text) is not None


def is_credit_card(text: str) -> bool:
    """IsCreditCard: the digits (all else dropped) of a known issuer's number, passing the Luhn check."""
    digits = _NOT_DIGITS.sub("", text)
    if _CREDIT_CARD.fullmatch(digits) is None:
        return False
    total = 0
    for position, digit in enumerate(int(ch) for ch in reversed(digits)):
        if position % 2:
            digit *= 2
            total += digit % 10 + 1 if digit >= 10 else digit
        else:
            total += digit
    return total % 10 == 0


def is_isbn10(text: str) -> bool:
    """IsISBN(str, 10): ten digits (the last may be X) once whitespace and hyphens are dropped, checksum mod 11."""
    digits = _SPACES_AND_MINUS.sub("", text)
    if _ISBN10.fullmatch(digits) is None:
        return False
    checksum = sum((i + 1) * int(digits[i]) for i in range(9))
    checksum += 10 * (10 if digits[9] == "X" else int(digits[9]))
    return checksum % 11 == 0


def is_isbn13(text: str) -> bool:
    """IsISBN(str, 13): thirteen digits once whitespace and hyphens are dropped, the last the check digit."""
    digits = _SPACES_AND_MINUS.sub("", text)
    if _ISBN13.fullmatch(digits) is None:
        return False
    checksum = sum((1, 3)[i % 2] * int(digits[i]) for i in range(12))
    return int(digits[12]) == (10 - checksum % 10) % 10


def is_ssn(text: str) -> bool:
    return len(text.encode()) == 11 and _SSN.fullmatch(text) is not None


def is_ipv6(text: str) -> bool:
    """IsIPv6: net.ParseIP (Go's strict parser) takes it and it has a colon."""
    return ip_validation.parse_ip(text) is not None and ":" in text


def _hex_pair(raw: bytes, separator: int | None) -> bool:
    """net's xtoi2: two hex digits, then (when more follows) the separator."""
    if len(raw) > 2 and raw[2] != separator:
        return False
    return len(raw) >= 2 and raw[0] in _HEX and raw[1] in _HEX


def is_mac(text: str) -> bool:
    """IsMAC: net.ParseMAC (Go 1.26) takes it: 6, 8 or 20 octets as xx:xx.., xx-xx.., xxxx.xxxx.. or bare hex."""
    raw = text.encode()
    if len(raw) < 12:
        return False
    if raw[2] in b":-":
        count = (len(raw) + 1) // 3
        return ((len(raw) + 1) % 3 == 0 and count in (6, 8, 20)
                and all(_hex_pair(raw[3 * i:], raw[2]) for i in range(count)))
    if raw[4] == ord("."):
        count = 2 * (len(raw) + 1) // 5
        return ((len(raw) + 1) % 5 == 0 and count in (6, 8, 20)
                and all(_hex_pair(raw[x:x + 2], None) and _hex_pair(raw[x + 2:], raw[4])
                        for x in range(0, 5 * (count // 2), 5)))
    return len(raw) % 2 == 0 and len(raw) // 2 in (6, 8, 20) and all(raw[i] in _HEX for i in range(len(raw)))
