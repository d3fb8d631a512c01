"""Kubernetes' CEL quantity library (`k8s.io/apiserver/pkg/cel/library/quantity.go`).

`quantity('500m')`, `isQuantity(s)`, and on a quantity: `sign`, `isInteger`, `asInteger`,
`asApproximateFloat`, `add`/`sub` (a quantity or an int), `compareTo`, `isGreaterThan`, `isLessThan`.
A quantity travels as `kubernetes.Quantity` holding its exact amount as a fraction, so equal amounts
written differently ('1' and '1000m') are equal values, as `resource.Quantity.Equal` makes them.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from apiserver.cel.opaque import Quantity
from apiserver.kinds import quantity as resource_quantity

_MAX_INT64 = 2**63 - 1


class QuantityError(ValueError):
    pass


def parse_amount(text: str) -> Fraction:
    """The amount resource.ParseQuantity reads from `text` (rounded up to nano units, a binary amount
    capped at int64); raises with its message when it is not a quantity."""
    try:
        return resource_quantity.parse_quantity(text).value
    except resource_quantity.QuantityError as exc:
        raise QuantityError(str(exc)) from None


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
