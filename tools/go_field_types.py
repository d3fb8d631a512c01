"""Writes apiserver/data/go_field_types.json: per OpenAPI definition and json field name, the field's Go
type as encoding/json names it in an UnmarshalTypeError, and the embedded (inline) structs it is reached
through, read off upstream's Go types.

encoding/json reports the type it was decoding into after following pointers, in reflect's words: the
package's short name and the type's name (`v1.SecretType`, `types.UID`), `[]uint8` for []byte, maps
as `map[K]V`. Its error's field path is every Go field it went through, by json name, an embedded
struct by its type name: a field a definition has from an embedded struct is listed with that name
(`EphemeralContainerCommon.`), nested embeddings in order (`RuleWithOperations.Rule.`). A type decoding
itself (its own UnmarshalJSON) is listed too: what it says is its own decoding's words, the schema's
to tell (metav1.Time's error names the string it decodes). Named slice and map types are listed with their underlying type (`v1.ResourceList`), for the type of their items.

Usage: python tools/go_field_types.py UPSTREAM_KUBERNETES_DIR
"""

from __future__ import annotations

import glob
import json
import os
import pathlib
import re
import sys
from typing import NamedTuple

_HERE = os.path.dirname(os.path.abspath(__file__))
_OUT = os.path.join(os.path.dirname(_HERE), "apiserver", "data", "go_field_types.json")

_STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.MULTILINE | re.DOTALL)
_EMPTY_STRUCT = re.compile(r"^type (\w+) struct ?\{\}", re.MULTILINE)
_UNMARSHALER = re.compile(r"^func \(\w+ \*?(\w+)\) UnmarshalJSON\(", re.MULTILINE)
# The packages whose types the API's structs hold, by directory under staging/src/k8s.io.
_TYPE_PACKAGES = ("apimachinery/pkg/apis/meta/v1", "apimachinery/pkg/api/resource", "apimachinery/pkg/util/intstr",
                  "apimachinery/pkg/runtime", "apiextensions-apiserver/pkg/apis/apiextensions/v1")
_ALIAS = re.compile(r"^type (\w+) = (\S+)", re.MULTILINE)
_TYPE_DECL = re.compile(r"^type (\w+) (\S+)", re.MULTILINE)
_NAMED_FIELD = re.compile(r"^\s+(\w+)\s+([^\s`]+)\s*(?:`([^`]*)`)?\s*(?://.*)?$")
_EMBEDDED_FIELD = re.compile(r"^\s+(\*?[\w.]+)\s*(?:`([^`]*)`)?\s*(?://.*)?$")
_JSON_TAG = re.compile(r'json:"([^"]*)"')
_IMPORT = re.compile(r'^\s*(?:import\s+)?(\w+)?\s*"([^"]+)"', re.MULTILINE)
_BUILTINS = frozenset({"string", "bool", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
                       "uint32", "uint64", "float32", "float64", "byte", "rune"})
_STAGING_PREFIXES = (("k8s.io/api/", "io.k8s.api."),
                     ("k8s.io/apimachinery/pkg/apis/meta/v1", "io.k8s.apimachinery.pkg.apis.meta.v1"),
                     ("k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1",
                      "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1"),
                     ("k8s.io/kube-aggregator/pkg/apis/apiregistration/v1",
                      "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1"))


class Field(NamedTuple):
    """A struct field as declared: an embedded struct has no json name of its own (json:",inline")."""

    go_name: str
    go_type: str
    json_name: str
    embedded: bool
    options: frozenset[str]  # the json tag's options: omitempty, omitzero, inline


class Package:
    """One Go API package: its structs' fields, and the short names its imports go by."""

    def __init__(self, prefix: str, files: list[str]) -> None:
        self.prefix = prefix  # the OpenAPI definitions' prefix, "io.k8s.api.core.v1."
        self.short = prefix.rstrip(".").rsplit(".", 1)[-1]
        self.imports: dict[str, str] = {}  # alias -> import path
        self.structs: dict[str, list[Field]] = {}
        self.named: dict[str, str] = {}  # named non-struct type -> its underlying type, as written
        self.aliases: dict[str, str] = {}  # `type Rule = v1.Rule`: the same type, by another name
        for path in sorted(files):
            text = pathlib.Path(path).read_text()
            for block in re.findall(r"^import \((.*?)^\)", text, re.MULTILINE | re.DOTALL):
                for alias, imported in _IMPORT.findall(block):
                    self.imports[alias or imported.rsplit("/", 1)[-1]] = imported
            for single in re.findall(r"^import (\w*\s*\"[^\"]+\")", text, re.MULTILINE):
                for alias, imported in _IMPORT.findall(single):
                    self.imports[alias or imported.rsplit("/", 1)[-1]] = imported
            self.aliases.update(_ALIAS.findall(text))
            for name, underlying in _TYPE_DECL.findall(text):
                if not underlying.startswith(("struct", "interface", "func", "=")):
                    self.named[name] = underlying
            for name in _EMPTY_STRUCT.findall(text):
                self.structs[name] = []
            for name, body in _STRUCT.findall(text):
                self.structs[name] = _fields(body)

    def go_string(self, go_type: str, top: bool = True) -> str:
        """reflect's String() of a type written in this package (top: encoding/json's, pointers followed)."""
        if go_type.startswith("*"):
            inner = self.go_string(go_type[1:], top)
            return inner if top else "*" + inner
        if go_type.startswith("[]"):
            return "[]" + self.go_string(go_type[2:], False)
        if go_type.startswith("map["):
            depth, i = 0, 3
            for i in range(3, len(go_type)):
                depth += {"[": 1, "]": -1}.get(go_type[i], 0)
                if depth == 0:
                    break
            return f"map[{self.go_string(go_type[4:i], False)}]{self.go_string(go_type[i + 1:], False)}"
        if go_type in ("interface{}", "any"):
            return "interface {}"
        if go_type in _BUILTINS:
            return {"byte": "uint8", "rune": "int32"}.get(go_type, go_type)
        if go_type in self.aliases:
            return self.go_string(self.aliases[go_type], top)
        if "." in go_type:
            alias, name = go_type.split(".", 1)
            return f"{self.imports.get(alias, alias).rsplit('/', 1)[-1]}.{name}"
        return f"{self.short}.{go_type}"


