"""The registry of resource types: what each one is called and what it allows.

Every other layer (routing, discovery, storage keys) reads these declarations; nothing else
names a resource. Built-in types are read once from apiserver/data/resources.json (kube-apiserver
1.36's discovery, written by tools/discovery_facts.py); the types CustomResourceDefinitions declare
join and leave at run time (apiserver.crd).
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Protocol

from apiserver.errors import FieldError
from columns.base import Printer

if TYPE_CHECKING:
    from apiserver.crd.webhookconversion import WebhookConversion
    from apiserver.kinds.conversion import Codec  # which imports this module

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
STATUS_VERBS = ("get", "patch", "update")


class CustomVersion(Protocol):
    """What a type served from a CustomResourceDefinition brings that a built-in kind's rules would
    (implemented by apiserver.crd.crdspec): its schema, storage version, printer and scale paths."""

    schema: dict[str, Any] | None
    storage_version: str
    has_status: bool
    crd_name: str
    created: str  # the CRD's creationTimestamp
    deprecation_warning: str | None  # the Warning of every request to a deprecated version
    conversion: WebhookConversion | None  # the CRD's conversion webhook; None for strategy None
    scale_paths: dict[str, str] | None  # the scale subresource's paths (specReplicasPath, ...), if served

    @property
    def codec(self) -> Codec: ...
    @property
    def printer(self) -> Printer: ...
    def prepare(self, obj: dict[str, Any]) -> None: ...
    def embedded_meta_error(self, obj: dict[str, Any]) -> str | None: ...
    def embedded_unknown_fields(self, obj: dict[str, Any]) -> list[str]: ...
    def problems(self, obj: dict[str, Any], old: dict[str, Any] | None = None, status: bool = False,
                 ratcheted: list[FieldError] | None = None) -> list[FieldError]: ...
    def generation_fields(self, obj: dict[str, Any]) -> dict[str, Any]: ...
    def scale_of(self, obj: dict[str, Any]) -> dict[str, Any]: ...
    @property
    def spec_replicas_path(self) -> str: ...
    def has_spec_replicas(self, obj: dict[str, Any]) -> bool: ...
    def set_replicas(self, obj: dict[str, Any], replicas: int) -> bool: ...


@dataclass(frozen=True)
class Subresource:
    name: str
    kind: str
    group: str = ""
    version: str = ""
    verbs: tuple[str, ...] = STATUS_VERBS


# Compared and hashed by identity: the registry holds one of each, and lists look caches up by it
# (selections, assembled lists), where the generated hash went through every field, subresources included,
# each time: about 1.3 µs per list. A CRD's changed type is a new object, so nothing made for the old
# one is found for it.
@dataclass(frozen=True, eq=False)
class ResourceType:
    group: str
    version: str
    kind: str
    plural: str
    singular: str
    namespaced: bool
    # Discovery lists verbs and subresources in the order declared here.
    verbs: tuple[str, ...] = ALL_VERBS
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[Subresource, ...] = ()
    # Resources served from the same stored objects share a storage key (core and
    # events.k8s.io Events); the default is group/plural.
    storage: str = ""
    # Generated from the registry itself instead of being stored (apiservices).
    synthetic: bool = False
    # A spec change bumps metadata.generation only for kinds upstream tracks it for.
    tracks_generation: bool = False
    # Discovery's hash of the group/version/kind objects are stored as ("" leaves it out).
    storage_version_hash: str = ""
    # Served from a CustomResourceDefinition: its schema, storage version and subresource paths.
    custom: CustomVersion | None = None

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def api_version(self) -> str:
        return self.group_version

    @property
    def list_kind(self) -> str:
        return self.kind + "List"

    @functools.cached_property  # read several times by every request
    def storage_key(self) -> str:
        return self.storage or (f"{self.group}/{self.plural}" if self.group else self.plural)

    @property
    def qualified_name(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def subresource(self, name: str) -> Subresource | None:
        """The subresource of that name if this server carries out its verbs."""
        for sub in self.subresources:
            if sub.name == name and name in SERVED_SUBRESOURCES:
                return sub
        return None

    def allows(self, verb: str) -> bool:
        return verb in self.verbs


# The subresources whose verbs this server carries out (the kubelet's ones answer as kube-apiserver
# does when no kubelet can be reached: apiserver.http.kubelet); a request for any other is answered 404.
SERVED_SUBRESOURCES = frozenset({"status", "scale", "finalize", "approval", "binding", "eviction", "token",
                                 "ephemeralcontainers", "resize",
                                 "log", "exec", "attach", "portforward", "proxy"})
# Resources never stored: componentstatuses are probed when read; the others are write-only requests
# answered at once (the reviews by their authorizers and authenticators; a binding binds its pod).
_COMPUTED = frozenset({("", "componentstatuses"), ("", "bindings"),
                       ("authentication.k8s.io", "tokenreviews"), ("authentication.k8s.io", "selfsubjectreviews"),
                       ("authorization.k8s.io", "localsubjectaccessreviews"),
                       ("authorization.k8s.io", "selfsubjectaccessreviews"),
                       ("authorization.k8s.io", "selfsubjectrulesreviews"),
                       ("authorization.k8s.io", "subjectaccessreviews")})


def _load_facts() -> list[dict[str, Any]]:
    """apiserver/data/resources.json, written by tools/discovery_facts.py from the discovery goldens."""
    with (importlib.resources.files("apiserver") / "data" / "resources.json").open("rb") as f:
        return json.load(f)["groups"]  # type: ignore[no-any-return]


def _storage(group: str, plural: str, stored: str) -> str:
    """Where objects are kept: their stored group's key, so that two groups serving one kind share it."""
    stored_group = stored.split("/")[0]
    if stored_group == group:
        return ""
    return f"{stored_group}/{plural}" if stored_group else plural


