"""Discovery documents, legacy and aggregated, built from the resource registry.

The documents change only when the set of served resources changes, so each is rendered once
per registry generation and served as the same bytes (with an ETag for the aggregated ones).
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from apiserver.kinds.resources import Registry, ResourceType

AGGREGATED_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

VERSION_INFO = {
    "major": "1",
    "minor": "36",
    "emulationMajor": "1",
    "emulationMinor": "36",
    "minCompatibilityMajor": "1",
    "minCompatibilityMinor": "35",
    "gitVersion": "v1.36.2",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2026-11-30T00:00:00Z",
    "goVersion": "python3.11",
    "compiler": "cpython",
    "platform": "linux/amd64",
}


def _legacy_resources(rts: list[ResourceType]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for rt in rts:
        entry: dict[str, Any] = {"name": rt.plural, "singularName": rt.singular, "namespaced": rt.namespaced,
                                 "kind": rt.kind, "verbs": list(rt.verbs)}
        if rt.short_names:
            entry["shortNames"] = list(rt.short_names)
        if rt.categories:
            entry["categories"] = list(rt.categories)
        if rt.storage_version_hash:
            entry["storageVersionHash"] = rt.storage_version_hash
        out.append(entry)
        for sub in rt.subresources:
            sub_entry: dict[str, Any] = {"name": f"{rt.plural}/{sub.name}", "singularName": "",
                                         "namespaced": rt.namespaced, "kind": sub.kind}
            if sub.group:
                sub_entry["group"] = sub.group
                sub_entry["version"] = sub.version
            sub_entry["verbs"] = list(sub.verbs)
            out.append(sub_entry)
    return out


def _aggregated_resource(rt: ResourceType) -> dict[str, Any]:
    # Custom resources name their own group and version where built-in ones leave them empty.
    own = {"group": rt.group, "version": rt.version} if rt.custom else {"group": "", "version": ""}
    entry: dict[str, Any] = {
        "resource": rt.plural,
        "responseKind": {**own, "kind": rt.kind},
        "scope": "Namespaced" if rt.namespaced else "Cluster",
        "singularResource": rt.singular,
        "verbs": list(rt.verbs),
    }
    if rt.short_names:
        entry["shortNames"] = list(rt.short_names)
    if rt.categories:
        entry["categories"] = list(rt.categories)
    if rt.subresources:
        entry["subresources"] = [
            {"subresource": sub.name,
             "responseKind": {"group": sub.group, "version": sub.version, "kind": sub.kind} if sub.group
             else {**own, "kind": sub.kind},
             "verbs": list(sub.verbs)}
            for sub in rt.subresources
        ]
    return entry


class Discovery:
    """Renders and caches every discovery document of one registry generation."""

    def __init__(self, registry: Registry, server_address: str) -> None:
        self._registry = registry
        self._server_address = server_address
        self._cache: dict[str, bytes] = {}

    def invalidate(self) -> None:
        self._cache.clear()

    def _cached(self, name: str, build: Any) -> bytes:
        body = self._cache.get(name)
        if body is None:
            body = self._cache[name] = orjson.dumps(build())
        return body

    def api_versions(self) -> bytes:
        return self._cached("api", lambda: {
            "kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": self._server_address}]})

    def _group(self, group: str, versions: list[str]) -> dict[str, Any]:
        entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
        return {"name": group, "versions": entries, "preferredVersion": entries[0]}

    def group_list(self) -> bytes:
        return self._cached("apis", lambda: {
            "kind": "APIGroupList", "apiVersion": "v1",
            "groups": [self._group(g, vs) for g, vs in self._registry.group_versions().items() if g]})

    def group(self, group: str) -> bytes | None:
        versions = self._registry.group_versions().get(group)
        if not group or versions is None:
            return None
        return self._cached(f"group/{group}", lambda: {"kind": "APIGroup", "apiVersion": "v1",
                                                       **self._group(group, versions)})

    def resource_list(self, group: str, version: str) -> bytes | None:
        rts = self._registry.in_group_version(group, version)
        if not rts:
            return None

        def build() -> dict[str, Any]:
            doc: dict[str, Any] = {"kind": "APIResourceList"}
            if group:
                doc["apiVersion"] = "v1"
            doc["groupVersion"] = f"{group}/{version}" if group else version
            doc["resources"] = _legacy_resources(rts)
            return doc

        return self._cached(f"resources/{group}/{version}", build)

    def aggregated(self, legacy: bool) -> tuple[bytes, str]:
        """The APIGroupDiscoveryList for /api (core) or /apis (every named group), and its ETag."""
        name = "aggregated/api" if legacy else "aggregated/apis"
        body = self._cached(name, lambda: self._build_aggregated(legacy))
        return body, '"' + hashlib.sha512(body).hexdigest().upper() + '"'

    def _build_aggregated(self, legacy: bool) -> dict[str, Any]:
        items = []
        for group, versions in self._registry.group_versions().items():
            if bool(group) == legacy:
                continue
            items.append({
                "metadata": {"name": group} if group else {},
                "versions": [{"version": v,
                              "resources": [_aggregated_resource(rt) for rt in
                                            sorted(self._registry.in_group_version(group, v),
                                                   key=lambda rt: rt.plural)],
                              "freshness": "Current"} for v in versions],
            })
        return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {},
                "items": items}

    def version(self) -> bytes:
        return orjson.dumps(VERSION_INFO, option=orjson.OPT_INDENT_2)


def wants_aggregated(accept: str) -> bool | None:
    """True for aggregated v2, None when only v2beta1 aggregated is asked for (406), else False."""
    clauses = [c.replace(" ", "") for c in accept.split(",")]
    v2beta1 = False
    for clause in clauses:
        if "as=APIGroupDiscoveryList" in clause and "g=apidiscovery.k8s.io" in clause:
            if "v=v2beta1" in clause:
                v2beta1 = True
            elif "v=v2" in clause:
                return True
    if v2beta1 and not any(c.split(";")[0] in ("application/json", "*/*", "application/*") and "as=" not in c
                           for c in clauses):
        return None
    return False
