"""Discovery documents, legacy and aggregated, built from the resource registry.

The documents change only when the set of served resources changes, so each is rendered once
per registry generation and served as the same bytes (with an ETag for the aggregated ones).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Callable

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


@dataclass(frozen=True)
class ExternalVersion:
    """A group-version users registered an APIService for and nothing here serves (metrics.k8s.io)."""

    group: str
    version: str
    group_priority: int
    version_priority: int


def _no_external() -> list[ExternalVersion]:
    return []


class Discovery:
    """Renders and caches every discovery document of one registry generation.

    Group-versions of APIServices users created are listed as kube-aggregator lists them: in /apis
    and /apis/<group>, and in aggregated discovery with no resources and `Stale` freshness, since
    nothing answers behind them.
    """

    def __init__(self, registry: Registry, server_address: str,
                 external: Callable[[], list[ExternalVersion]] = _no_external) -> None:
        self._registry = registry
        self._server_address = server_address
        self._external = external
        self._cache: dict[str, bytes] = {}

    def invalidate(self) -> None:
        self._cache.clear()

    def _cached(self, name: str, build: Any) -> bytes:
        body = self._cache.get(name)
        if body is None:
            body = self._cache[name] = orjson.dumps(build())
        return body

    def _external_groups(self) -> dict[str, list[ExternalVersion]]:
        """External versions by group, groups by priority, versions by priority within each."""
        served = self._registry.group_versions()
        found = sorted((e for e in self._external() if e.group not in served),
                       key=lambda e: (-e.group_priority, e.group, -e.version_priority, e.version))
        groups: dict[str, list[ExternalVersion]] = {}
        for entry in found:
            groups.setdefault(entry.group, []).append(entry)
        return groups

    def is_external(self, group: str, version: str) -> bool:
        return any(e.version == version for e in self._external_groups().get(group, ()))

    def api_versions(self) -> bytes:
        return self._cached("api", lambda: {
            "kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": self._server_address}]})

    def _group(self, group: str, versions: list[str]) -> dict[str, Any]:
        entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
        return {"name": group, "versions": entries, "preferredVersion": entries[0]}

    def group_list(self) -> bytes:
        external = self._external_groups()
        return self._cached(f"apis/{_key(external)}", lambda: {
            "kind": "APIGroupList", "apiVersion": "v1",
            "groups": [self._group(g, vs) for g, vs in self._registry.group_versions().items() if g]
            + [self._group(g, [e.version for e in es]) for g, es in external.items()]})

    def group(self, group: str) -> bytes | None:
        versions = self._registry.group_versions().get(group)
        external = self._external_groups()
        if versions is None and group in external:
            versions = [e.version for e in external[group]]
        if not group or versions is None:
            return None
        listed = versions
        return self._cached(f"group/{group}/{','.join(listed)}", lambda: {"kind": "APIGroup", "apiVersion": "v1",
                                                                           **self._group(group, listed)})

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
        external = {} if legacy else self._external_groups()
        name = "aggregated/api" if legacy else f"aggregated/apis/{_key(external)}"
        body = self._cached(name, lambda: self._build_aggregated(legacy, external))
        return body, '"' + hashlib.sha512(body).hexdigest().upper() + '"'

    def _build_aggregated(self, legacy: bool, external: dict[str, list[ExternalVersion]]) -> dict[str, Any]:
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
        for group, entries in external.items():
            items.append({"metadata": {"name": group},
                          "versions": [{"version": e.version, "freshness": "Stale"} for e in entries]})
        return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {},
                "items": items}

    def version(self) -> bytes:
        return orjson.dumps(VERSION_INFO, option=orjson.OPT_INDENT_2)


def _key(external: dict[str, list[ExternalVersion]]) -> str:
    """A cache key for the documents that list external versions: which ones, at which priorities."""
    return ";".join(f"{e.group}/{e.version}@{e.group_priority}.{e.version_priority}"
                    for entries in external.values() for e in entries)


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
