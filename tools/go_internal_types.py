"""Generates apiserver/data/core_internal_types.json: the internal core API's Go structs
(pkg/apis/core/types.go), which upstream's validation prints in some messages (diff.Diff of two
internal structs, json.Marshal of one), with the v1 JSON name of each field (staging/src/k8s.io/api/core/v1).

Usage: python -m tools.go_internal_types [KUBERNETES_SOURCE_DIR]

Each struct is a list of [Go name, Go type, v1 JSON name or null, embedded]; named non-struct types
map to their underlying type. Internal structs carry no json tags, so json.Marshal writes every field
under its Go name, in declaration order, embedded structs' fields inline.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

_DEFAULT_SOURCE = Path.home() / "k8s-ref/src/deps/github.com/openshift/kubernetes"
_OUT = Path(__file__).resolve().parent.parent / "apiserver/data/core_internal_types.json"
_STRUCT = re.compile(r"^type (\w+) struct \{\s*$")
_NAMED = re.compile(r"^type (\w+) ([\w.*\[\]]+(?:\[[\w.]+\][\w.*]+)?)\s*$")
_FIELD = re.compile(r"^\s*(\w+)\s+([\w.*\[\]]+)\s*(`[^`]*`)?\s*(//.*)?$")
_EMBEDDED = re.compile(r"^\s*([\w.*]+)\s*(`[^`]*`)?\s*(//.*)?$")
_JSON_TAG = re.compile(r'json:"([^",]*)')


def _structs(text: str) -> tuple[dict[str, list[list[Any]]], dict[str, str]]:
    structs: dict[str, list[list[Any]]] = {}
    named: dict[str, str] = {}
    current: str | None = None
    for line in text.splitlines():
        if current is None:
            if match := _STRUCT.match(line):
                current = match.group(1)
                structs[current] = []
            elif match := _NAMED.match(line):
                named[match.group(1)] = match.group(2)
            continue
        if line.startswith("}"):
            current = None
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("//"):
            continue
        if match := _FIELD.match(line):
            tag = _JSON_TAG.search(match.group(3) or "")
            structs[current].append([match.group(1), match.group(2), tag.group(1) if tag else None, False])
        elif match := _EMBEDDED.match(line):
            type_name = match.group(1)
            structs[current].append([type_name.split(".")[-1].lstrip("*"), type_name, None, True])
    return structs, named


def generate(source: Path) -> dict[str, Any]:
    internal, named = _structs((source / "pkg/apis/core/types.go").read_text())
    v1, _ = _structs((source / "staging/src/k8s.io/api/core/v1/types.go").read_text())
    for name, fields in internal.items():
        v1_names = {f[0]: f[2] for f in v1.get(name, [])}
        for f in fields:
            if not f[3]:
                f[2] = v1_names.get(f[0]) or (f[0][:1].lower() + f[0][1:])
    return {"structs": internal, "named": named}


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else _DEFAULT_SOURCE
    facts = generate(source)
    _OUT.write_text(json.dumps(facts, indent=1, sort_keys=True) + os.linesep)
    print(f"{_OUT}: {len(facts['structs'])} structs, {len(facts['named'])} named types")


if __name__ == "__main__":
    main()
