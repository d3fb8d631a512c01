"""Where kube-apiserver keeps each resource in etcd, so that it and this server can share one cluster.

A key is `<prefix>/<resource path>/<namespace>/<name>` (cluster-scoped: no namespace). The resource
path is the lower-case resource name, except for the names compiled into kube-apiserver
(SpecialDefaultResourcePrefixes), and `<group>/<resource>` for the groups served by the apiextensions
and aggregation servers and for custom resources.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from apiserver.storage.interface import Key

# kube-apiserver's exceptions to "the resource's name", by (group, resource).
SPECIAL_PATHS: dict[tuple[str, str], str] = {
    ("", "replicationcontrollers"): "controllers",
    ("", "endpoints"): "services/endpoints",
    ("", "nodes"): "minions",
    ("", "services"): "services/specs",
    ("extensions", "ingresses"): "ingress",
    ("networking.k8s.io", "ingresses"): "ingress",
}
# Served by servers of their own inside kube-apiserver, whose storage names the group.
_GROUP_QUALIFIED = frozenset({"apiextensions.k8s.io", "apiregistration.k8s.io"})


def resource_path(group: str, resource: str, builtin: bool) -> str:
    """The path of a resource's keys below the prefix."""
    special = SPECIAL_PATHS.get((group, resource))
    if special is not None:
        return special
    if not builtin or group in _GROUP_QUALIFIED:
        return f"{group}/{resource}"
    return resource


@dataclass
class Layout:
    """Storage keys to etcd keys and back. `paths` maps the storage keys of built-in resources to their
    resource paths; any other storage key (a custom resource's `group/plural`) is its own path."""

    prefix: str = "/registry"
    paths: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.prefix = "/" + self.prefix.strip("/") if self.prefix.strip("/") else ""
        self._storage_keys = {path: storage_key for storage_key, path in self.paths.items()}
        # Paths of more than one segment without a dot in the first (services/specs) are the exceptions.
        self._two_segment = frozenset(p.split("/")[0] for p in self.paths.values() if "/" in p and "." not in p)

    @property
    def range(self) -> tuple[bytes, bytes]:
        """The etcd key range [start, end) holding every resource."""
        start = (self.prefix + "/").encode()
        return start, start[:-1] + b"0"  # "/" + 1

    def key(self, key: Key) -> bytes:
        storage_key, namespace, name = key
        path = self.paths.get(storage_key, storage_key)
        return f"{self.prefix}/{path}/{namespace}/{name}".encode() if namespace else \
            f"{self.prefix}/{path}/{name}".encode()

    def parse(self, raw: bytes) -> Key | None:
        """The storage key, namespace and name of an etcd key; None for a key outside the layout."""
        text = raw.decode("utf-8", "replace")
        if not text.startswith(self.prefix + "/"):
            return None
        parts = text[len(self.prefix) + 1:].split("/")
        # A group has a dot; the few special paths have two segments; every other path has one.
        width = 2 if ("." in parts[0] or parts[0] in self._two_segment) and len(parts) > 2 else 1
        path, rest = "/".join(parts[:width]), parts[width:]
        if len(rest) not in (1, 2) or not all(rest):
            return None
        storage_key = self._storage_keys.get(path, path)
        return (storage_key, rest[0], rest[1]) if len(rest) == 2 else (storage_key, "", rest[0])
