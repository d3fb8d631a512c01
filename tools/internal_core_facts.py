"""Writes apiserver/data/internal_pod_types.json: the internal (pkg/apis/core) Go structs a pod template
is validated as, field by field in declaration order, for rendering a bad value as upstream shows it.

Usage: python tools/internal_core_facts.py [KUBERNETES_SOURCE]
(default ~/k8s-ref/src/deps/github.com/openshift/kubernetes). Reads pkg/apis/core/types.go and keeps
the structs reachable from PodTemplateSpec, each field as [Go name, Go type, v1 JSON name]: the name
the field of the same Go name has in staging/src/k8s.io/api/core/v1/types.go, which is what a v1 object
holds it under ("" for an embedded struct, whose fields sit in the parent's JSON; null for a field
v1 does not have there).
"""

from __future__ import annotations

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "apiserver", "data", "internal_pod_types.json")
DEFAULT_SOURCE = os.path.expanduser("~/k8s-ref/src/deps/github.com/openshift/kubernetes")

_STRUCT = re.compile(r"^type (\w+) struct \{$")
_NAMED = re.compile(r"^type (\w+) (\S+)$")
_FIELD = re.compile(r"^(\w+)\s+([^\s`]+)")
_EMBEDDED = re.compile(r"^([\w.]+)$")
_JSON_TAG = re.compile(r'json:"([^",]*)')


def _parse(text: str) -> tuple[dict[str, list[list[str]]], dict[str, str]]:
    """Every struct's fields (name, type) and every named non-struct type's underlying type."""
    structs: dict[str, list[list[str]]] = {}
    named: dict[str, str] = {}
    current: list[list[str]] | None = None
    for raw in text.splitlines():
        line = raw.split("//", 1)[0].strip()
        if current is None:
            match = _STRUCT.match(line)
            if match:
                current = structs[match.group(1)] = []
                continue
            match = _NAMED.match(line)
            if match:
                named[match.group(1)] = match.group(2)
            continue
        if line == "}":
            current = None
        elif (field := _FIELD.match(line)) is not None:
            tag = _JSON_TAG.search(raw)
            current.append([field.group(1), field.group(2), tag.group(1) if tag else field.group(1)])
        elif (embedded := _EMBEDDED.match(line)) is not None:
            current.append(["", embedded.group(1), ""])
    return structs, named


def _base(go_type: str) -> str:
    return re.sub(r"^(\*|\[\])+", "", re.sub(r"^map\[[^\]]+\]", "", go_type))


def main(source: str) -> None:
    with open(os.path.join(source, "pkg/apis/core/types.go")) as f:
        structs, named = _parse(f.read())
    with open(os.path.join(source, "staging/src/k8s.io/api/core/v1/types.go")) as f:
        versioned, _ = _parse(f.read())
    keep: dict[str, list[list[str]]] = {}
    todo = ["PodTemplateSpec"]
    while todo:
        name = todo.pop()
        if name in keep or name not in structs:
            continue
        v1_names = {go_name: json_name for go_name, _, json_name in versioned.get(name, ())}
        # An embedded struct's fields are inline in v1 as well; a field v1 lacks (moved elsewhere) is null.
        keep[name] = [[go_name, go_type, "" if not go_name else v1_names.get(go_name)]
                      for go_name, go_type, _ in structs[name]]
        for _, go_type, _ in structs[name]:
            base = _base(go_type)
            todo.append(_base(named.get(base, base)))
    used = {_base(t) for fields in keep.values() for _, t, _ in fields}
    out = {"structs": keep, "named": {k: v for k, v in sorted(named.items()) if k in used}}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(keep)} structs, {len(out['named'])} named types -> {OUT}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_SOURCE)
