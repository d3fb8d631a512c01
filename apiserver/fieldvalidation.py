"""Server-side field validation (the `fieldValidation` query parameter): unknown and duplicate fields.

`Strict` refuses the request with upstream's strict-decoding message, `Warn` (the default) answers
with a Warning header per field, `Ignore` says nothing. Unknown means: not a property of the kind's
1.36 schema. Duplicates are found in the JSON text, which a decoded object no longer shows.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from apiserver import errors, schemas

DIRECTIVES = ("Ignore", "Warn", "Strict")


def directive(query: Mapping[str, str]) -> str:
    value = query.get("fieldValidation") or "Warn"
    if value not in DIRECTIVES:
        raise errors.bad_request(f'fieldValidation: Unsupported value: "{value}": supported values: '
                                 + ", ".join(f'"{d}"' for d in DIRECTIVES))
    return value


def unknown_fields(obj: Any, schema: schemas.Schema | None, path: str = "") -> list[str]:
    resolved = schemas.resolve(schema)
    if resolved is None or resolved.get("x-kubernetes-preserve-unknown-fields"):
        return []
    if isinstance(obj, list):
        items = schemas.items_schema(resolved)
        return [p for i, v in enumerate(obj) for p in unknown_fields(v, items, f"{path}[{i}]")]
    if not isinstance(obj, dict):
        return []
    props = resolved.get("properties")
    extra = resolved.get("additionalProperties")
    found: list[str] = []
    for key, value in obj.items():
        where = f"{path}.{key}" if path else key
        if props is not None and key in props:
            found.extend(unknown_fields(value, schemas.resolve(props[key]), where))
        elif isinstance(extra, dict):
            found.extend(unknown_fields(value, schemas.resolve(extra), where))
        elif props is not None:
            found.append(where)
    return found


def duplicate_fields(raw: bytes) -> list[str]:
    """Keys given twice in one JSON object, by their path."""
    try:
        top = json.loads(raw, object_pairs_hook=_Pairs)
    except ValueError:
        return []
    found: list[str] = []

    def descend(value: Any, path: str) -> None:
        if isinstance(value, _Pairs):
            seen: set[str] = set()
            for key, child in value.items_:
                where = f"{path}.{key}" if path else key
                if key in seen:
                    found.append(where)
                seen.add(key)
                descend(child, where)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                descend(item, f"{path}[{i}]")

    descend(top, "")
    return found


class _Pairs:
    """A JSON object as decoded, with every key it had, repeated ones included."""

    def __init__(self, items: list[tuple[str, Any]]) -> None:
        self.items_ = items


def check(kind: str, api_version: str, how: str, unknown: list[str], duplicates: list[str]) -> dict[str, str]:
    """Raises under Strict; under Warn, the Warning header to answer with."""
    if how == "Ignore" or not (unknown or duplicates):
        return {}
    problems = [f'unknown field "{p}"' for p in unknown] + [f'duplicate field "{p}"' for p in duplicates]
    if how == "Strict":
        version = api_version.rpartition("/")[2]
        raise errors.bad_request(f'{kind} in version "{version}" cannot be handled as a {kind}: '
                                 f"strict decoding error: " + ", ".join(problems))
    return {"Warning": ", ".join("299 - " + json.dumps(p) for p in problems)}


def validate(obj: dict[str, Any], raw: bytes | None, query: Mapping[str, str]) -> dict[str, str]:
    """The fields of a create or update body (or a patched object and its patch), checked as asked."""
    how = directive(query)
    if how == "Ignore":
        return {}
    kind, api_version = str(obj.get("kind") or ""), str(obj.get("apiVersion") or "")
    group, _, version = api_version.rpartition("/")
    schema = schemas.kind_schema(group, version, kind)
    if schema is None:
        return {}
    return check(kind, api_version, how, unknown_fields(obj, schema), duplicate_fields(raw) if raw else [])
