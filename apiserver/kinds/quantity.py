"""Resource quantities exactly as Go's resource.Quantity reads, compares and prints them.

Admission messages and a quota's `status.used` show quantities the way upstream's `Quantity.String()`
writes them ("500m", "1Gi", "1500", "2k"), so a quantity is kept as an exact fraction with the format
its suffix chose (binary, decimal or exponent), rounded up to nano units as ParseQuantity rounds.
Sums keep the format of the left operand (of the right one when the left is zero), as `Quantity.Add` does.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

Format = Literal["BinarySI", "DecimalSI", "DecimalExponent"]

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX = {exponent: suffix for suffix, exponent in _DECIMAL.items()}
_BINARY_SUFFIX = {exponent: suffix for suffix, exponent in _BINARY.items()}
_SYNTAX = re.compile(r"^([+-]?)(\d*)(?:\.(\d*))?((?:[eE][+-]?\d+)|Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]?)$")
_NANO = Fraction(1, 10 ** 9)
# resource.MaxMilliValue: beyond it upstream compares whole units, not milli-units.
MAX_MILLI_VALUE = (2 ** 63 - 1) // 1000


class QuantityError(ValueError):
    """Not a quantity: upstream's ErrFormatWrong."""


@dataclass(frozen=True)
class Quantity:
    value: Fraction
    format: Format = "DecimalSI"

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
        return canonical(self)


ZERO = Quantity(Fraction(0))


def _round_up(value: Fraction) -> int:
    return math.ceil(value) if value >= 0 else -math.ceil(-value)


def parse(text: Any) -> Quantity:
    """A quantity as written in JSON: "500m", "1.5Gi", "1e3", or a bare number."""
    if isinstance(text, bool):
        raise QuantityError("quantities must match the regular expression")
    if isinstance(text, (int, float)):
        text = repr(text) if isinstance(text, float) else str(text)
    return _parsed(str(text))


# The same few spellings come back on every write (a quota's limits, a template's requests), and exact
# fractions are slow to build: each spelling is parsed once.
@functools.lru_cache(maxsize=4096)
def _parsed(text: str) -> Quantity:
    match = _SYNTAX.match(text)
    if match is None or not (match.group(2) or match.group(3)):
        raise QuantityError("quantities must match the regular expression "
                            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    sign, whole, fraction, suffix = match.groups()
    digits = Fraction(int(whole or "0")) + (Fraction(int(fraction), 10 ** len(fraction)) if fraction else 0)
    fmt: Format
    if suffix in _BINARY:
        fmt, amount = "BinarySI", digits * 2 ** _BINARY[suffix]
    elif len(suffix) > 1 and suffix[0] in "eE":
        fmt, amount = "DecimalExponent", digits * Fraction(10) ** int(suffix[1:])
    else:
        fmt, amount = "DecimalSI", digits * Fraction(10) ** _DECIMAL[suffix]
    if fmt == "BinarySI" and 0 < amount < 1:
        fmt = "DecimalSI"  # upstream: "this avoids rounding and hopefully confusion, too"
    amount = Fraction(_round_up(amount / _NANO)) * _NANO
    return Quantity(-amount if sign == "-" else amount, fmt)


@functools.lru_cache(maxsize=4096)
def canonical(q: Quantity) -> str:
    """Quantity.String(): the largest suffix that keeps the number whole."""
    if q.value == 0:
        return "0"
    fmt = q.format
    if fmt == "BinarySI" and (-1024 < q.value < 1024 or q.value.denominator != 1):
        fmt = "DecimalSI"
    if fmt == "BinarySI":
        number, power = int(q.value), 0
        while number % 1024 == 0 and power < 60:
            number, power = number // 1024, power + 10
        return f"{number}{_BINARY_SUFFIX[power] if power else ''}"
    mantissa, exponent = _decimal_parts(q.value)
    if fmt == "DecimalExponent":
        return f"{mantissa}e{exponent}" if exponent else str(mantissa)
    suffix = _DECIMAL_SUFFIX.get(exponent)
    return f"{mantissa}{suffix}" if suffix is not None else f"{mantissa}e{exponent}"


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
