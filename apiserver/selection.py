"""Which objects a list or watch returns: namespace and the metadata field selectors.

The full label and per-kind field selector language comes with the list/watch work; this module
answers the selectors kubectl itself sends (`metadata.name=...`) and refuses the rest clearly.
"""

from __future__ import annotations

from dataclasses import dataclass

from apiserver import errors
from apiserver.storage.interface import Key

_SUPPORTED_FIELDS = ("metadata.name", "metadata.namespace")


@dataclass(frozen=True)
class FieldRequirement:
    field: str
    value: str
    equal: bool


@dataclass(frozen=True)
class Selection:
    namespace: str | None  # None: all namespaces (or a cluster-scoped resource)
    fields: tuple[FieldRequirement, ...] = ()

    def matches_key(self, key: Key) -> bool:
        if self.namespace is not None and key[1] != self.namespace:
            return False
        for req in self.fields:
            actual = key[2] if req.field == "metadata.name" else key[1]
            if (actual == req.value) != req.equal:
                return False
        return True


def parse_field_selector(text: str, resource: str) -> tuple[FieldRequirement, ...]:
    requirements: list[FieldRequirement] = []
    for term in (t.strip() for t in text.split(",")):
        if not term:
            continue
        for op, equal in (("!=", False), ("==", True), ("=", True)):
            if op in term:
                field, value = term.split(op, 1)
                break
        else:
            raise errors.bad_request(f"invalid selector: '{text}'; can't understand '{term}'")
        field = field.strip()
        if field not in _SUPPORTED_FIELDS:
            known = ", ".join(f'"{f}"' for f in _SUPPORTED_FIELDS)
            raise errors.bad_request(f'"{field}" is not a known field selector: only {known}')
        requirements.append(FieldRequirement(field, value.strip(), equal))
    return tuple(requirements)
