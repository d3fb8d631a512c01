"""Kubernetes' CEL quantity library (`k8s.io/apiserver/pkg/cel/library/quantity.go`).

`quantity('500m')`, `isQuantity(s)`, and on a quantity: `sign`, `isInteger`, `asInteger`,
`asApproximateFloat`, `add`/`sub` (a quantity or an int), `compareTo`, `isGreaterThan`, `isLessThan`.
A quantity travels as `kubernetes.Quantity` holding its exact amount as a fraction, so equal amounts
written differently ('1' and '1000m') are equal values, as `resource.Quantity.Equal` makes them.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from apiserver.cel.opaque import Quantity

_FORMAT = r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
_QUANTITY = re.compile(_FORMAT)
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)")
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": Fraction(1),
            "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
            "P": Fraction(10**15), "E": Fraction(10**18)}
_EXPONENT = re.compile(r"[eE]([-+]?\d+)")
_MAX_INT64 = 2**63 - 1


class QuantityError(ValueError):
    pass


def parse_amount(text: str) -> Fraction:
    """The exact amount `text` denotes; raises with resource.ParseQuantity's message when it is not one."""
    match = _QUANTITY.match(text)
    number = _NUMBER.match(text)
    if not text or match is None or number is None or number.end() != len(match.group(1)):
        raise QuantityError("quantities must match the regular expression " + repr(_FORMAT))
    suffix = match.group(2)
    if suffix in _BINARY:
        scale: Fraction = Fraction(_BINARY[suffix])
    elif suffix in _DECIMAL:
        scale = _DECIMAL[suffix]
    elif (exponent := _EXPONENT.fullmatch(suffix)) is not None:
        scale = Fraction(10) ** int(exponent.group(1))
    else:
        raise QuantityError("unable to parse quantity's suffix")
    return Fraction(match.group(1)) * scale


def _amount(q: Any) -> Fraction:
    return Fraction(q.value)


def _of(amount: Fraction) -> Any:
    return Quantity(value=str(amount))


def quantity(text: str) -> Any:
    return _of(parse_amount(text))


def is_quantity(text: str) -> bool:
    try:
        parse_amount(text)
    except QuantityError:
        return False
    return True


def sign(q: Any) -> int:
    amount = _amount(q)
    return (amount > 0) - (amount < 0)


def is_integer(q: Any) -> bool:
    amount = _amount(q)
    return amount.denominator == 1 and -_MAX_INT64 - 1 <= amount <= _MAX_INT64


def as_integer(q: Any) -> int:
    if not is_integer(q):
        raise QuantityError("cannot convert value to integer")
    return int(_amount(q))


def as_approximate_float(q: Any) -> float:
    return float(_amount(q))


def add(q: Any, other: Any) -> Any:
    return _of(_amount(q) + (other if isinstance(other, int) else _amount(other)))


def sub(q: Any, other: Any) -> Any:
    return _of(_amount(q) - (other if isinstance(other, int) else _amount(other)))


def compare_to(q: Any, other: Any) -> int:
    a, b = _amount(q), _amount(other)
    return (a > b) - (a < b)


def is_greater_than(q: Any, other: Any) -> bool:
    return _amount(q) > _amount(other)


def is_less_than(q: Any, other: Any) -> bool:
    return _amount(q) < _amount(other)
