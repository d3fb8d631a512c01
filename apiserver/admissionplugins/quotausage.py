"""What an object costs a ResourceQuota: upstream's quota evaluators (pkg/quota/v1/evaluator/core and
apiserver's generic object count evaluator), shared by the ResourceQuota admission plugin and the
resourcequota controller.

An evaluator knows, for one resource: which writes can change usage (`handles`), which of a quota's
resource names it accounts for, whether an object falls in a quota scope, what must be stated when a
quota limits it (`constraints`, pods only) and the object's usage. Pods, Services and
PersistentVolumeClaims have their own; every other resource is counted as `count/<resource>.<group>`
(plus the legacy names `configmaps`, `secrets`, `replicationcontrollers`, `resourcequotas`).
"""

from __future__ import annotations

import datetime
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from apiserver.admissionplugins.limitranger import pod_totals
from apiserver.admissionplugins.request import Obj, Request
from apiserver.kinds import quantity
from apiserver.kinds.quantity import Quantity

Usage = dict[str, Quantity]
ONE = Quantity(Fraction(1))
ZERO = Quantity(Fraction(0))

# generic.NewObjectCountEvaluator's aliases for four core resources
_LEGACY_COUNTS = {"configmaps": "configmaps", "resourcequotas": "resourcequotas",
                  "replicationcontrollers": "replicationcontrollers", "secrets": "secrets"}
# install.DefaultIgnoredResources with the OpenShift additions the reference is built with
IGNORED = frozenset({
    ("", "bindings"), ("", "componentstatuses"), ("", "events"), ("events.k8s.io", "events"),
    ("extensions", "networkpolicies"),
    ("authentication.k8s.io", "tokenreviews"), ("authentication.k8s.io", "selfsubjectreviews"),
    ("authorization.k8s.io", "subjectaccessreviews"), ("authorization.k8s.io", "selfsubjectaccessreviews"),
    ("authorization.k8s.io", "localsubjectaccessreviews"), ("authorization.k8s.io", "selfsubjectrulesreviews"),
    ("apiregistration.k8s.io", "apiservices"), ("apiextensions.k8s.io", "customresourcedefinitions"),
})

_POD_RESOURCES = ("count/pods", "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
                  "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods")
_POD_PREFIXES = ("hugepages-", "requests.hugepages-")
_DEVICE_CLASS = "deviceclass.resource.kubernetes.io/"
_REQUESTS_DEVICE_CLASS = "requests." + _DEVICE_CLASS
# the resources a quota may require every container to state (podEvaluator's validationSet)
_MUST_STATE = frozenset({"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"})
_SERVICE_RESOURCES = ("count/services", "services", "services.nodeports", "services.loadbalancers")
_CLAIM_RESOURCES = ("persistentvolumeclaims", "requests.storage")
_STORAGE_CLASS_SUFFIX = ".storageclass.storage.k8s.io/"


def count_name(group: str, resource: str) -> str:
    """ObjectCountQuotaResourceNameFor."""
    return f"count/{resource}.{group}" if group else f"count/{resource}"


def selectors_of(quota: Obj) -> list[Obj]:
    """getScopeSelectorsFromQuota: each of spec.scopes as an Exists, then the scopeSelector's expressions."""
    spec = quota.get("spec") or {}
    found: list[Obj] = [{"scopeName": scope, "operator": "Exists"} for scope in spec.get("scopes") or ()]
    found.extend((spec.get("scopeSelector") or {}).get("matchExpressions") or ())
    return found


def selector_matches(selector: Obj, labels: dict[str, str]) -> bool:
    """ScopedResourceSelectorRequirementsAsSelector, then labels.Selector.Matches."""
    key, operator, values = selector.get("scopeName", ""), selector.get("operator"), selector.get("values") or ()
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    return False


@dataclass(frozen=True)
class Evaluator:
    group: str
    resource: str
    handles: Callable[[Request], bool]
    resources: Callable[[list[str]], list[str]]
    scope: Callable[[Obj, Obj], bool]
    usage: Callable[[Obj], Usage]
    constraints: Callable[[list[str], Obj], str | None] = lambda required, obj: None

    def matches(self, quota: Obj, obj: Obj) -> bool:
        """generic.Matches: the quota's status.hard names something this counts, and every scope holds."""
        hard = list(((quota.get("status") or {}).get("hard") or {}).keys())
        return bool(self.resources(hard)) and all(self.scope(selector, obj) for selector in selectors_of(quota))


