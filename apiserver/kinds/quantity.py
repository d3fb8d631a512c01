"""Resource quantities exactly as Go's resource.Quantity reads, compares and prints them.

Admission messages and a quota's `status.used` show quantities the way upstream's `Quantity.String()`
writes them ("500m", "1Gi", "1500", "2k"), so a quantity is kept as an exact fraction with the format
its suffix chose (binary, decimal or exponent), rounded up to nano units as ParseQuantity rounds.
Sums keep the format of the left operand (of the right one when the left is zero), as `Quantity.Add` does.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

Format = Literal["BinarySI", "DecimalSI", "DecimalExponent"]

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX = {exponent: suffix for suffix, exponent in _DECIMAL.items()}
_BINARY_SUFFIX = {exponent: suffix for suffix, exponent in _BINARY.items()}
_SUFFIX_LETTERS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")
_NANO = Fraction(1, 10 ** 9)
_INT64_MAX = 2 ** 63 - 1
# maxInt64Factors: the decimal digits an int64 always holds.
_INT64_DIGITS = 18
# Go keeps a huge exponent as an inf.Dec scale; an exact fraction of it would take the process's memory.
_LARGEST_EXPONENT = 10_000
# resource.MaxMilliValue: beyond it upstream compares whole units, not milli-units.
MAX_MILLI_VALUE = (2 ** 63 - 1) // 1000


class QuantityError(ValueError):
    """Not a quantity: upstream's ErrFormatWrong, ErrNumeric or ErrSuffix."""


FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
NUMERIC = "unable to parse numeric part of quantity"
SUFFIX = "unable to parse quantity's suffix"


@dataclass(frozen=True)
class Quantity:
    value: Fraction
    format: Format = "DecimalSI"
    # Quantity.s: the text it was written as, kept when ParseQuantity found it canonical already.
    text: str = field(default="", compare=False)

    def __add__(self, other: Quantity) -> Quantity:
        return Quantity(self.value + other.value, other.format if self.value == 0 else self.format)

    def __sub__(self, other: Quantity) -> Quantity:
        return Quantity(self.value - other.value, other.format if self.value == 0 else self.format)

    def milli_value(self) -> int:
        """Go's MilliValue: milli-units rounded away from zero."""
        return _round_up(self.value * 1000)

    def int_value(self) -> int:
        """Go's Value: whole units rounded away from zero."""
        return _round_up(self.value)

    def __str__(self) -> str:
        """Quantity.String() and MarshalJSON: the text kept at parsing, else the canonical form."""
        return self.text or canonical(self)


ZERO = Quantity(Fraction(0))


def _round_up(value: Fraction) -> int:
    return math.ceil(value) if value >= 0 else -math.ceil(-value)


def parse(value: Any) -> Quantity:
    """Quantity.UnmarshalJSON of a decoded JSON value: a string's text between its quotes (escapes
    left as written), any other value's JSON text, trimmed of white space, then ParseQuantity."""
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)[1:-1] if ("\\" in value or '"' in value
                                                               or not value.isprintable()) else value
    elif isinstance(value, float):
        text = repr(value)
    else:
        text = json.dumps(value)
    return parse_quantity(text.strip())


def serialized(value: Any) -> str:
    """The text kube-apiserver writes for a decoded quantity: null is the zero quantity."""
    return "0" if value is None else str(parse(value))


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """parseQuantityString: the sign, the number's text, its digits before and after the point (leading
    zeros stripped), and the suffix."""
    positive, pos, end = True, 0, len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] == "+"
        pos += 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, text, text[start:], "", ""
    num = text[start:pos] or "0"
    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    number = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_LETTERS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(FORMAT_WRONG)
    return positive, number, num, denom, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, Format]:
    """suffixHandler.interpret: the base, exponent and format a suffix stands for."""
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix], "DecimalSI"
    if suffix in _BINARY:
        return 2, _BINARY[suffix], "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        try:
            exponent = _go_parse_int(suffix[1:])
        except ValueError:
            raise QuantityError(SUFFIX) from None
        return 10, (exponent + 2 ** 31) % 2 ** 32 - 2 ** 31, "DecimalExponent"  # int32(parsed)
    raise QuantityError(SUFFIX)


