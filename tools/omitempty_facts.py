"""Writes apiserver/data/omitempty.json: per OpenAPI definition, the fields Go's encoding/json leaves out
when they hold their zero value (`omitempty`), and the scalar fields it writes even when never set
(`written`, with the zero value written), and the fields holding a struct by value (`structs`: there
in every zero value), read off upstream's Go types.

A field is listed when its json tag says `omitempty` and its Go type is a string, number, bool, slice
or map (or a named type of one): those are left out when "", 0, false or empty. A pointer is left out
only when nil (JSON null) and a struct never, so neither is listed.

Decoding a body into upstream's structs and writing it back is what gives a stored object, and the
field manager's view of it, its shape: `annotations: {}` or `hostPort: 0` are not there afterwards.

Usage: python tools/omitempty_facts.py UPSTREAM_KUBERNETES_DIR
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_OUT = os.path.join(os.path.dirname(_HERE), "apiserver", "data", "omitempty.json")

_TYPE_DECL = re.compile(r"^type (\w+) (.+?)\s*(?://.*)?$", re.MULTILINE)
_STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.MULTILINE | re.DOTALL)
_FIELD = re.compile(r'^\s+\w+\s+(\S+)\s+`[^`]*json:"([^",]*)((?:,[^"]*)?)"', re.MULTILINE)
_SCALARS = frozenset({"string", "bool", "int", "int32", "int64", "uint", "uint32", "uint64", "float32",
                      "float64", "byte"})
# Named types of other packages the API's structs use, by whether they are a value Go can omit.
# Structs whose own MarshalJSON writes their zero value as null: no field of them is there to own.
_NULL_WHEN_ZERO = frozenset({"runtime.RawExtension"})
_FOREIGN_SCALARS = frozenset({"types.UID", "metav1.ConditionStatus", "v1.ConditionStatus", "metav1.Verbs"})


def _sources(root: str) -> list[tuple[str, list[str]]]:
    """(definition prefix, Go files) per API package."""
    staging = os.path.join(root, "staging", "src", "k8s.io")
    out = []
    for version_dir in sorted(glob.glob(os.path.join(staging, "api", "*", "v*"))):
        group, version = version_dir.split(os.sep)[-2:]
        out.append((f"io.k8s.api.{group}.{version}.", glob.glob(os.path.join(version_dir, "types*.go"))))
    out.append(("io.k8s.apimachinery.pkg.apis.meta.v1.",
                glob.glob(os.path.join(staging, "apimachinery", "pkg", "apis", "meta", "v1", "types*.go"))))
    extensions = os.path.join(staging, "apiextensions-apiserver", "pkg", "apis", "apiextensions", "v1")
    out.append(("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.",
                glob.glob(os.path.join(extensions, "types*.go"))))
    aggregator = os.path.join(staging, "kube-aggregator", "pkg", "apis", "apiregistration", "v1")
    out.append(("io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.", glob.glob(os.path.join(aggregator, "types*.go"))))
    return out


def _omittable(go_type: str, named: dict[str, str]) -> bool:
    """Whether a value of this Go type is ever left out by omitempty (its zero value is "empty")."""
    seen = set()
    while True:
        if go_type.startswith(("[]", "map[")) or go_type in _SCALARS or go_type in _FOREIGN_SCALARS:
            return True
        if go_type.startswith("*") or "." in go_type or go_type not in named or go_type in seen:
            return False
        seen.add(go_type)
        go_type = named[go_type]


def _scalar_zero(go_type: str, named: dict[str, str]) -> object:
    """The zero value a field of this type is written with when never set, if it is a plain scalar
    (a string, number or bool, or a named type of one); None otherwise."""
    seen = set()
    while go_type in named and go_type not in seen:
        seen.add(go_type)
        go_type = named[go_type]
    if go_type == "string" or go_type == "types.UID":
        return ""
    if go_type == "bool":
        return False
    return 0 if go_type in _SCALARS else None


def main() -> None:
    facts: dict[str, list[str]] = {}
    written: dict[str, dict[str, object]] = {}
    structs: dict[str, list[str]] = {}
    for prefix, files in _sources(sys.argv[1]):
        text = "\n".join(open(f).read() for f in sorted(files))
        named = {name: underlying for name, underlying in _TYPE_DECL.findall(text)
                 if not underlying.startswith("struct")}
        for name, body in _STRUCT.findall(text):
            fields = [json_name for go_type, json_name, options in _FIELD.findall(body)
                      if json_name and "omitempty" in options and _omittable(go_type, named)]
            if fields:
                facts[prefix + name] = fields
            zeros = {json_name: _scalar_zero(go_type, named) for go_type, json_name, options in _FIELD.findall(body)
                     if json_name and "omitempty" not in options and _scalar_zero(go_type, named) is not None}
            if zeros:
                written[prefix + name] = zeros
            values = [json_name for go_type, json_name, _ in _FIELD.findall(body)
                      if json_name and not _omittable(go_type, named) and not go_type.startswith("*")
                      and _scalar_zero(go_type, named) is None and go_type not in _NULL_WHEN_ZERO]
            if values:
                structs[prefix + name] = values
    with open(_OUT, "w") as f:
        json.dump({"omitempty": dict(sorted(facts.items())), "written": dict(sorted(written.items())),
                   "structs": dict(sorted(structs.items()))}, f, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