def _no_scope(selector: Obj, obj: Obj) -> bool:
    return False


@functools.lru_cache(maxsize=1024)
def evaluator_for(group: str, resource: str) -> Evaluator:
    """The resource's evaluator, made once: every namespaced create asks for one."""
    if not group and resource in _CORE:
        return _CORE[resource]
    names = [count_name(group, resource)]
    if not group and resource in _LEGACY_COUNTS:
        names.append(_LEGACY_COUNTS[resource])
    return Evaluator(group, resource, _creates_only, lambda hard: [n for n in hard if n in names], _no_scope,
                     lambda obj: {name: ONE for name in names})


def _creates_only(request: Request) -> bool:
    return not request.subresource and request.operation == "CREATE"


# -- pods ---------------------------------------------------------------------------------------------

def is_terminating(pod: Obj) -> bool:
    deadline = (pod.get("spec") or {}).get("activeDeadlineSeconds")
    return isinstance(deadline, int) and deadline >= 0


def _pod_handles(request: Request) -> bool:
    if request.subresource == "resize":
        return request.operation == "UPDATE"
    if request.subresource:
        return False
    if request.operation == "UPDATE" and request.obj is not None and request.old is not None \
            and is_terminating(request.old) != is_terminating(request.obj):
        return True
    return request.operation == "CREATE"


def _pod_resources(hard: list[str]) -> list[str]:
    """podEvaluator.MatchingResources."""
    found = [name for name in hard if name in _POD_RESOURCES]
    for name in hard:
        if name.startswith(_POD_PREFIXES):
            found.append(name)
        if _extended_for_quota(name):
            found.append(name)
    return found


def _extended_for_quota(name: str) -> bool:
    """isExtendedResourceNameForQuota: requests.<name> of an extended resource (one outside
    kubernetes.io's domain), or of a device class's implicit one."""
    return name.startswith("requests.") and (_extended(name) or name.startswith(_REQUESTS_DEVICE_CLASS))


def is_best_effort(pod: Obj) -> bool:
    """qos.GetPodQOS == BestEffort: no container (nor the pod) asks for or limits cpu or memory."""
    spec = pod.get("spec") or {}
    sources = [c.get("resources") or {} for key in ("initContainers", "containers") for c in spec.get(key) or ()]
    sources.append(spec.get("resources") or {})
    for resources in sources:
        for field in ("requests", "limits"):
            for name, value in (resources.get(field) or {}).items():
                if name in ("cpu", "memory") and quantity.parse(value).value > 0:
                    return False
    return True


def _cross_namespace_affinity(pod: Obj) -> bool:
    affinity = (pod.get("spec") or {}).get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = affinity.get(kind) or {}
        required = terms.get("requiredDuringSchedulingIgnoredDuringExecution") or []
        preferred = [t.get("podAffinityTerm") or {} for t in terms.get("preferredDuringSchedulingIgnoredDuringExecution") or []]
        if any(t.get("namespaces") or t.get("namespaceSelector") is not None for t in required + preferred):
            return True
    return False


def pod_in_scope(selector: Obj, pod: Obj) -> bool:
    scope = selector.get("scopeName")
    if scope == "Terminating":
        return is_terminating(pod)
    if scope == "NotTerminating":
        return not is_terminating(pod)
    if scope == "BestEffort":
        return is_best_effort(pod)
    if scope == "NotBestEffort":
        return not is_best_effort(pod)
    if scope == "PriorityClass":
        name = (pod.get("spec") or {}).get("priorityClassName") or ""
        if selector.get("operator") == "Exists":
            return bool(name)
        return selector_matches(selector, {"PriorityClass": name} if name else {})
    if scope == "CrossNamespacePodAffinity":
        return _cross_namespace_affinity(pod)
    return False


def _container_usage(requests: dict[str, Quantity], limits: dict[str, Quantity]) -> Usage:
    """podComputeUsageHelper."""
    found: Usage = {"pods": ONE}
    for name in ("cpu", "memory", "ephemeral-storage"):
        if name in requests:
            found[name] = found[f"requests.{name}"] = requests[name]
        if name in limits:
            found[f"limits.{name}"] = limits[name]
    for name, value in requests.items():
        if name.startswith("hugepages-"):
            found[name] = found[f"requests.{name}"] = value
        if (_extended(name) and not name.startswith("requests.")) or name.startswith(_DEVICE_CLASS):
            found[f"requests.{name}"] = value
    return found