def _go_parse_int(text: str) -> int:
    """strconv.ParseInt(text, 10, 64)."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not all(c in _DIGITS for c in digits):
        raise ValueError(text)
    number = int(text)
    if not -_INT64_MAX - 1 <= number <= _INT64_MAX:
        raise ValueError(text)
    return number


# The same few spellings come back on every write (a quota's limits, a template's requests), and exact
# fractions are slow to build: each spelling is parsed once.
@functools.lru_cache(maxsize=4096)
def parse_quantity(text: str) -> Quantity:
    """ParseQuantity, every branch: the int64 fast path keeps a canonical spelling as it was written."""
    if not text:
        raise QuantityError(FORMAT_WRONG)
    if text == "0":
        return Quantity(Fraction(0), "DecimalSI", text)
    positive, number, num, denom, suffix = _split(text)
    base, exponent, fmt = _interpret(suffix)
    if abs(exponent) > _LARGEST_EXPONENT:
        raise QuantityError(NUMERIC)
    scale, mantissa = 0, 1
    if fmt == "BinarySI":
        if denom:
            precision = -1
        else:
            mantissa = 1 << exponent
            # 1Mi (2^20) has ~6 digits of decimal precision, so exponent*3/10 -1 is roughly the precision
            precision = 15 - len(num) - int(exponent * 3 / 10) - 1
    else:
        scale = exponent
        precision = _INT64_DIGITS - (len(num) + len(denom))
    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            shifted = num + denom
            whole = int(shifted)
            if whole > _INT64_MAX:
                raise QuantityError(NUMERIC)
            result = whole * mantissa
            if result <= _INT64_MAX:
                if not positive:
                    result = -result
                amount = Fraction(result) * Fraction(10) ** scale
                if fmt == "BinarySI":
                    kept = exponent % 10 == 0 and whole & 0x07 != 0
                else:
                    kept = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
                return Quantity(amount, fmt, text if kept else "")
    return _parsed_slowly(number, base, exponent, fmt)


def _parsed_slowly(number: str, base: int, exponent: int, fmt: Format) -> Quantity:
    """ParseQuantity's inf.Dec path: exact, rounded up to nano units, a binary amount capped at int64."""
    amount = _decimal(number)
    amount *= Fraction(10) ** exponent if base == 10 else 2 ** exponent
    negative, amount = amount < 0, abs(amount)
    if amount != 0:
        amount = Fraction(math.ceil(amount / _NANO)) * _NANO
    if fmt == "BinarySI" and amount > _INT64_MAX:
        amount = Fraction(_INT64_MAX)
    if fmt == "BinarySI" and 0 < amount < 1:
        fmt = "DecimalSI"  # upstream: "this avoids rounding and hopefully confusion, too"
    return Quantity(-amount if negative else amount, fmt)


def _decimal(number: str) -> Fraction:
    """inf.Dec.SetString of the number's text: a sign, digits, at most one point, at least one digit."""
    sign = -1 if number[:1] == "-" else 1
    digits = number[1:] if number[:1] in ("+", "-") else number
    whole, _, fraction = digits.partition(".")
    if not (whole or fraction):
        raise QuantityError(NUMERIC)
    value = Fraction(int(whole or "0")) + (Fraction(int(fraction), 10 ** len(fraction)) if fraction else 0)
    return sign * value


@functools.lru_cache(maxsize=4096)
def canonical(q: Quantity) -> str:
    """CanonicalizeBytes: the largest suffix that keeps the number whole. A decimal exponent without
    a suffix (beyond E or below n) is written bare, as upstream's suffix lookup leaves it."""
    if q.value == 0:
        return "0"
    fmt = q.format
    if fmt == "BinarySI" and (-1024 < q.value < 1024 or q.value.denominator != 1):
        fmt = "DecimalSI"
    if fmt == "BinarySI":
        number, power = int(q.value), 0
        while abs(number) >= 1024 and number % 1024 == 0:
            number, power = number // 1024, power + 10
        return f"{number}{_BINARY_SUFFIX.get(power, '')}"
    mantissa, exponent = _decimal_parts(q.value)
    if fmt == "DecimalExponent":
        return f"{mantissa}e{exponent}" if exponent else str(mantissa)
    return f"{mantissa}{_DECIMAL_SUFFIX.get(exponent, '')}"


def _decimal_parts(value: Fraction) -> tuple[int, int]:
    """value = mantissa * 10**exponent, the exponent a multiple of 3, as large as keeps the mantissa whole."""
    exponent = -9
    mantissa = int(value / _NANO)
    while mantissa % 10 == 0:
        mantissa, exponent = mantissa // 10, exponent + 1
    shift = exponent % 3
    return mantissa * 10 ** shift, exponent - shift


def total(values: list[Quantity]) -> Quantity:
    if not values:
        return ZERO
    result = values[0]
    for value in values[1:]:
        result = result + value
    return result
