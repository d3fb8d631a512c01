"""Writes apiserver/data/omitempty.json: what encoding/json writes of each OpenAPI definition's fields,
read off upstream's Go types: each field's json tag and Go type, the fields of embedded structs
included, named types and aliases followed across the API's packages.

Decoding a body into upstream's structs and writing it back is what gives a stored object, and the
field manager's view of it, its shape. Per definition:

- `omitempty`: fields tagged omitempty whose Go type is a string, number, bool, slice or map (or a
  named type of one): left out when "", 0, false or empty (`annotations: {}`, `hostPort: 0`).
- `written`: the string, number and bool fields without omitempty, with the zero value written when
  never set (`serviceName: ""`).
- `nil_lists`: the slices and maps without omitempty: written null when nil (`sources: null`), and
  read back nil, so null, from protobuf when stored empty.
- `nil_pointers`: the pointers without omitempty: written null when nil (`apiGroup: null`).
- `structs`: the fields holding a struct by value: omitempty never leaves a struct out, so they are
  written, `{}` and their own written fields, even when never set (`resources: {}`, `status: {}`).
- `marshaled`: the fields holding by value a type with its own MarshalJSON, with what it writes for
  its zero value (`lastProbeTime: null`, a Quantity's "0"); omitzero leaves them out when zero
  (`creationTimestamp`).

A pointer is left out by omitempty only when nil (JSON null), so a pointer to an empty struct stays:
`lifecycle: {}` is written, and is not the same as none.

Usage: python tools/omitempty_facts.py UPSTREAM_KUBERNETES_DIR
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tools.go_field_types import Package, api_packages, prefix_of

_HERE = os.path.dirname(os.path.abspath(__file__))
_OUT = os.path.join(os.path.dirname(_HERE), "apiserver", "data", "omitempty.json")

_SCALAR_ZEROS: dict[str, object] = {
    "string": "", "bool": False, **dict.fromkeys(("int", "int8", "int16", "int32", "int64", "uint", "uint8",
                                                  "uint16", "uint32", "uint64", "float32", "float64", "byte",
                                                  "rune"), 0)}
_META = "k8s.io/apimachinery/pkg/apis/meta/v1"
_EXTENSIONS = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
# What each type with its own MarshalJSON writes for its zero value, read off that MarshalJSON: a zero
# Time or MicroTime, and a FieldsV1, RawExtension or JSON holding no bytes, write null; a Duration
# writes its String(), a Quantity its canonical form, an IntOrString (Type Int) its IntVal.
_MARSHALED_ZEROS: dict[tuple[str, str], object] = {
    (_META, "Time"): None,
    (_META, "MicroTime"): None,
    (_META, "FieldsV1"): None,
    (_META, "Duration"): "0s",
    (_META, "GroupVersion"): "",
    ("k8s.io/apimachinery/pkg/runtime", "RawExtension"): None,
    ("k8s.io/apimachinery/pkg/api/resource", "Quantity"): "0",
    ("k8s.io/apimachinery/pkg/util/intstr", "IntOrString"): 0,
    (_EXTENSIONS, "JSON"): None,
    (_EXTENSIONS, "JSONSchemaPropsOrArray"): None,
    (_EXTENSIONS, "JSONSchemaPropsOrStringArray"): None,
    (_EXTENSIONS, "JSONSchemaPropsOrBool"): False,
}
# Packages the API's structs use that hold no definitions: their named types, by underlying type.
_FOREIGN_NAMED = {("k8s.io/apimachinery/pkg/types", "UID"): "string",
                  ("k8s.io/apimachinery/pkg/types", "NodeName"): "string"}
_MARSHALER = re.compile(r"^func \(\w+ \*?(\w+)\) MarshalJSON\(", re.MULTILINE)
_MARSHALER_PACKAGES = (_META, "k8s.io/apimachinery/pkg/api/resource", "k8s.io/apimachinery/pkg/util/intstr",
                       "k8s.io/apimachinery/pkg/runtime", _EXTENSIONS)


class _Shape:
    """What a Go type is to encoding/json: its kind and, for a scalar or a marshaler, its zero value."""

    def __init__(self, kind: str, zero: object = None) -> None:
        self.kind = kind  # scalar, slice, map, pointer, interface, struct, marshaled
        self.zero = zero


def _import_path(package: Package) -> str:
    for candidate in (_META, _EXTENSIONS, "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"):
        if prefix_of(candidate) == package.prefix:
            return candidate
    return "k8s.io/api/" + package.prefix[len("io.k8s.api."):].rstrip(".").replace(".", "/")


def _marshalers(root: str) -> set[tuple[str, str]]:
    """The types of the API's packages and of those they use that write themselves (MarshalJSON)."""
    found: set[tuple[str, str]] = set()
    staging = os.path.join(root, "staging", "src", "k8s.io")
    directories = [*_MARSHALER_PACKAGES, *("k8s.io/api/" + os.path.relpath(d, os.path.join(staging, "api"))
                                           for d in glob.glob(os.path.join(staging, "api", "*", "v*")))]
    for import_path in directories:
        for path in glob.glob(os.path.join(staging, import_path[len("k8s.io/"):], "*.go")):
            if not path.endswith("_test.go"):
                with open(path) as f:
                    found.update((import_path, name) for name in _MARSHALER.findall(f.read()))
    return found


