"""What kube-apiserver's Go types write of a field, keyed by definition name, read off their json tags
and Go types (apiserver/data/omitempty.json, from tools/omitempty_facts.py): which fields omitempty
leaves out when empty, and which are written even when never set, with the value written.

encoding/json writes every field without omitempty (a nil slice, map or pointer as null:
`sources: null`, `apiGroup: null`) and every struct held by value, omitempty or not (`resources: {}`,
`status: {}`); a type writing itself writes its zero value its own way (`lastProbeTime: null`).
shaping.py writes them, with Go struct key order, into every stored built-in object.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from typing import Any


class _Facts:
    def __init__(self, facts: dict[str, dict[str, Any]]) -> None:
        self.omitted = {name: frozenset(fields) for name, fields in facts["omitempty"].items()}
        self.scalars = {name: tuple(zeros.items()) for name, zeros in facts["written"].items()}
        self.structs = {name: tuple(fields) for name, fields in facts["structs"].items()}
        self.nil_lists = {name: frozenset(fields) for name, fields in facts["nil_lists"].items()}
        written: dict[str, dict[str, Any]] = {}
        for name, zeros in facts["written"].items():
            written.setdefault(name, {}).update(zeros)
        for key in ("nil_lists", "nil_pointers"):
            for name, fields in facts[key].items():
                written.setdefault(name, {}).update(dict.fromkeys(fields))
        for name, fields in facts["structs"].items():
            written.setdefault(name, {}).update((field, {}) for field in fields)
        for name, zeros in facts["marshaled"].items():
            written.setdefault(name, {}).update(zeros)
        self.written = written


@functools.cache
def _facts() -> _Facts:
    return _Facts(json.loads((importlib.resources.files("apiserver") / "data" / "omitempty.json").read_bytes()))


def omitted_when_empty(definition: str) -> frozenset[str]:
    """The fields of a definition tagged omitempty whose Go type is a string, number, bool, slice or
    map: absent when empty."""
    return _facts().omitted.get(definition, frozenset())


def struct_values(definition: str) -> tuple[str, ...]:
    """The fields of a definition holding a struct by value: present in its Go zero value."""
    return _facts().structs.get(definition, ())


def scalars_written(definition: str) -> tuple[tuple[str, Any], ...]:
    """The scalar fields of a definition Go writes even when never set, with the zero value written."""
    return _facts().scalars.get(definition, ())


def always_written(definition: str) -> dict[str, Any]:
    """The fields of a definition Go writes even when unset, with the value it writes ({} for a struct,
    to be given its own always-written fields)."""
    return _facts().written.get(definition, {})


def nulled_when_empty(definition: str) -> frozenset[str]:
    """The slices and maps of a definition without omitempty: stored empty, they read back from protobuf
    as nil, which is written null."""
    return _facts().nil_lists.get(definition, frozenset())