def _resource_type(group: str, version: str, fact: dict[str, Any]) -> ResourceType:
    subresources = tuple(Subresource(s["name"], s["kind"], s["group"], s["version"], tuple(s["verbs"]))
                         for s in fact.get("subresources") or ())
    return ResourceType(
        group, version, fact["kind"], fact["plural"], fact["singular"], fact["namespaced"],
        verbs=tuple(fact["verbs"]), short_names=tuple(fact.get("shortNames") or ()),
        categories=tuple(fact.get("categories") or ()), subresources=subresources,
        storage=_storage(group, fact["plural"], fact.get("stored", "")),
        synthetic=(group, fact["plural"]) in _COMPUTED, tracks_generation=fact["tracksGeneration"],
        storage_version_hash=fact.get("storageVersionHash", ""))


_FACTS = _load_facts()
BUILTIN: tuple[ResourceType, ...] = tuple(
    _resource_type(g["name"], v["version"], r) for g in _FACTS for v in g["versions"] for r in v["resources"])
# The order kube-apiserver lists its groups in (/apis and aggregated discovery).
GROUP_ORDER: tuple[str, ...] = tuple(g["name"] for g in _FACTS if g["name"])
# (groupPriorityMinimum, versionPriority) of the local APIService of each built-in group-version.
APISERVICE_PRIORITIES: dict[tuple[str, str], tuple[int, int]] = {
    (g["name"], v["version"]): (v["groupPriorityMinimum"], v["versionPriority"])
    for g in _FACTS for v in g["versions"] if "groupPriorityMinimum" in v}


@dataclass
class Registry:
    """Looks resource types up the way request paths name them."""

    types: list[ResourceType] = field(default_factory=list)
    _by_path: dict[tuple[str, str, str], ResourceType] = field(default_factory=dict)
    # Bumped whenever a type is served or withdrawn: what was decided from the types before is stale.
    generation: int = 0

    def add(self, rt: ResourceType) -> None:
        key = (rt.group, rt.version, rt.plural)
        if key in self._by_path:
            raise ValueError(f"resource {rt.qualified_name}/{rt.version} declared twice")
        self._by_path[key] = rt
        self.types.append(rt)
        self.generation += 1

    def remove(self, rt: ResourceType) -> None:
        if self._by_path.pop((rt.group, rt.version, rt.plural), None) is not None:
            self.types.remove(rt)
            self.generation += 1

    def lookup(self, group: str, version: str, plural: str) -> ResourceType | None:
        return self._by_path.get((group, version, plural))

    def serves_built_in(self, group: str) -> bool:
        """Whether a built-in kind of this group is served (a group of custom resources is not)."""
        return any(rt.group == group and rt.custom is None for rt in self.types)

    def group_versions(self) -> dict[str, list[str]]:
        """Served versions per group (core is the empty group), groups in discovery order."""
        found: dict[str, list[str]] = {}
        for rt in self.types:
            versions = found.setdefault(rt.group, [])
            if rt.version not in versions:
                versions.append(rt.version)
        order = {g: i for i, g in enumerate(("",) + GROUP_ORDER)}
        return dict(sorted(found.items(), key=lambda kv: order.get(kv[0], len(order))))

    def in_group_version(self, group: str, version: str) -> list[ResourceType]:
        """Built-in types by name; custom ones after them in the order their CRDs were served."""
        return sorted((rt for rt in self.types if rt.group == group and rt.version == version),
                      key=lambda rt: (1, "") if rt.custom else (0, rt.plural))

    def storage_keys(self) -> Iterable[str]:
        return {rt.storage_key for rt in self.types if not rt.synthetic}


def builtin_registry() -> Registry:
    registry = Registry()
    for rt in BUILTIN:
        registry.add(rt)
    return registry
