"""Writes what only Go's types know, read off the objects a real kube-apiserver 1.36 returned
(shared/golden: the original set and the surface set), into apiserver/data/:

- field_order.json: the Go struct field order of each definition (OpenAPI sorts fields). Where
  several objects show parts of one definition, their orders are merged; a field seen nowhere keeps
  the position the client gave it.
- zero_fields.json: the fields a definition's Go zero value already holds (value-typed structs,
  non-omitempty lists and maps). Managed fields mark a field the creator added with "." only when
  the zero value lacked it, so each creator's FieldsV1 tells which fields those are.

Usage: python tools/golden_facts.py [GOLDEN_DIR]
"""

from __future__ import annotations

import glob
import json
import os
import sys
from graphlib import TopologicalSorter
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from apiserver.kinds import schemas

_HERE = os.path.dirname(os.path.abspath(__file__))
_DEFAULT_GOLDEN = os.path.join(os.path.dirname(os.path.dirname(_HERE)), "shared", "golden")


_FIELDS_V1 = "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1"


def _walk(value: Any, schema: schemas.Schema | None, seen: dict[str, list[list[str]]]) -> None:
    if isinstance(value, list):
        for item in value:
            _walk(item, schemas.child_schema(schema, None), seen)
        return
    if not isinstance(value, dict) or schema is None:
        return
    name = schemas.ref_name(schema)
    if name == _FIELDS_V1:
        return  # not a struct: structured-merge-diff writes a field set sorted, whatever its keys
    if name is not None and len(value) > 1:
        seen.setdefault(name, []).append(list(value))
    for key, child in value.items():
        _walk(child, schemas.child_schema(schema, key), seen)


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


def _zero(fields: dict[str, Any], schema: schemas.Schema | None, found: dict[str, set[str]]) -> None:
    name = schemas.ref_name(schema) if schema is not None else None
    for key, child in fields.items():
        if not key.startswith(("f:", "k:", "v:")) or not child:
            continue
        if key.startswith("f:"):
            field = key[2:]
            if name is not None and "." not in child:
                found.setdefault(name, set()).add(field)
            _zero(child, schemas.child_schema(schema, field), found)
        else:
            _zero(child, schemas.child_schema(schema, None), found)


# Value-typed struct fields of definitions no golden object was created through: autoscaling/v1
# HorizontalPodAutoscalers (k8s.io/api/autoscaling/v1/types.go: Spec and ScaleTargetRef are structs).
_UNSEEN_ZERO_FIELDS = {
    "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler": {"metadata", "spec"},
    "io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerSpec": {"scaleTargetRef"},
}


def main(golden: str) -> None:
    seen: dict[str, list[list[str]]] = {}
    zero: dict[str, set[str]] = {}
    tables = [os.path.join(golden, "kube-1.36.2", where, "*.includeObject-Object.json")
              for where in ("table", os.path.join("surface", "table"))]
    for path in sorted(path for pattern in tables for path in glob.glob(pattern)):
        with open(path) as f:
            table = json.load(f)
        for row in table.get("rows") or ():
            obj = row["object"]
            group, _, version = obj["apiVersion"].rpartition("/")
            ref = schemas.kind_ref(group, version, obj["kind"])
            if ref is not None:
                seen.setdefault(schemas.ref_name(ref) or "", []).append(list(obj))
                for key, child in obj.items():
                    _walk(child, schemas.child_schema(ref, key), seen)
                # The creator's entry: the one for the main resource (a controller may have written status).
                entries = obj["metadata"].get("managedFields") or ()
                created: dict[str, Any] = next((e for e in entries if "subresource" not in e), {})
                # Served through another version (events.k8s.io), the fields are in the stored version's terms.
                if created.get("apiVersion") == obj["apiVersion"]:
                    _zero(created.get("fieldsV1") or {}, ref, zero)
    for name, fields in _UNSEEN_ZERO_FIELDS.items():
        zero.setdefault(name, set()).update(fields)
    _write("field_order.json", {name: _merge(seqs) for name, seqs in sorted(seen.items())})
    _write("zero_fields.json", {name: sorted(fields) for name, fields in sorted(zero.items())})


def _write(name: str, data: Any) -> None:
    with open(os.path.join(os.path.dirname(_HERE), "apiserver", "data", name), "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else _DEFAULT_GOLDEN)