def _fields(body: str) -> list[Field]:
    out = []
    for line in body.splitlines():
        if line.strip().startswith("//") or not line.strip():
            continue
        named = _NAMED_FIELD.match(line)
        embedded = None if named else _EMBEDDED_FIELD.match(line)
        if named:
            go_name, go_type, tag = named.group(1), named.group(2), named.group(3) or ""
        elif embedded:
            go_type, tag = embedded.group(1), embedded.group(2) or ""
            go_name = go_type.lstrip("*").rsplit(".", 1)[-1]
        else:
            continue
        json_tag = _JSON_TAG.search(tag)
        json_name, *options = json_tag.group(1).split(",") if json_tag else ("",)
        if json_name == "-" or (named and not go_name[0].isupper()):
            continue
        out.append(Field(go_name, go_type, json_name or ("" if embedded else go_name), bool(embedded) and not json_name,
                         frozenset(options)))
    return out


def api_packages(root: str) -> list[Package]:
    staging = os.path.join(root, "staging", "src", "k8s.io")
    out = []
    for version_dir in sorted(glob.glob(os.path.join(staging, "api", "*", "v*"))):
        group, version = version_dir.split(os.sep)[-2:]
        out.append(Package(f"io.k8s.api.{group}.{version}.", glob.glob(os.path.join(version_dir, "types*.go"))))
    meta = os.path.join(staging, "apimachinery", "pkg", "apis", "meta", "v1")
    out.append(Package("io.k8s.apimachinery.pkg.apis.meta.v1.", glob.glob(os.path.join(meta, "types*.go"))))
    extensions = os.path.join(staging, "apiextensions-apiserver", "pkg", "apis", "apiextensions", "v1")
    out.append(Package("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.",
                        glob.glob(os.path.join(extensions, "types*.go"))))
    aggregator = os.path.join(staging, "kube-aggregator", "pkg", "apis", "apiregistration", "v1")
    out.append(Package("io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.",
                        glob.glob(os.path.join(aggregator, "types*.go"))))
    return out


def prefix_of(import_path: str) -> str | None:
    for go_prefix, definition_prefix in _STAGING_PREFIXES:
        if import_path.startswith(go_prefix):
            return definition_prefix + import_path[len(go_prefix):].replace("/", ".") + "."
    return None


def struct_of(package: Package, name: str, by_prefix: dict[str, Package]) -> tuple[Package, str] | None:
    """The package and name of the struct a type written in this package is, through aliases."""
    while name in package.aliases:
        name = package.aliases[name]
    if "." not in name:
        return package, name
    alias, name = name.split(".", 1)
    owner = by_prefix.get(prefix_of(package.imports.get(alias, "")) or "")
    return None if owner is None else struct_of(owner, name, by_prefix)


def _flattened(package: Package, struct: str, by_prefix: dict[str, Package], through: str,
               out: dict[str, list[str]]) -> None:
    """The json fields of a struct, its embedded structs' included, each with its Go type and the
    embedded struct names encoding/json's path goes through to reach it (the first one found wins,
    as Go's shallower field does)."""
    fields = package.structs.get(struct, [])
    for go_name, go_type, json_name, embedded, _ in sorted(fields, key=lambda field: field.embedded):
        if not embedded:
            out.setdefault(json_name, [through, package.go_string(go_type)])
            continue
        found = struct_of(package, go_type.lstrip("*"), by_prefix)
        if found is not None:
            _flattened(found[0], found[1], by_prefix, f"{through}{go_name}.", out)


def _unmarshalers(root: str) -> list[str]:
    """The types of the API's packages that decode themselves, as reflect names them."""
    found: set[str] = set()
    for directory in _TYPE_PACKAGES:
        for path in glob.glob(os.path.join(root, "staging", "src", "k8s.io", directory, "*.go")):
            if not path.endswith("_test.go"):
                short = directory.rsplit("/", 1)[-1]
                found.update(f"{short}.{name}" for name in _UNMARSHALER.findall(pathlib.Path(path).read_text()))
    return sorted(found)


def main() -> None:
    packages = api_packages(sys.argv[1])
    by_prefix = {p.prefix: p for p in packages}
    facts: dict[str, dict[str, list[str]]] = {}
    # A named slice or map type's underlying type, for its items' type: the first package's wins
    # where two packages of one short name declare it (their types agree in the API's packages).
    named: dict[str, str] = {}
    for package in packages:
        for name, underlying in package.named.items():
            if underlying.startswith(("[]", "map[")):
                named.setdefault(f"{package.short}.{name}", package.go_string(underlying, top=False))
    for package in packages:
        for struct in [*package.structs, *package.aliases]:
            found = struct_of(package, struct, by_prefix)
            fields: dict[str, list[str]] = {}
            if found is not None:
                _flattened(found[0], found[1], by_prefix, "", fields)
            if fields:
                facts[package.prefix + struct] = fields
    with open(_OUT, "w") as f:
        json.dump({"fields": dict(sorted(facts.items())), "named": dict(sorted(named.items())),
                   "unmarshalers": _unmarshalers(sys.argv[1])}, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
