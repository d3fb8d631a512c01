"""Writes apiserver/data/field_order.json: the Go struct field order of each definition.

No published schema keeps the order in which kube-apiserver serializes fields (OpenAPI sorts
them), so it is read off the objects a real kube-apiserver 1.36 returned (shared/golden). Where
several objects show parts of one definition, their orders are merged; a field seen nowhere keeps
the position the client gave it.

Usage: python tools/field_order.py [GOLDEN_DIR]
"""

from __future__ import annotations

import glob
import json
import os
import sys
from graphlib import TopologicalSorter
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from apiserver import schemas  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
_DEFAULT_GOLDEN = os.path.join(os.path.dirname(os.path.dirname(_HERE)), "shared", "golden")


def _walk(value: Any, schema: schemas.Schema | None, seen: dict[str, list[list[str]]]) -> None:
    if isinstance(value, list):
        for item in value:
            _walk(item, schemas._raw_child(schema, None), seen)
        return
    if not isinstance(value, dict) or schema is None:
        return
    name = schemas.ref_name(schema)
    if name is not None and len(value) > 1:
        seen.setdefault(name, []).append(list(value))
    for key, child in value.items():
        _walk(child, schemas._raw_child(schema, key), seen)


def _merge(sequences: list[list[str]]) -> list[str]:
    first_seen: dict[str, int] = {}
    graph: dict[str, set[str]] = {}
    for seq in sequences:
        for i, key in enumerate(seq):
            first_seen.setdefault(key, len(first_seen))
            graph.setdefault(key, set())
            if i:
                graph[key].add(seq[i - 1])
    sorter = TopologicalSorter(graph)
    sorter.prepare()
    out: list[str] = []
    ready: list[str] = []
    while sorter.is_active():
        ready = sorted([*ready, *sorter.get_ready()], key=first_seen.__getitem__)
        out.append(ready.pop(0))
        sorter.done(out[-1])
    return out


def main(golden: str) -> None:
    seen: dict[str, list[list[str]]] = {}
    for path in sorted(glob.glob(os.path.join(golden, "kube-1.36.2", "table", "*.includeObject-Object.json"))):
        with open(path) as f:
            table = json.load(f)
        for row in table.get("rows") or ():
            obj = row["object"]
            group, _, version = obj["apiVersion"].rpartition("/")
            ref = schemas.kind_ref(group, version, obj["kind"])
            if ref is not None:
                seen.setdefault(schemas.ref_name(ref) or "", []).append(list(obj))
                for key, child in obj.items():
                    _walk(child, schemas._raw_child(ref, key), seen)
    order = {name: _merge(seqs) for name, seqs in sorted(seen.items())}
    target = os.path.join(os.path.dirname(_HERE), "apiserver", "data", "field_order.json")
    with open(target, "w") as f:
        json.dump(order, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else _DEFAULT_GOLDEN)
