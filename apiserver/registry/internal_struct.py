"""An object as json.Marshal writes upstream's internal (tagless) Go struct of it, for the field errors
that show a whole value: Go's field names in declaration order, every field present, zero values for
unset scalars, null for unset pointers, slices and maps, quantities in canonical form.

The struct layouts are `apiserver/data/internal_structs.json` (tools/internal_struct_facts.py).
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any

from apiserver.kinds import quantity

_ZEROS = {"string": "", "bool": False, "int32": 0, "int64": 0, "types.UID": ""}


@functools.cache
def _facts() -> dict[str, Any]:
    path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "internal_structs.json")
    with open(path) as f:
        facts: dict[str, Any] = json.load(f)
    return facts


def rendered(type_name: str, value: Any) -> Any:
    """The value (as the v1 JSON holds it) in the shape Go writes the internal type `type_name` in."""
    facts = _facts()
    kind = facts["aliases"].get(type_name, type_name)
    if kind.startswith("*"):
        return None if value is None else rendered(kind[1:], value)
    if kind.startswith("[]"):
        return None if not isinstance(value, list) else [rendered(kind[2:], item) for item in value]
    if kind.startswith("map["):
        if not isinstance(value, dict):
            return None
        item_kind = kind.split("]", 1)[1]
        return {key: rendered(item_kind, item) for key, item in sorted(value.items())}
    if kind == "resource.Quantity":
        try:
            return str(quantity.parse(value))
        except quantity.QuantityError:
            return value
    fields = facts["structs"].get(kind)
    if fields is None:
        return _ZEROS.get(kind) if value is None else value
    value = value if isinstance(value, dict) else {}
    out: dict[str, Any] = {}
    for go_name, json_name, field_kind in fields:
        if json_name is None:
            out.update(rendered(field_kind, value))
        else:
            out[go_name] = rendered(field_kind, value.get(json_name))
    return out
