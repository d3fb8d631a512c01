"""Which of an updated custom object's schema failures upstream lets through: its OpenAPI schema
validation ratchets (apiextensions-apiserver's RatchetingSchemaValidator over apiserver/pkg/cel/common's
CorrelatedObject, CRDValidationRatcheting being on).

Each new value is correlated with an old one where upstream can correlate them: an object's field or
map key (declared by the schema) present in both, a map-list's item with the same keys. A failure is
dropped when the nearest correlated value at or above the field it names equals its old value; the
items of a set or an atomic list have none of their own, so only their unchanged list lets theirs
through. The x-kubernetes-validations rules ratchet the same way (kinds/crvalidations.py).
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import crvalidations

Schema = dict[str, Any]


def unchanged_paths(value: Any, old: Any, schema: Schema | None, path: str = "") -> list[str]:
    """The field paths of the correlated values equal to their old ones, each the highest of its
    branch (all below it are equal too), named as the schema validator names fields: `a.b` for a
    field or map key, `a[0]` for an item."""
    if value == old:
        return [path]
    if not isinstance(schema, dict):
        return []
    found: list[str] = []
    if isinstance(value, dict) and isinstance(old, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key not in old or path == "" and key in ("apiVersion", "kind"):
                continue
            sub = properties.get(key) if key in properties else extra if isinstance(extra, dict) else None
            if sub is not None:
                found += unchanged_paths(item, old[key], sub, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        before_of = crvalidations.correlator(schema, old)
        for index, item in enumerate(value):
            before = before_of(item)
            if before is not None:
                found += unchanged_paths(item, before, schema.get("items"), f"{path}[{index}]")
    return found


def without_ratcheted(problems: list[FieldError], unchanged: list[str]) -> list[FieldError]:
    """The failures not named under an unchanged value (the root's path is "", its failures "<nil>")."""
    if not unchanged:
        return problems
    if "" in unchanged:
        return []
    return [p for p in problems if not any(p.path == at or p.path.startswith((at + ".", at + "["))
                                           for at in unchanged)]