def _extended(name: str) -> bool:
    """Not a native resource: one with a domain other than kubernetes.io's."""
    return "/" in name and "kubernetes.io/" not in name


def pod_counts(pod: Obj) -> bool:
    """QuotaV1Pod: a pod that has finished, or whose grace period after deletion is over, uses nothing but
    its count."""
    if (pod.get("status") or {}).get("phase") in ("Failed", "Succeeded"):
        return False
    meta = pod.get("metadata") or {}
    deleted, grace = meta.get("deletionTimestamp"), meta.get("deletionGracePeriodSeconds")
    if deleted and grace is not None:
        try:
            since = datetime.datetime.fromisoformat(str(deleted))
        except ValueError:
            return True
        return datetime.datetime.now(datetime.UTC) <= since + datetime.timedelta(seconds=int(grace))
    return True


def pod_usage(pod: Obj) -> Usage:
    found: Usage = {"count/pods": ONE}
    if not pod_counts(pod):
        return found
    spec = pod.get("spec") or {}
    requests, limits = pod_totals(spec, "requests"), pod_totals(spec, "limits")
    for name, value in _resource_list(spec.get("overhead")).items():
        requests[name] = requests[name] + value if name in requests else value
        if name in limits:
            limits[name] = limits[name] + value
    return add(found, _container_usage(requests, limits))


def _pod_constraints(required: list[str], pod: Obj) -> str | None:
    spec = pod.get("spec") or {}
    if (spec.get("resources") or {}).get("requests") or (spec.get("resources") or {}).get("limits"):
        return None  # pod-level resources stand for every container
    wanted = set(required) & _MUST_STATE
    missing: dict[str, set[str]] = {}
    for key in ("containers", "initContainers"):
        for container in spec.get(key) or ():
            resources = container.get("resources") or {}
            stated = _container_usage(_resource_list(resources.get("requests")), _resource_list(resources.get("limits")))
            for name in wanted - set(stated):
                missing.setdefault(name, set()).add(str(container.get("name") or ""))
    if not missing:
        return None
    return "must specify " + "; ".join(f"{name} for: {','.join(sorted(missing[name]))}" for name in sorted(missing))


# -- services and claims ------------------------------------------------------------------------------

def _writes_of_object(request: Request) -> bool:
    return not request.subresource and request.operation in ("CREATE", "UPDATE")


def _claim_handles(request: Request) -> bool:
    """pvcEvaluator.Handles: the claim's own creates and updates, and the status updates
    RequiresQuotaReplenish names. That compares two fresh pointers to the allocated storage
    (RecoverVolumeExpansionFailure is on), which never agree, so every status update is charged: the
    storage allocated beyond the request is what it adds."""
    if request.subresource == "status":
        return request.operation == "UPDATE"
    return _writes_of_object(request)


def service_usage(service: Obj) -> Usage:
    spec = service.get("spec") or {}
    ports = list(spec.get("ports") or ())
    found: Usage = {"count/services": ONE, "services": ONE, "services.loadbalancers": ZERO,
                    "services.nodeports": ZERO}
    kind = spec.get("type")
    if kind == "NodePort":
        found["services.nodeports"] = _count(len(ports))
    elif kind == "LoadBalancer":
        if spec.get("allocateLoadBalancerNodePorts") is False:
            found["services.nodeports"] = _count(sum(1 for p in ports if p.get("nodePort")))
        else:
            found["services.nodeports"] = _count(len(ports))
        found["services.loadbalancers"] = ONE
    return found


def _claim_resources(hard: list[str]) -> list[str]:
    return [name for name in hard if name == "count/persistentvolumeclaims" or name in _CLAIM_RESOURCES
            or any(name.endswith(_STORAGE_CLASS_SUFFIX + r) for r in _CLAIM_RESOURCES)]


def _claim_class(claim: Obj) -> str:
    beta = ((claim.get("metadata") or {}).get("annotations") or {}).get("volume.beta.kubernetes.io/storage-class")
    return str(beta if beta is not None else (claim.get("spec") or {}).get("storageClassName") or "")


