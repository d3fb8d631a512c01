"""The kinds the harness covers: every resource kube-apiserver 1.36 serves, read off the registry.

A `Kind` knows its URL and how a case names its object: a namespaced object is always `obj` in the
case's own namespace; a cluster-scoped one gets a name made from the case's token, so that cases sent
together never touch each other's objects (some kinds need names of a given form: an APIService is
`version.group`, a CustomResourceDefinition `plural.group`, an IPAddress an address).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESOURCES = os.path.join(REPO, "apiserver", "data", "resources.json")
NAMESPACED_NAME = "obj"


@dataclass(frozen=True)
class Kind:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    verbs: tuple[str, ...]
    subresources: tuple[str, ...]

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def label(self) -> str:
        """`Kind.version.group`, the name of the kind in case ids and reports (core: `Kind.v1`)."""
        return ".".join(p for p in (self.kind, self.version, self.group) if p)

    def collection(self, namespace: str | None) -> str:
        prefix = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced:
            return f"{prefix}/namespaces/{namespace}/{self.plural}"
        return f"{prefix}/{self.plural}"

    def item(self, namespace: str | None, name: str) -> str:
        return f"{self.collection(namespace)}/{name}"

    def writable(self) -> bool:
        return "create" in self.verbs

    def stored(self) -> bool:
        return "get" in self.verbs and "create" in self.verbs


def served_kinds() -> list[Kind]:
    with open(RESOURCES) as f:
        registry = json.load(f)
    kinds: list[Kind] = []
    for group in registry["groups"]:
        for version in group["versions"]:
            resources = version["resources"]
            for res in resources:
                plural = res["plural"]
                if "/" in plural:
                    continue
                subs = tuple(r["plural"].split("/", 1)[1] for r in resources
                             if r["plural"].startswith(plural + "/"))
                kinds.append(Kind(group["name"], version["version"], res["kind"], plural, res["namespaced"],
                                  tuple(res["verbs"]), subs))
    return kinds


# kube-apiserver refuses an access review whose metadata holds anything but its namespace.
UNNAMED = {"SubjectAccessReview", "SelfSubjectAccessReview", "LocalSubjectAccessReview"}


def object_name(kind: Kind, token: str) -> str:
    """The name a case gives its object: fixed in a case's namespace, unique per case otherwise."""
    if kind.kind in UNNAMED:
        return ""
    if kind.namespaced:
        return NAMESPACED_NAME
    if kind.kind == "APIService":
        return f"v1.g{token}.example.com"
    if kind.kind == "CustomResourceDefinition":
        return f"things.g{token}.example.com"
    if kind.kind == "IPAddress":
        number = int(token[:6], 16)
        return f"192.{168 + number % 8}.{(number >> 3) % 256}.{1 + (number >> 11) % 254}"
    return f"c-{token}"
