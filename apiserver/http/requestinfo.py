"""Turns a request path into what it addresses, as kube-apiserver's RequestInfoFactory does."""

from __future__ import annotations

import functools
from dataclasses import dataclass

# Subresources of a namespace itself, so /api/v1/namespaces/x/status is not a resource named "status".
_NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})


@dataclass(frozen=True)
class ResourcePath:
    group: str
    version: str
    resource: str
    namespace: str  # "" for cluster scope or all namespaces
    name: str | None
    subresource: str | None


@dataclass(frozen=True)
class DiscoveryPath:
    group: str | None  # None: the list of groups (/apis) or core versions (/api)
    version: str | None
    legacy: bool  # under /api


# Clients ask for the same few paths again and again; the answers are frozen, so they are shared.
@functools.lru_cache(maxsize=1024)
def parse(path: str) -> ResourcePath | DiscoveryPath | None:
    parts = [p for p in path.split("/") if p]
    if not parts or parts[0] not in ("api", "apis"):
        return None
    legacy = parts[0] == "api"
    rest = parts[1:]
    if legacy:
        group = ""
        if not rest:
            return DiscoveryPath(None, None, True)
        version, rest = rest[0], rest[1:]
        if not rest:
            return DiscoveryPath("", version, True)
    else:
        if not rest:
            return DiscoveryPath(None, None, False)
        if len(rest) == 1:
            return DiscoveryPath(rest[0], None, False)
        group, version, rest = rest[0], rest[1], rest[2:]
        if not rest:
            return DiscoveryPath(group, version, False)
    namespace = ""
    if rest[0] == "namespaces" and len(rest) > 1:
        namespace = rest[1]
        if len(rest) > 2 and rest[2] not in _NAMESPACE_SUBRESOURCES:
            rest = rest[2:]
    # Only a proxy subresource goes deeper: the rest of the path is the proxied request's.
    if len(rest) > 3 and rest[2] != "proxy":
        return None
    resource = rest[0]
    name = rest[1] if len(rest) > 1 else None
    subresource = rest[2] if len(rest) > 2 else None
    return ResourcePath(group, version, resource, namespace, name, subresource)


def selected_name(field_selector: str) -> str:
    """The object a list or watch is narrowed to by `metadata.name=NAME`, which kube-apiserver's
    RequestInfo takes as the request's name, so that RBAC resourceNames can allow watching one object."""
    for term in field_selector.split(","):
        key, sep, value = term.partition("==") if "==" in term else term.partition("=")
        if sep and not key.endswith("!") and key.strip() == "metadata.name":
            name = value.strip()
            return name if name and name not in (".", "..") and "/" not in name and "%" not in name else ""
    return ""
