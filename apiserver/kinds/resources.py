"""The registry of resource types: what each one is called and what it allows.

Every other layer (routing, discovery, storage keys) reads these declarations; nothing else
names a resource. Built-in types are declared once, checked when the module loads; the types
CustomResourceDefinitions declare join and leave at run time (apiserver.crd).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Protocol

from apiserver.errors import FieldError
from columns.base import Printer

if TYPE_CHECKING:
    from apiserver.kinds.conversion import Codec  # which imports this module

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
READ_VERBS = ("get", "list", "watch")
STATUS_VERBS = ("get", "patch", "update")
# Subresources a kubelet or the proxy answers: exec, attach and portforward are a GET or POST upgrade.
CONNECT_VERBS = ("create", "get")
PROXY_VERBS = ("create", "delete", "get", "patch", "update")


class CustomVersion(Protocol):
    """What a type served from a CustomResourceDefinition brings that a built-in kind's rules would
    (implemented by apiserver.crd.crdspec): its schema, storage version, printer and scale paths."""

    schema: dict[str, Any] | None
    storage_version: str
    has_status: bool
    crd_name: str
    created: str  # the CRD's creationTimestamp

    @property
    def codec(self) -> Codec: ...
    @property
    def printer(self) -> Printer: ...
    def prepare(self, obj: dict[str, Any]) -> None: ...
    def problems(self, obj: dict[str, Any]) -> list[FieldError]: ...
    def generation_fields(self, obj: dict[str, Any]) -> dict[str, Any]: ...
    def scale_of(self, obj: dict[str, Any]) -> dict[str, Any]: ...
    def set_replicas(self, obj: dict[str, Any], replicas: int) -> bool: ...


@dataclass(frozen=True)
class Subresource:
    name: str
    kind: str
    group: str = ""
    version: str = ""
    verbs: tuple[str, ...] = STATUS_VERBS


@dataclass(frozen=True)
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
    custom: CustomVersion | None = field(default=None, compare=False)

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def api_version(self) -> str:
        return self.group_version

    @property
    def list_kind(self) -> str:
        return self.kind + "List"

    @property
    def storage_key(self) -> str:
        return self.storage or (f"{self.group}/{self.plural}" if self.group else self.plural)

    @property
    def qualified_name(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def subresource(self, name: str) -> Subresource | None:
        for sub in self.subresources:
            if sub.name == name:
                return sub
        return None

    def allows(self, verb: str) -> bool:
        return verb in self.verbs


def _status(kind: str) -> Subresource:
    return Subresource("status", kind)


def _scale() -> Subresource:
    return Subresource("scale", "Scale", "autoscaling", "v1")


def _r(group: str, version: str, kind: str, plural: str, namespaced: bool = True, **extra: object) -> ResourceType:
    return ResourceType(group, version, kind, plural, kind.lower(), namespaced, **extra)  # type: ignore[arg-type]


BUILTIN: tuple[ResourceType, ...] = (
    _r("", "v1", "ConfigMap", "configmaps", short_names=("cm",)),
    _r("", "v1", "Endpoints", "endpoints", short_names=("ep",)),
    _r("", "v1", "Event", "events", short_names=("ev",)),
    _r("", "v1", "Namespace", "namespaces", False,
       verbs=("create", "delete", "get", "list", "patch", "update", "watch"), short_names=("ns",),
       subresources=(Subresource("finalize", "Namespace", verbs=("update",)), _status("Namespace"))),
    _r("", "v1", "Node", "nodes", False, short_names=("no",),
       subresources=(Subresource("proxy", "NodeProxyOptions", verbs=PROXY_VERBS), _status("Node"))),
    _r("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", short_names=("pvc",),
       subresources=(_status("PersistentVolumeClaim"),)),
    _r("", "v1", "PersistentVolume", "persistentvolumes", False, short_names=("pv",),
       subresources=(_status("PersistentVolume"),)),
    _r("", "v1", "Pod", "pods", short_names=("po",), categories=("all",),
       subresources=(Subresource("attach", "PodAttachOptions", verbs=CONNECT_VERBS),
                     Subresource("binding", "Binding", verbs=("create",)),
                     Subresource("eviction", "Eviction", "policy", "v1", ("create",)),
                     Subresource("exec", "PodExecOptions", verbs=CONNECT_VERBS),
                     Subresource("log", "Pod", verbs=("get",)),
                     Subresource("portforward", "PodPortForwardOptions", verbs=CONNECT_VERBS),
                     Subresource("proxy", "PodProxyOptions", verbs=PROXY_VERBS), _status("Pod")),
       tracks_generation=True),
    _r("", "v1", "Secret", "secrets"),
    _r("", "v1", "ServiceAccount", "serviceaccounts", short_names=("sa",),
       subresources=(Subresource("token", "TokenRequest", "authentication.k8s.io", "v1", ("create",)),)),
    _r("", "v1", "Service", "services", short_names=("svc",), categories=("all",),
       subresources=(Subresource("proxy", "ServiceProxyOptions", verbs=PROXY_VERBS), _status("Service"))),
    _r("apiregistration.k8s.io", "v1", "APIService", "apiservices", False, verbs=READ_VERBS,
       categories=("api-extensions",), synthetic=True),
    _r("apps", "v1", "DaemonSet", "daemonsets", short_names=("ds",), categories=("all",),
       subresources=(_status("DaemonSet"),), tracks_generation=True),
    _r("apps", "v1", "Deployment", "deployments", short_names=("deploy",), categories=("all",),
       subresources=(_scale(), _status("Deployment")), tracks_generation=True),
    _r("apps", "v1", "ReplicaSet", "replicasets", short_names=("rs",), categories=("all",),
       subresources=(_scale(), _status("ReplicaSet")), tracks_generation=True),
    _r("apps", "v1", "StatefulSet", "statefulsets", short_names=("sts",), categories=("all",),
       subresources=(_scale(), _status("StatefulSet")), tracks_generation=True),
    _r("events.k8s.io", "v1", "Event", "events", short_names=("ev",), storage="events"),
    # The review APIs: create-only questions, answered and never stored (apiserver.auth.reviews).
    _r("authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", False, verbs=("create",),
       synthetic=True),
    _r("authentication.k8s.io", "v1", "TokenReview", "tokenreviews", False, verbs=("create",), synthetic=True),
    _r("authorization.k8s.io", "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews", verbs=("create",),
       synthetic=True),
    _r("authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", False,
       verbs=("create",), synthetic=True),
    _r("authorization.k8s.io", "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews", False,
       verbs=("create",), synthetic=True),
    _r("authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews", False, verbs=("create",),
       synthetic=True),
    _r("batch", "v1", "CronJob", "cronjobs", short_names=("cj",), categories=("all",),
       subresources=(_status("CronJob"),), tracks_generation=True),
    _r("batch", "v1", "Job", "jobs", categories=("all",), subresources=(_status("Job"),), tracks_generation=True),
    _r("networking.k8s.io", "v1", "IngressClass", "ingressclasses", False, tracks_generation=True),
    _r("networking.k8s.io", "v1", "Ingress", "ingresses", short_names=("ing",),
       subresources=(_status("Ingress"),), tracks_generation=True),
    _r("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", False),
    _r("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", False),
    _r("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings"),
    _r("rbac.authorization.k8s.io", "v1", "Role", "roles"),
    _r("storage.k8s.io", "v1", "StorageClass", "storageclasses", False, short_names=("sc",)),
    _r("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", False,
       short_names=("crd", "crds"), categories=("api-extensions",),
       subresources=(_status("CustomResourceDefinition"),), tracks_generation=True),
    _r("coordination.k8s.io", "v1", "Lease", "leases"),
    _r("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", tracks_generation=True),
    _r("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", short_names=("pdb",), subresources=(_status("PodDisruptionBudget"),), tracks_generation=True),  # noqa: E501 until the kinds branch serves it from data
)

# The order kube-apiserver lists its groups in (/apis and aggregated discovery).
GROUP_ORDER: tuple[str, ...] = (
    "apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io", "authorization.k8s.io", "batch",
    "networking.k8s.io", "policy", "rbac.authorization.k8s.io", "storage.k8s.io", "apiextensions.k8s.io",
    "coordination.k8s.io", "discovery.k8s.io",
)


@dataclass
class Registry:
    """Looks resource types up the way request paths name them."""

    types: list[ResourceType] = field(default_factory=list)
    _by_path: dict[tuple[str, str, str], ResourceType] = field(default_factory=dict)

    def add(self, rt: ResourceType) -> None:
        key = (rt.group, rt.version, rt.plural)
        if key in self._by_path:
            raise ValueError(f"resource {rt.qualified_name}/{rt.version} declared twice")
        self._by_path[key] = rt
        self.types.append(rt)

    def remove(self, rt: ResourceType) -> None:
        if self._by_path.pop((rt.group, rt.version, rt.plural), None) is not None:
            self.types.remove(rt)

    def lookup(self, group: str, version: str, plural: str) -> ResourceType | None:
        return self._by_path.get((group, version, plural))

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
