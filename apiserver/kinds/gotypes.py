"""Upstream's Go types of the API's fields, as encoding/json names them in its decoding errors.

apiserver/data/go_field_types.json (from tools/go_field_types.py) gives, per OpenAPI definition and
json field, the Go type encoding/json reports (reflect's String(), pointers followed) and the embedded
structs its error path goes through to reach the field. A type with its own UnmarshalJSON (metav1.Time,
resource.Quantity) has its own decoding's words, which name the type it decodes into (a string): that
is left to the schema (None here).
"""

from __future__ import annotations

import functools
import importlib.resources
import json

# A field the Go types do not know of: no embedded struct on its path, its type left to the schema.
UNKNOWN: tuple[str, str | None] = ("", None)


@functools.cache
def _facts() -> tuple[dict[str, dict[str, tuple[str, str | None]]], dict[str, str], frozenset[str]]:
    data = json.loads((importlib.resources.files("apiserver") / "data" / "go_field_types.json").read_bytes())
    unmarshalers = frozenset(data["unmarshalers"])
    fields = {definition: {name: (through, None if go_type in unmarshalers else go_type)
                           for name, (through, go_type) in by_name.items()}
              for definition, by_name in data["fields"].items()}
    return fields, data["named"], unmarshalers


def fields(definition: str | None) -> dict[str, tuple[str, str | None]]:
    """json field -> (embedded struct names on encoding/json's path to it, each followed by a dot; its Go type)."""
    return _facts()[0].get(definition or "", {})


@functools.cache
def element(go_type: str | None) -> str | None:
    """The Go type of a slice's items or a map's values, pointers followed; None where not known."""
    if go_type is None:
        return None
    go_type = _facts()[1].get(go_type, go_type)
    if go_type.startswith("[]"):
        inner = go_type[2:]
    elif go_type.startswith("map["):
        depth = 0
        for i, char in enumerate(go_type[3:], start=3):
            depth += {"[": 1, "]": -1}.get(char, 0)
            if depth == 0:
                break
        inner = go_type[i + 1:]
    else:
        return None
    inner = inner.lstrip("*")
    return None if inner in _facts()[2] else inner
