"""Writes apiserver/data/internal_structs.json: the fields of the internal (pkg/apis/core) Go structs a
validation message shows whole, with the json name each has in core/v1.

Upstream's field errors render a bad value with json.Marshal; the internal types have no json tags, so an
internal struct is written with Go's field names, in declaration order, every field present (nil pointers,
slices and maps as null). The facts hold, per struct reachable from the roots below: the Go name, the
v1 json name (None for an embedded struct, whose fields are written inline), and the Go type.

Usage: python tools/internal_struct_facts.py KUBERNETES_SOURCE  (e.g. ~/k8s-ref/src/deps/github.com/openshift/kubernetes)
"""

from __future__ import annotations

import json
import os
import re
import sys

ROOTS = ("PersistentVolumeSpec",)
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "apiserver", "data",
                   "internal_structs.json")

_STRUCT = re.compile(r"^type (\w+) struct \{$")
_ALIAS = re.compile(r"^type (\w+) (string|bool|int32|int64|map\[\w+\][\w.]+)$")
_FIELD = re.compile(r"^\t(\w+)(?:\s+([^\s`]+))?(?:\s+`json:\"([^\",]*)[^`]*`)?")


def _structs(path: str) -> tuple[dict[str, list[tuple[str, str | None, str]]], dict[str, str]]:
    """Each struct's fields (name, json name or None, type) and each named scalar or map type's underlying type."""
    structs: dict[str, list[tuple[str, str | None, str]]] = {}
    aliases: dict[str, str] = {}
    current: list[tuple[str, str | None, str]] | None = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if current is None:
                if m := _STRUCT.match(line):
                    current = structs[m.group(1)] = []
                elif m := _ALIAS.match(line):
                    aliases[m.group(1)] = m.group(2)
                continue
            if line == "}":
                current = None
                continue
            m = _FIELD.match(line)
            if m is None or m.group(1) in ("type",):
                continue
            name, kind, tag = m.group(1), m.group(2), m.group(3)
            if kind is None:  # an embedded struct: its fields are written inline
                current.append((name, None, name))
            else:
                current.append((name, tag, kind))
    return structs, aliases


def _base(kind: str) -> str:
    while kind.startswith(("*", "[]")):
        kind = kind[1:] if kind.startswith("*") else kind[2:]
    return kind.split("]", 1)[1] if kind.startswith("map[") else kind


def main(source: str) -> None:
    internal, aliases = _structs(os.path.join(source, "pkg/apis/core/types.go"))
    external, _ = _structs(os.path.join(source, "staging/src/k8s.io/api/core/v1/types.go"))
    facts: dict[str, list[list[str | None]]] = {}
    pending = list(ROOTS)
    while pending:
        name = pending.pop()
        if name in facts or name not in internal:
            continue
        json_names = {go: tag for go, tag, _ in external.get(name, [])}
        facts[name] = []
        for go, _, kind in internal[name]:
            embedded = go == kind and go in internal
            facts[name].append([go, None if embedded else json_names.get(go, go[:1].lower() + go[1:]), kind])
            if _base(kind) in internal:
                pending.append(_base(kind))
    used = {_base(kind) for fields in facts.values() for _, _, kind in fields}
    out = {"structs": dict(sorted(facts.items())),
           "aliases": {name: aliases[name] for name in sorted(used) if name in aliases}}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"{len(facts)} structs, {len(out['aliases'])} named types -> {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
