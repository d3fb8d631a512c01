"""Writes apiserver/data/scheme.json: the kinds kube-apiserver 1.36's decoding schemes register, read off
upstream's source, so that a body naming another kind or version is refused with upstream's words.

kube-apiserver decodes a write's body with one of three runtime.Schemes: the legacy scheme (every
built-in group that pkg/controlplane installs), apiextensions-apiserver's (CustomResourceDefinitions)
and kube-aggregator's (APIServices). For each it writes:

- `name`: the scheme's name as its errors quote it (the file and line that created it);
- `kinds`: per group/version the versioned kinds registered (each version's register.go
  addKnownTypes, for the versions the group's install.go adds), each with the Go type a decoded body
  of it is converted into (`package.Kind` of the internal type, from the group's internal register.go),
  or null where no internal type of that name exists.

Usage: python tools/scheme_facts.py UPSTREAM_KUBERNETES_DIR
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys
from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))
_OUT = os.path.join(os.path.dirname(_HERE), "apiserver", "data", "scheme.json")

_LEGACY = "deps/github.com/openshift/kubernetes/pkg/api/legacyscheme/scheme.go:30"
_APIEXTENSIONS = "k8s.io/apiextensions-apiserver/pkg/apiserver/apiserver.go:55"
_AGGREGATOR = "k8s.io/kube-aggregator/pkg/apiserver/scheme/scheme.go:28"

_ADDED = re.compile(r"&(?:(\w+)\.)?([A-Z]\w*)\{\}")
_GROUP_NAME = re.compile(r'GroupName\s*=\s*"([^"]*)"')


def _known_types(register_go: str) -> tuple[str, list[tuple[str | None, str]]]:
    """The group a register.go names and the (package, type) pairs its addKnownTypes adds."""
    with open(register_go) as f:
        text = f.read()
    group = _GROUP_NAME.search(text)
    body = text[text.index("func addKnownTypes"):]
    body = body[:body.index("\n}")]
    return (group.group(1) if group else ""), _ADDED.findall(body)


def _package(go_file: str) -> str:
    with open(go_file) as f:
        return re.search(r"^package (\w+)", f.read(), re.MULTILINE).group(1)  # type: ignore[union-attr]


def _installed_versions(install_go: str) -> list[str]:
    """The versioned packages install.go adds, by their import paths' last element."""
    with open(install_go) as f:
        text = f.read()
    imports = {alias or path.rsplit("/", 1)[1]: path.rsplit("/", 1)[1]
               for alias, path in re.findall(r'^\s*(\w+)?\s*"([^"]+)"', text, re.MULTILINE)}
    added = re.findall(r"Must\((\w+)\.AddToScheme", text)
    return [imports[a] for a in added if a in imports and re.fullmatch(r"v\d+(alpha\d+|beta\d+)?", imports[a])]


def _scheme(internal_dir: str, versioned_dirs: dict[str, str]) -> dict[str, dict[str, str | None]]:
    """group/version -> kind -> the internal Go type it converts into."""
    internal_group, internal = _known_types(os.path.join(internal_dir, "register.go"))
    own_package = _package(os.path.join(internal_dir, "register.go"))
    internal_types = {kind: f"{pkg or own_package}.{kind}" for pkg, kind in internal}
    out: dict[str, dict[str, str | None]] = {}
    for version, directory in versioned_dirs.items():
        group, kinds = _known_types(os.path.join(directory, "register.go"))
        group_version = f"{group}/{version}" if group else version
        out[group_version] = {kind: internal_types.get(kind) for _, kind in kinds}
    del internal_group
    return out


def main() -> None:
    root = sys.argv[1]
    staging = os.path.join(root, "staging", "src", "k8s.io")
    legacy: dict[str, dict[str, str | None]] = {}
    for install in sorted(glob.glob(os.path.join(root, "pkg", "apis", "*", "install", "install.go"))):
        internal_dir = os.path.dirname(os.path.dirname(install))
        name = os.path.basename(internal_dir)
        api_dir = os.path.join(staging, "api", name)
        versions = {v: os.path.join(api_dir, v) for v in _installed_versions(install)
                    if os.path.exists(os.path.join(api_dir, v, "register.go"))}
        legacy.update(_scheme(internal_dir, versions))
    extensions = os.path.join(staging, "apiextensions-apiserver", "pkg", "apis", "apiextensions")
    aggregator = os.path.join(staging, "kube-aggregator", "pkg", "apis", "apiregistration")
    facts: dict[str, Any] = {
        "legacy": {"name": _LEGACY, "kinds": legacy},
        "apiextensions.k8s.io": {"name": _APIEXTENSIONS, "kinds": _scheme(
            extensions, {v: os.path.join(extensions, v) for v in ("v1", "v1beta1")})},
        "apiregistration.k8s.io": {"name": _AGGREGATOR, "kinds": _scheme(
            aggregator, {v: os.path.join(aggregator, v) for v in ("v1", "v1beta1")})},
    }
    with open(_OUT, "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
