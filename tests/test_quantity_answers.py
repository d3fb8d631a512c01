"""Quantities written back as kube-apiserver 1.36.2 writes them (tests/quantity_answers.json, recorded by
tools/capture_quantities.py): resource.Quantity's UnmarshalJSON, ParseQuantity and String()."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from quantity_spellings import SPELLINGS

from apiserver.kinds import quantity

pytestmark = pytest.mark.store_once

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "quantity_answers.json")) as _f:
    ANSWERS: dict[str, Any] = json.load(_f)


# The request body's decoder (orjson) reads a JSON number with a fraction or exponent as a float, so its
# spelling ("1E+30" is written back as "1e+30") or, beyond a double, the number itself is gone before
# the quantity is parsed; upstream parses the number's own text.
DECODED_AS_FLOAT = {"1E+30", "1e400"}


def test_every_spelling_has_an_answer() -> None:
    assert sorted(ANSWERS) == sorted(SPELLINGS)


@pytest.mark.parametrize("raw", [s for s in SPELLINGS if s not in DECODED_AS_FLOAT])
def test_written_back_as_the_reference(raw: str) -> None:
    expected = ANSWERS[raw]
    value = json.loads(raw)
    if "written" in expected:
        # A null quantity field is a nil pointer, left out; in a map it is the zero quantity.
        assert (None if value is None else quantity.serialized(value)) == expected["written"]
    else:
        with pytest.raises(quantity.QuantityError) as refused:
            quantity.parse(value)
        assert str(refused.value) == expected["error"]