class _Resolver:
    def __init__(self, packages: list[Package], marshalers: set[tuple[str, str]], root: str) -> None:
        self.by_prefix = {p.prefix: p for p in packages}
        # metav1's definitions are its types*.go, but the structs they hold are declared all over it.
        meta = os.path.join(root, "staging", "src", "k8s.io", "apimachinery", "pkg", "apis", "meta", "v1")
        meta_prefix = prefix_of(_META) or ""
        self.by_prefix[meta_prefix] = Package(meta_prefix, [path for path in glob.glob(os.path.join(meta, "*.go"))
                                                            if not path.endswith("_test.go")])
        self.marshalers = marshalers

    def shape(self, package: Package, go_type: str, seen: frozenset[str] = frozenset()) -> _Shape:
        """The shape of a type as written in a package, named types and aliases followed."""
        if go_type.startswith("*"):
            return _Shape("pointer")
        if go_type.startswith("[]"):
            return _Shape("slice")
        if go_type.startswith("map["):
            return _Shape("map")
        if go_type in ("interface{}", "any"):
            return _Shape("interface")
        if go_type in _SCALAR_ZEROS:
            return _Shape("scalar", _SCALAR_ZEROS[go_type])
        if go_type in package.aliases:
            return self.shape(package, package.aliases[go_type], seen)
        if "." in go_type:
            alias, name = go_type.split(".", 1)
            import_path = package.imports.get(alias, "")
        else:
            import_path, name = _import_path(package), go_type
        key = f"{import_path}.{name}"
        if key in seen:
            raise SystemExit(f"a named type that names itself: {key}")
        if (import_path, name) in self.marshalers:
            if (import_path, name) not in _MARSHALED_ZEROS:
                raise SystemExit(f"a type writing itself whose zero value is not known: {key}")
            return _Shape("marshaled", _MARSHALED_ZEROS[import_path, name])
        if (import_path, name) in _FOREIGN_NAMED:
            return self.shape(package, _FOREIGN_NAMED[import_path, name], seen | {key})
        owner = self.by_prefix.get(prefix_of(import_path) or "")
        if owner is None:
            raise SystemExit(f"a type of a package not read: {go_type} ({import_path})")
        if owner is not package:
            return self.shape(owner, name, seen)
        if name in package.named:
            return self.shape(package, package.named[name], seen | {key})
        if name in package.structs:
            return _Shape("struct")
        raise SystemExit(f"a type not declared in {import_path}: {name}")

    def fields(self, package: Package, struct: str, out: dict[str, tuple[_Shape, frozenset[str]]]) -> None:
        """The json fields of a struct, its embedded structs' included (the shallower field wins, as in Go)."""
        for field in sorted(package.structs.get(struct, []), key=lambda field: field.embedded):
            if not field.embedded:
                out.setdefault(field.json_name, (self.shape(package, field.go_type), field.options))
                continue
            owner, name = self._struct(package, field.go_type.lstrip("*"))
            self.fields(owner, name, out)

    def _struct(self, package: Package, name: str) -> tuple[Package, str]:
        while name in package.aliases:
            name = package.aliases[name]
        if "." not in name:
            return package, name
        alias, name = name.split(".", 1)
        owner = self.by_prefix.get(prefix_of(package.imports.get(alias, "")) or "")
        if owner is None:
            raise SystemExit(f"an embedded struct of a package not read: {alias}.{name}")
        return self._struct(owner, name)


def _facts(root: str) -> dict[str, dict[str, Any]]:
    packages = api_packages(root)
    resolver = _Resolver(packages, _marshalers(root), root)
    facts: dict[str, dict[str, Any]] = {key: {} for key in ("omitempty", "written", "nil_lists", "nil_pointers",
                                                             "structs", "marshaled")}
    for package in packages:
        for struct in [*package.structs, *package.aliases]:
            owner, name = resolver._struct(package, struct)
            if (_import_path(owner), name) in resolver.marshalers:
                continue  # written by its own MarshalJSON: its fields are not what is written
            fields: dict[str, tuple[_Shape, frozenset[str]]] = {}
            resolver.fields(owner, name, fields)
            found: dict[str, Any] = {key: {} for key in facts}
            for json_name, (shape, options) in fields.items():
                omitempty = "omitempty" in options
                if shape.kind in ("scalar", "slice", "map") and omitempty:
                    found["omitempty"][json_name] = True
                elif shape.kind == "scalar":
                    found["written"][json_name] = shape.zero
                elif shape.kind in ("slice", "map") or (shape.kind in ("pointer", "interface") and not omitempty):
                    found["nil_lists" if shape.kind in ("slice", "map") else "nil_pointers"][json_name] = True
                elif shape.kind == "struct" and "omitzero" not in options:
                    found["structs"][json_name] = True
                elif shape.kind == "marshaled" and "omitzero" not in options:
                    found["marshaled"][json_name] = shape.zero
            for key, value in found.items():
                if value:
                    facts[key][package.prefix + struct] = value if key in ("written", "marshaled") else list(value)
    return {key: dict(sorted(value.items())) for key, value in facts.items()}


def main() -> None:
    with open(_OUT, "w") as f:
        json.dump(_facts(sys.argv[1]), f, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