def _attribute_classes(claim: Obj) -> set[str]:
    spec, status = claim.get("spec") or {}, claim.get("status") or {}
    names = {spec.get("volumeAttributesClassName"), status.get("currentVolumeAttributesClassName"),
             (status.get("modifyVolumeStatus") or {}).get("targetVolumeAttributesClassName")}
    return {str(n) for n in names if n}


def claim_in_scope(selector: Obj, claim: Obj) -> bool:
    if selector.get("scopeName") != "VolumeAttributesClass":
        return False
    names = _attribute_classes(claim)
    if selector.get("operator") == "Exists":
        return bool(names)
    if not names:
        return selector_matches(selector, {})
    return any(selector_matches(selector, {"VolumeAttributesClass": n}) for n in names)


def claim_usage(claim: Obj) -> Usage:
    found: Usage = {"persistentvolumeclaims": ONE, "count/persistentvolumeclaims": ONE}
    storage_class = _claim_class(claim)
    if storage_class:
        found[f"{storage_class}{_STORAGE_CLASS_SUFFIX}persistentvolumeclaims"] = ONE
    requested = _resource_list(((claim.get("spec") or {}).get("resources") or {}).get("requests")).get("storage")
    if requested is not None:
        requested = _whole(requested)
        allocated = _resource_list((claim.get("status") or {}).get("allocatedResources")).get("storage")
        if allocated is not None and allocated.value > requested.value:
            requested = _whole(allocated)
        found["requests.storage"] = requested
        if storage_class:
            found[f"{storage_class}{_STORAGE_CLASS_SUFFIX}requests.storage"] = requested
    return found


# -- what an update makes the controller recount -------------------------------------------------------

def replenishes(group: str, resource: str, old: Obj, new: Obj) -> bool:
    """install.DefaultUpdateFilter: a pod whose running resources (as its kubelet reports them), whose
    Terminating scope, or whose counting changed; a service whose quota type (NodePort, LoadBalancer,
    other) changed; any claim (upstream compares two fresh pointers to the allocated storage, which never
    agree); no other update."""
    if group:
        return False
    if resource == "pods":
        return _status_resources_changed(old, new) or is_terminating(old) != is_terminating(new) or \
            (pod_counts(old) and not pod_counts(new))
    if resource == "services":
        return _service_quota_type(old) != _service_quota_type(new)
    return resource == "persistentvolumeclaims"


def _status_resources_changed(old: Obj, new: Obj) -> bool:
    """hasResourcesChanged: a container (or init container) status, matched by name, with other resources."""
    for key in ("containerStatuses", "initContainerStatuses"):
        after = {s.get("name"): s for s in (new.get("status") or {}).get(key) or () if isinstance(s, dict)}
        for before in (old.get("status") or {}).get(key) or ():
            found = after.get((before or {}).get("name"))
            if found is not None and (found.get("resources") or None) != (before.get("resources") or None):
                return True
    return False


def _service_quota_type(service: Obj) -> str:
    kind = (service.get("spec") or {}).get("type")
    return str(kind) if kind in ("NodePort", "LoadBalancer") else ""


# -- resource lists ----------------------------------------------------------------------------------

def _count(n: int) -> Quantity:
    return Quantity(Fraction(n))


def _whole(q: Quantity) -> Quantity:
    """Quantity.RoundUp(0): whole units, the format kept."""
    return Quantity(Fraction(math.ceil(q.value)), q.format)


def _resource_list(values: Any) -> Usage:
    return {name: quantity.parse(value) for name, value in (values or {}).items()}


def parse_list(values: Any) -> Usage:
    return _resource_list(values)


def add(a: Usage, b: Usage) -> Usage:
    """quota.Add."""
    result = dict(a)
    for name, value in b.items():
        result[name] = result[name] + value if name in result else value
    return result


def render(values: Usage) -> dict[str, str]:
    return {name: str(values[name]) for name in sorted(values)}


_CORE: dict[str, Evaluator] = {
    "pods": Evaluator("", "pods", _pod_handles, _pod_resources, pod_in_scope, pod_usage, _pod_constraints),
    "services": Evaluator("", "services", _writes_of_object, lambda hard: [n for n in hard if n in _SERVICE_RESOURCES],
                          _no_scope, service_usage),
    "persistentvolumeclaims": Evaluator("", "persistentvolumeclaims", _claim_handles, _claim_resources,
                                        claim_in_scope, claim_usage),
}
