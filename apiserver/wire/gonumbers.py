"""JSON numbers with a fraction or an exponent, as upstream's Go decoding treats them.

orjson reads `1e3`, `1.0` and `1000.0` alike as the float 1000.0, where Go tells them apart twice:
- encoding/json refuses any of them for an integer field of a Go struct, naming the number as the body
  spelled it (`cannot unmarshal number 1e3 into Go struct field ...`);
- decoded as unstructured content (a custom resource, a patched document) the number is a float64,
  which encoding/json writes back without a fraction when it is whole (`1000`), so it is stored and
  served as an integer.

An integer past 64 bits, which orjson can only read as a float, is named by its digits too. Both matter
only for bodies that hold such numbers, which `may_hold_fractions` and `may_hold_unusual_numbers` find
with one scan in C; the spelling is recovered only when a refusal has to name it.
"""

from __future__ import annotations

import json
import re
from typing import Any, Self

import orjson

# A number token right after `:`, `,` or `[` with a fraction or an exponent. Text inside a string can
# match too; that only costs a walk that finds nothing.
_FRACTIONAL = re.compile(rb"[:,\[]\s*-?[0-9]+(?:\.|[eE])")
_LONG_INTEGER = re.compile(rb"[0-9]{10}")


class Spelled(float):
    """A float that keeps the text its JSON body spelled it with, and prints as that text."""

    __slots__ = ("text",)

    def __new__(cls, text: str) -> Self:
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


def may_hold_fractions(raw: bytes) -> bool:
    """Whether a JSON body can hold a number with a fraction or an exponent."""
    return _FRACTIONAL.search(raw) is not None


def may_hold_unusual_numbers(raw: bytes) -> bool:
    """Whether a body can hold a number Go's decoding or conversion treats apart: one with a fraction or
    an exponent, or an integer of ten digits or more (past int32's range; past 64 bits orjson reads it as
    a float, and only `spelled` keeps its digits)."""
    return _FRACTIONAL.search(raw) is not None or _LONG_INTEGER.search(raw) is not None


def spelled(raw: bytes) -> Any:
    """A JSON body decoded with each number that has a fraction or an exponent, or is an integer past
    64 bits (which orjson reads as a float too), as a Spelled."""
    return json.loads(raw, parse_float=Spelled, parse_int=_integer)


def _integer(text: str) -> int | Spelled:
    value = int(text)
    return value if -(2**63) <= value < 2**64 else Spelled(text)


def respelled(doc: Any, raw: bytes, json_patch: bool) -> Any:
    """A copy of `doc`, the document a merge patch or (`json_patch`) a JSON patch in `raw` made, with
    the floats the patch put there spelled as the patch spelled them, as Go's json-patch keeps each
    number's text: a merge patch's values lie at their own paths, an operation's value at its path.
    A float the patch moved or copied is found by its value (of two spellings of it, the first)."""
    patch = spelled(raw)
    doc = _replaced(doc, {})
    if json_patch:
        for operation in patch if isinstance(patch, list) else ():
            if isinstance(operation, dict) and operation.get("op") in ("add", "replace"):
                doc = _overlaid_at(doc, str(operation.get("path") or ""), operation.get("value"))
    else:
        doc = _overlaid(doc, patch)
    spellings: dict[float, Spelled] = {}
    _collect(patch, spellings)
    return _replaced(doc, spellings) if spellings else doc


def _overlaid(doc: Any, patch: Any) -> Any:
    """doc with each float where the patch has a Spelled of its value taken from the patch."""
    if isinstance(patch, Spelled):
        return patch if type(doc) is float and doc == patch else doc
    if isinstance(patch, dict) and isinstance(doc, dict):
        for key, value in patch.items():
            if key in doc:
                doc[key] = _overlaid(doc[key], value)
    elif isinstance(patch, list) and isinstance(doc, list) and len(patch) == len(doc):
        for i, value in enumerate(patch):
            doc[i] = _overlaid(doc[i], value)
    return doc


def _overlaid_at(doc: Any, pointer: str, value: Any) -> Any:
    """_overlaid of an operation's value at its JSON pointer (RFC 6901) in doc."""
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    if not tokens:
        return _overlaid(doc, value)
    parent = doc
    for token in tokens[:-1]:
        parent = _step(parent, token)
    last = tokens[-1]
    if isinstance(parent, dict) and last in parent:
        parent[last] = _overlaid(parent[last], value)
    elif isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        parent[int(last)] = _overlaid(parent[int(last)], value)
    return doc


def _step(container: Any, token: str) -> Any:
    if isinstance(container, dict):
        return container.get(token)
    if isinstance(container, list) and token.isdigit() and int(token) < len(container):
        return container[int(token)]
    return None


def _collect(value: Any, into: dict[float, Spelled]) -> None:
    if isinstance(value, Spelled):
        into.setdefault(float(value), value)
    elif isinstance(value, dict):
        for item in value.values():
            _collect(item, into)
    elif isinstance(value, list):
        for item in value:
            _collect(item, into)


def _replaced(value: Any, spellings: dict[float, Spelled]) -> Any:
    """A copy of value with its plain floats spelled as `spellings` spell their values."""
    if type(value) is float:
        return spellings.get(value, value)
    if isinstance(value, dict):
        return {key: _replaced(item, spellings) for key, item in value.items()}
    if isinstance(value, list):
        return [_replaced(item, spellings) for item in value]
    return value


def dumps(doc: Any) -> bytes:
    """orjson.dumps of a document that may hold Spelled numbers, each written as spelled."""
    return orjson.dumps(doc, default=_fragment)


def _fragment(value: Any) -> orjson.Fragment:
    if isinstance(value, Spelled):
        return orjson.Fragment(value.text.encode())
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


def as_written(value: float) -> int | float:
    """A float64 as encoding/json writes it and a decoder reads it back: whole and below 1e21 it is
    written without a fraction (`1e3` as `1000`), so it comes back an integer."""
    return int(value) if value.is_integer() and abs(value) < 1e21 else value


def whole_floats_as_integers(doc: Any) -> None:
    """Turns, in place, each float in a decoded document into what as_written makes of it."""
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for key, value in items:
        if type(value) is float:
            doc[key] = as_written(value)
        elif isinstance(value, (dict, list)):
            whole_floats_as_integers(value)
