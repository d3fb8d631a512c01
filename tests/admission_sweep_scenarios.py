"""A sweep of the default admission plugins at their edges: quotas that require what a pod must state,
updates that change usage, object counts, LimitRanges defaulted and combined, PodSecurity levels and
versions on workloads and namespaces, NamespaceLifecycle, Priority, the default classes and
tolerations, StorageObjectInUseProtection, PodResizeValidator and the certificate plugins. Replayed like
admission_scenarios.py (see admission_replay.py); every namespace and cluster-scoped name starts with
"sw-" so that the sweep runs beside the other scenarios on one server.
"""

from __future__ import annotations

from typing import Any

from admission_scenarios import (
    IMAGE,
    RESTRICTED_CONTEXT,
    Step,
    _admin_csr,
    claim,
    container,
    create,
    deployment,
    label,
    ns,
    pod,
    quota,
    quota_status,
    resources,
)


def patch(path: str, body: dict[str, Any], step: str, keep: tuple[str, ...] = (), strategic: bool = False,
          query: dict[str, str] | None = None, headers: dict[str, str] | None = None) -> Step:
    kind = "strategic-merge-patch" if strategic else "merge-patch"
    return {"name": step, "method": "PATCH", "path": path, "content_type": f"application/{kind}+json",
            "body": body, "keep": list(keep), "query": query or {}, "headers": headers or {}}


def delete(path: str, step: str, query: dict[str, str] | None = None) -> Step:
    return {"name": step, "method": "DELETE", "path": path, "body": {"gracePeriodSeconds": 0},
            "query": query or {}, "keep": ["metadata.name"]}


def get(path: str, step: str, keep: tuple[str, ...], until: dict[str, Any] | None = None) -> Step:
    return {"name": step, "method": "GET", "path": path, "keep": list(keep), "until": until or {}}


def cluster(api: str, plural: str, body: dict[str, Any], step: str, keep: tuple[str, ...] = ()) -> Step:
    return {"name": step, "method": "POST", "path": f"{api}/{plural}", "body": body, "keep": list(keep)}


def workload(namespace: str, api: str, plural: str, kind: str, name: str, spec: dict[str, Any], step: str,
             template_meta: dict[str, Any] | None = None) -> Step:
    """A pod controller whose pod template has `spec`."""
    template = {"metadata": {"labels": {"app": name}, **(template_meta or {})}, "spec": spec}
    selector = {"matchLabels": {"app": name}}
    shapes: dict[str, dict[str, Any]] = {
        "DaemonSet": {"selector": selector, "template": template},
        "StatefulSet": {"selector": selector, "serviceName": name, "template": template},
        "ReplicaSet": {"replicas": 0, "selector": selector, "template": template},
        "ReplicationController": {"replicas": 0, "selector": {"app": name}, "template": template},
        "Job": {"template": {**template, "spec": {"restartPolicy": "Never", **spec}}},
        "CronJob": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {
            **template, "spec": {"restartPolicy": "OnFailure", **spec}}}}},
    }
    body = {"apiVersion": api.removeprefix("/apis/").removeprefix("/api/"), "kind": kind,
            "metadata": {"name": name}, "spec": shapes[kind]}
    return create(namespace, plural, body, step, api=api)


def _idle(step: Step) -> Step:
    """A workload of no replicas: its pods' generated names would differ between servers."""
    step["body"]["spec"]["replicas"] = 0
    return step


def _annotated(step: Step, annotations: dict[str, str]) -> Step:
    step["body"]["metadata"]["annotations"] = annotations
    return step


def _held(step: Step) -> Step:
    """An object a finalizer keeps while its namespace is deleted."""
    step["body"]["metadata"]["finalizers"] = ["example.com/hold"]
    return step


def _pods(namespace: str) -> str:
    return f"/api/v1/namespaces/{namespace}/pods"


_CPU_MEMORY = resources({"cpu": "100m", "memory": "64Mi"}, {"cpu": "200m", "memory": "128Mi"})

# -- ResourceQuota ---------------------------------------------------------------------------------------

QUOTA_COMPUTE: list[Step] = [
    ns("sw-compute"),
    quota("sw-compute", "compute", {"requests.cpu": "1", "requests.memory": "1Gi", "limits.cpu": "2",
                                    "limits.memory": "2Gi", "count/pods": "4", "requests.ephemeral-storage": "1Gi"}),
    quota_status("sw-compute", "compute", {"count/pods": "0", "limits.cpu": "0", "limits.memory": "0",
                                           "requests.cpu": "0", "requests.ephemeral-storage": "0",
                                           "requests.memory": "0"}),
    pod("sw-compute", "bare", [container("web"), container("log")], "every container must state what the quota limits",
        initContainers=[container("migrate")]),
    pod("sw-compute", "init-bare", [container("web", **_CPU_MEMORY)], "only the init container states nothing",
        initContainers=[container("migrate", **resources({"cpu": "100m"}))]),
    pod("sw-compute", "greedy", [container("web", **resources({"cpu": "2", "memory": "2Gi"},
                                                               {"cpu": "3", "memory": "3Gi"}))],
        "four resources over the quota are listed by name"),
    pod("sw-compute", "pod-level", [container("web"), container("log")],
        "pod-level resources stand for the containers", keep=("spec.resources",),
        resources={"requests": {"cpu": "200m", "memory": "256Mi"}, "limits": {"cpu": "400m", "memory": "512Mi"}}),
    pod("sw-compute", "sidecar", [container("web", **_CPU_MEMORY)], "a sidecar adds to the pod's usage",
        initContainers=[container("proxy", restartPolicy="Always", **_CPU_MEMORY),
                        container("migrate", **resources({"cpu": "500m", "memory": "64Mi"},
                                                         {"cpu": "500m", "memory": "128Mi"}))]),
    quota_status("sw-compute", "compute", {"count/pods": "2", "limits.cpu": "1100m", "limits.memory": "768Mi",
                                           "requests.cpu": "800m", "requests.memory": "384Mi",
                                           "requests.ephemeral-storage": "0"}, "the pod-level pod and the sidecar"),
    pod("sw-compute", "dry-big", [container("web", **resources({"cpu": "900m", "memory": "64Mi"},
                                                                {"cpu": "900m", "memory": "64Mi"}))],
        "a dry run over the quota is refused too", query={"dryRun": "All"}),
    pod("sw-compute", "scratch", [container("web", **resources({"cpu": "10m", "memory": "8Mi",
                                                                "ephemeral-storage": "2Gi"},
                                                               {"cpu": "10m", "memory": "8Mi"}))],
        "ephemeral storage over the quota"),
    pod("sw-compute", "dry-ok", [container("web", **_CPU_MEMORY)], "a dry run that fits", query={"dryRun": "All"},
        keep=("metadata.name",)),
    quota_status("sw-compute", "compute", {"count/pods": "2", "limits.cpu": "1100m", "limits.memory": "768Mi",
                                           "requests.cpu": "800m", "requests.memory": "384Mi",
                                           "requests.ephemeral-storage": "0"}, "the dry run charged nothing"),
    patch(f"{_pods('sw-compute')}/sidecar/status", {"status": {"phase": "Succeeded"}}, "the sidecar pod finishes",
          keep=("status.phase",)),
    quota_status("sw-compute", "compute", {"count/pods": "2", "limits.cpu": "400m", "limits.memory": "512Mi",
                                           "requests.cpu": "200m", "requests.memory": "256Mi",
                                           "requests.ephemeral-storage": "0"}, "a finished pod uses only its count"),
]

QUOTA_COUNTS: list[Step] = [
    ns("sw-counts"),
    quota("sw-counts", "objects", {"count/jobs.batch": "1", "count/cronjobs.batch": "0", "replicationcontrollers": "0",
                                   "resourcequotas": "2", "count/persistentvolumeclaims": "1",
                                   "services.nodeports": "2", "count/services": "3",
                                   "count/roles.rbac.authorization.k8s.io": "1"}),
    quota_status("sw-counts", "objects", {"count/cronjobs.batch": "0", "count/jobs.batch": "0",
                                          "count/persistentvolumeclaims": "0", "count/roles.rbac.authorization.k8s.io": "0",
                                          "count/services": "0", "replicationcontrollers": "0", "resourcequotas": "1",
                                          "services.nodeports": "0"}),
    workload("sw-counts", "/apis/batch/v1", "jobs", "Job", "nightly", {"containers": [container()]}, "a job"),
    workload("sw-counts", "/apis/batch/v1", "jobs", "Job", "hourly", {"containers": [container()]},
             "a second job is over count/jobs.batch"),
    workload("sw-counts", "/apis/batch/v1", "cronjobs", "CronJob", "backup", {"containers": [container()]},
             "a cron job where none may be"),
    workload("sw-counts", "/api/v1", "replicationcontrollers", "ReplicationController", "legacy",
             {"containers": [container()]}, "a replication controller where none may be"),
    quota("sw-counts", "second", {"pods": "10"}),
    quota("sw-counts", "third", {"pods": "10"}),
    create("sw-counts", "roles", {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                                  "metadata": {"name": "reader"}, "rules": []}, "a role",
           api="/apis/rbac.authorization.k8s.io/v1"),
    create("sw-counts", "roles", {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                                  "metadata": {"name": "writer"}, "rules": []}, "a second role",
           api="/apis/rbac.authorization.k8s.io/v1"),
    create("sw-counts", "services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "wide"},
                                     "spec": {"type": "NodePort", "ports": [{"name": p, "port": n} for p, n in
                                                                          (("a", 80), ("b", 81), ("c", 82))]}},
           "three node ports where two may be"),
    create("sw-counts", "services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "edge"},
                                     "spec": {"type": "NodePort", "ports": [{"port": 80}]}}, "one node port"),
    create("sw-counts", "services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "inner"},
                                     "spec": {"ports": [{"name": "a", "port": 80}, {"name": "b", "port": 81}]}},
           "a cluster IP service"),
    patch("/api/v1/namespaces/sw-counts/services/inner", {"spec": {"type": "NodePort"}},
          "a service that becomes a node port service is charged its ports", keep=("spec.type",)),
    create("sw-counts", "services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "lb"},
                                     "spec": {"type": "LoadBalancer", "allocateLoadBalancerNodePorts": False,
                                              "ports": [{"port": 80}]}},
           "a load balancer without node ports", keep=("spec.type",)),
    create("sw-counts", "services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "fourth"},
                                     "spec": {"ports": [{"port": 80}]}}, "a fourth service is over count/services"),
    claim("sw-counts", "first", "1Gi"),
    claim("sw-counts", "second", "1Gi"),
    quota_status("sw-counts", "objects", {"count/cronjobs.batch": "0", "count/jobs.batch": "1",
                                          "count/persistentvolumeclaims": "1", "count/roles.rbac.authorization.k8s.io": "1",
                                          "count/services": "3", "replicationcontrollers": "0", "resourcequotas": "2",
                                          "services.nodeports": "1"}, "what the counts came to"),
]

_EXPANDABLE = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "sw-expandable"},
               "provisioner": "example.com/disks", "allowVolumeExpansion": True}

QUOTA_UPDATES: list[Step] = [
    ns("sw-updates"),
    cluster("/apis/storage.k8s.io/v1", "storageclasses", _EXPANDABLE, "an expandable storage class",
            keep=("allowVolumeExpansion",)),
    quota("sw-updates", "jobs", {"pods": "0"}, scopes=["Terminating"]),
    quota("sw-updates", "disks", {"requests.storage": "2Gi", "sw-expandable.storageclass.storage.k8s.io/requests.storage":
                                  "3Gi"}),
    quota_status("sw-updates", "jobs", {"pods": "0"}),
    quota_status("sw-updates", "disks", {"requests.storage": "0",
                                         "sw-expandable.storageclass.storage.k8s.io/requests.storage": "0"}),
    pod("sw-updates", "server", [container(**_CPU_MEMORY)], "a long-running pod is out of the Terminating scope"),
    patch(f"{_pods('sw-updates')}/server", {"spec": {"activeDeadlineSeconds": 600}},
          "a deadline makes it terminating, which the quota refuses", keep=("spec.activeDeadlineSeconds",)),
    patch(f"{_pods('sw-updates')}/server", {"spec": {"activeDeadlineSeconds": 600}},
          "the same deadline as a dry run", keep=("spec.activeDeadlineSeconds",), query={"dryRun": "All"}),
    claim("sw-updates", "data", "1Gi", "sw-expandable"),
    patch("/api/v1/namespaces/sw-updates/persistentvolumeclaims/data/status", {"status": {"phase": "Bound"}},
          "the claim is bound", keep=("status.phase",)),
    patch("/api/v1/namespaces/sw-updates/persistentvolumeclaims/data",
          {"spec": {"resources": {"requests": {"storage": "3Gi"}}}}, "growing past the quota",
          keep=("spec.resources",)),
    patch("/api/v1/namespaces/sw-updates/persistentvolumeclaims/data",
          {"spec": {"resources": {"requests": {"storage": "2Gi"}}}}, "growing to the quota",
          keep=("spec.resources",)),
    quota_status("sw-updates", "disks", {"requests.storage": "2Gi",
                                         "sw-expandable.storageclass.storage.k8s.io/requests.storage": "2Gi"},
                 "the growth is charged"),
    patch("/api/v1/namespaces/sw-updates/persistentvolumeclaims/data",
          {"spec": {"resources": {"requests": {"storage": "1Gi"}}}}, "a claim without a capacity may shrink"),
    {"name": "delete the storage class", "method": "DELETE", "path": "/apis/storage.k8s.io/v1/storageclasses/sw-expandable",
     "keep": ["metadata.name"]},
]

QUOTA_SCOPES: list[Step] = [
    ns("sw-scopes"),
    quota("sw-scopes", "unclassed", {"pods": "1"}, scopeSelector={"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "DoesNotExist"}]}),
    quota("sw-scopes", "not-critical", {"pods": "2"}, scopeSelector={"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "NotIn", "values": ["system-node-critical"]}]}),
    quota("sw-scopes", "gold-claims", {"persistentvolumeclaims": "1", "requests.storage": "1Gi"},
          scopeSelector={"matchExpressions": [{"scopeName": "VolumeAttributesClass", "operator": "In",
                                                "values": ["sw-gold"]}]}),
    quota_status("sw-scopes", "unclassed", {"pods": "0"}),
    quota_status("sw-scopes", "not-critical", {"pods": "0"}),
    quota_status("sw-scopes", "gold-claims", {"persistentvolumeclaims": "0", "requests.storage": "0"}),
    pod("sw-scopes", "plain", [container()], "a pod without a priority class"),
    pod("sw-scopes", "plain-2", [container()], "a second pod without one is over the DoesNotExist quota"),
    pod("sw-scopes", "node-critical", [container()], "a node-critical pod is in neither",
        priorityClassName="system-node-critical"),
    pod("sw-scopes", "cluster-critical", [container()], "a cluster-critical pod is in NotIn",
        priorityClassName="system-cluster-critical"),
    pod("sw-scopes", "cluster-critical-2", [container()], "a second one is over it",
        priorityClassName="system-cluster-critical"),
    create("sw-scopes", "persistentvolumeclaims", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "gold-big"},
        "spec": {"accessModes": ["ReadWriteOnce"], "volumeAttributesClassName": "sw-gold",
                 "resources": {"requests": {"storage": "2Gi"}}}}, "a claim of the attributes class, too big"),
    create("sw-scopes", "persistentvolumeclaims", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "plain-big"},
        "spec": {"accessModes": ["ReadWriteOnce"], "volumeAttributesClassName": "sw-silver",
                 "resources": {"requests": {"storage": "2Gi"}}}}, "a claim of another attributes class"),
    create("sw-scopes", "resourcequotas", {
        "apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "bad"},
        "spec": {"hard": {"requests.cpu": "1"}, "scopes": ["BestEffort"]}},
        "a best-effort quota cannot limit cpu"),
    create("sw-scopes", "resourcequotas", {
        "apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "bad-selector"},
        "spec": {"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
            {"scopeName": "PriorityClass", "operator": "In"}]}}},
        "an In selector without values"),
]

QUOTA_MORE: list[Step] = [
    ns("sw-more"),
    quota("sw-more", "accelerators", {"requests.example.com/gpu": "1", "hugepages-2Mi": "4Mi",
                                      "requests.hugepages-2Mi": "4Mi"}),
    quota("sw-more", "balancers", {"services.loadbalancers": "0", "count/deployments.apps": "0"}),
    quota("sw-more", "cpu-a", {"requests.cpu": "100m"}),
    quota("sw-more", "cpu-b", {"requests.cpu": "50m"}),
    quota_status("sw-more", "accelerators", {"hugepages-2Mi": "0", "requests.example.com/gpu": "0",
                                             "requests.hugepages-2Mi": "0"}),
    quota_status("sw-more", "balancers", {"count/deployments.apps": "0", "services.loadbalancers": "0"}),
    quota_status("sw-more", "cpu-a", {"requests.cpu": "0"}),
    quota_status("sw-more", "cpu-b", {"requests.cpu": "0"}),
    pod("sw-more", "gpus", [container(**resources({"cpu": "10m", "example.com/gpu": "2"}, {"example.com/gpu": "2"}))],
        "two GPUs where one may be"),
    pod("sw-more", "pages", [container(**resources({"cpu": "10m", "memory": "64Mi", "hugepages-2Mi": "8Mi"},
                                                   {"memory": "64Mi", "hugepages-2Mi": "8Mi"}))],
        "huge pages over the quota"),
    pod("sw-more", "two-quotas", [container(**resources({"cpu": "200m"}))], "over two quotas: the first is named"),
    pod("sw-more", "under-a", [container(**resources({"cpu": "80m"}))], "over the second quota only"),
    pod("sw-more", "no-cpu", [container(**resources({"memory": "64Mi"}))],
        "a pod that states no cpu where cpu is limited"),
    create("sw-more", "services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
                                   "spec": {"ports": [{"port": 80}]}}, "a cluster IP service"),
    patch("/api/v1/namespaces/sw-more/services/web", {"spec": {"type": "LoadBalancer"}},
          "becoming a load balancer is refused"),
    _idle(deployment("sw-more", "api", {"containers": [container()]})) | {"query": {"dryRun": "All"}},
    patch("/api/v1/namespaces/sw-more/resourcequotas/cpu-b", {"spec": {"hard": {"requests.cpu": "10m"}}},
          "a quota may be lowered under its usage", keep=("spec.hard",)),
    {**quota_status("sw-more", "cpu-b", {"requests.cpu": "0"}, "the lowered quota"),
     "until": {"status.hard": {"requests.cpu": "10m"}, "status.used": {"requests.cpu": "0"}}},
    patch("/api/v1/namespaces/sw-more/resourcequotas/cpu-b/status",
          {"status": {"used": {"requests.cpu": "5m"}}}, "status written by hand", keep=("status.used",)),
    pod("sw-more", "small", [container(**resources({"cpu": "6m"}))], "the hand-written usage is what counts"),
]

def _service(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec}


QUOTA_SERVICES: list[Step] = [
    ns("sw-svc"),
    quota("sw-svc", "edge", {"services.nodeports": "1", "services.loadbalancers": "1", "services": "4"}),
    quota_status("sw-svc", "edge", {"services": "0", "services.loadbalancers": "0", "services.nodeports": "0"}),
    create("sw-svc", "services", _service("lb", {
        "type": "LoadBalancer", "allocateLoadBalancerNodePorts": False,
        "ports": [{"name": "http", "port": 80, "nodePort": 30480}, {"name": "https", "port": 443}]}),
        "a load balancer charged only the node port it names", keep=("spec.ports",)),
    quota_status("sw-svc", "edge", {"services": "1", "services.loadbalancers": "1", "services.nodeports": "1"},
                 "one load balancer, one node port"),
    create("sw-svc", "services", _service("lb-2", {"type": "LoadBalancer", "ports": [{"port": 80}]}),
           "a second load balancer"),
    create("sw-svc", "services", _service("alias", {"type": "ExternalName", "externalName": "db.example.com"}),
           "an external name is a service without ports to charge"),
    create("sw-svc", "services", _service("plain", {"ports": [{"port": 80}]}), "a cluster IP service"),
    patch("/api/v1/namespaces/sw-svc/services/lb", {"spec": {"type": "ClusterIP",
                                                             "allocateLoadBalancerNodePorts": None,
                                                             "ports": [{"name": "http", "port": 80, "nodePort": None},
                                                                       {"name": "https", "port": 443}]}},
          "the load balancer becomes a cluster IP service", keep=("spec.type",)),
    quota_status("sw-svc", "edge", {"services": "3", "services.loadbalancers": "0", "services.nodeports": "0"},
                 "its room comes back"),
    create("sw-svc", "services", _service("lb-3", {"type": "LoadBalancer", "ports": [{"port": 80}]}),
           "now a load balancer fits", keep=("spec.type",)),
    create("sw-svc", "services", _service("fifth", {"ports": [{"port": 80}]}), "a fifth service is over services"),
]

_APPARMOR = {"container.apparmor.security.beta.kubernetes.io/app": "runtime/default"}

REFUSAL_WARNINGS: list[Step] = [
    ns("sw-warned"),
    quota("sw-warned", "none", {"count/persistentvolumeclaims": "0", "requests.cpu": "100m"}),
    quota_status("sw-warned", "none", {"count/persistentvolumeclaims": "0", "requests.cpu": "0"}),
    create("sw-warned", "limitranges", {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "cap"},
                                        "spec": {"limits": [{"type": "Container", "max": {"memory": "1Gi"}}]}},
           "a memory max"),
    _annotated(pod("sw-warned", "greedy", [container(**resources({"cpu": "200m"}, {"memory": "512Mi"}))],
                   "a quota's refusal still carries the strategy's warnings"), dict(_APPARMOR)),
    _annotated(pod("sw-warned", "big", [container(**resources({"cpu": "50m"}, {"memory": "2Gi"}))],
                   "so does a limit range's"), dict(_APPARMOR)),
    create("sw-warned", "persistentvolumeclaims", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "beta", "annotations": {"volume.beta.kubernetes.io/storage-class": "slow"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
        "a claim over count/persistentvolumeclaims, with a deprecated annotation"),
    _annotated(pod("sw-warned", "fits", [container(**resources({"cpu": "50m"}, {"memory": "64Mi"}))],
                   "and a dry run that fits"), dict(_APPARMOR)) | {"query": {"dryRun": "All"}},
]

# -- LimitRanger -----------------------------------------------------------------------------------------

_BOUNDS_ONLY = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "bounds"}, "spec": {"limits": [
    {"type": "Container", "max": {"cpu": "2", "memory": "1Gi"}, "min": {"cpu": "50m", "memory": "32Mi"},
     "maxLimitRequestRatio": {"cpu": "4"}},
]}}
# Pod items only: a second LimitRange with Container defaults would race the first, as upstream takes a
# namespace's LimitRanges in its informer's (unordered) order, and the first to default or refuse wins.
_POD_BOUNDS = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "pods"}, "spec": {"limits": [
    {"type": "Pod", "min": {"cpu": "100m"}, "max": {"ephemeral-storage": "3Gi"}},
]}}


def _scratch(name: str = "app", requests: dict[str, str] | None = None, limits: dict[str, str] | None = None,
             disk: str = "1Gi") -> dict[str, Any]:
    """A container stating its ephemeral storage limit, which the Pod items bound."""
    return container(name, **resources(requests, {**(limits or {}), "ephemeral-storage": disk}))


LIMITS: list[Step] = [
    ns("sw-limits"),
    create("sw-limits", "limitranges", _BOUNDS_ONLY, "bounds alone default the limits to max and requests to min",
           keep=("spec.limits",)),
    pod("sw-limits", "defaulted", [container()], "a pod takes max as its limit and max as its request",
        keep=("metadata.annotations", "spec.containers.0.resources")),
    create("sw-limits", "limitranges", _POD_BOUNDS, "a second limit range, of pod bounds", keep=("spec.limits",)),
    pod("sw-limits", "no-scratch-limit", [container("web", **resources({"memory": "64Mi"}))],
        "a pod maximum needs a limit in the pod"),
    pod("sw-limits", "ratio", [_scratch(requests={"cpu": "300m", "memory": "64Mi"},
                                        limits={"cpu": "1300m", "memory": "64Mi"})], "a ratio with decimals"),
    pod("sw-limits", "over-request", [_scratch(requests={"cpu": "3"}, limits={"cpu": "3"})],
        "request and limit over max"),
    pod("sw-limits", "request-over-default", [container(**resources({"cpu": "2500m", "memory": "64Mi"}))],
        "a request over the defaulted limit"),
    pod("sw-limits", "min-only", [_scratch(requests={"cpu": "10m", "memory": "16Mi"},
                                           limits={"cpu": "10m", "memory": "16Mi"})], "two requests under min"),
    pod("sw-limits", "init", [_scratch(requests={"cpu": "100m", "memory": "64Mi"}, limits={"cpu": "200m"})],
        "an init container is defaulted and named as one",
        keep=("metadata.annotations", "spec.containers.0.resources", "spec.initContainers.0.resources"),
        initContainers=[container("setup")]),
    pod("sw-limits", "scratch", [_scratch("a", {"cpu": "100m"}, {"cpu": "200m"}, "2Gi"),
                                 _scratch("b", {"cpu": "100m"}, {"cpu": "200m"}, "2Gi")],
        "the pod's ephemeral storage over its max"),
    pod("sw-limits", "tiny-pod", [_scratch(requests={"cpu": "50m", "memory": "32Mi"},
                                           limits={"cpu": "50m", "memory": "32Mi"})], "a pod under its min"),
    pod("sw-limits", "sidecars", [_scratch(requests={"cpu": "50m"}, limits={"cpu": "50m"})],
        "a sidecar counts toward the pod's minimum", keep=("metadata.annotations",),
        initContainers=[_scratch("proxy", {"cpu": "50m"}, {"cpu": "50m"}) | {"restartPolicy": "Always"}]),
    pod("sw-limits", "pod-level", [_scratch("web"), _scratch("log")], "pod-level cpu beside container defaults (one resource: upstream checks them in map order)",
        keep=("metadata.annotations", "spec.containers.0.resources", "spec.resources"),
        resources={"requests": {"cpu": "200m"}, "limits": {"cpu": "1"}}),
    create("sw-limits", "limitranges", {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "bad"},
                                        "spec": {"limits": [{"type": "Pod", "default": {"cpu": "1"}},
                                                            {"type": "Container", "default": {"cpu": "100m"},
                                                             "defaultRequest": {"cpu": "200m"}}]}},
           "an invalid limit range"),
    patch(f"{_pods('sw-limits')}/defaulted", {"metadata": {"labels": {"tier": "web"}}},
          "a pod update is not judged", keep=("metadata.labels",)),
]

_CLAIM_LIMITS = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "claims"}, "spec": {"limits": [
    {"type": "PersistentVolumeClaim", "max": {"storage": "2Gi"}},
]}}

CLAIM_LIMITS: list[Step] = [
    ns("sw-claims"),
    cluster("/apis/storage.k8s.io/v1", "storageclasses", {**_EXPANDABLE, "metadata": {"name": "sw-grow"}},
            "a second expandable class", keep=("allowVolumeExpansion",)),
    create("sw-claims", "limitranges", _CLAIM_LIMITS, "claim limits", keep=("spec.limits",)),
    claim("sw-claims", "data", "1Gi", "sw-grow"),
    patch("/api/v1/namespaces/sw-claims/persistentvolumeclaims/data/status", {"status": {"phase": "Bound"}},
          "the claim is bound", keep=("status.phase",)),
    patch("/api/v1/namespaces/sw-claims/persistentvolumeclaims/data",
          {"spec": {"resources": {"requests": {"storage": "4Gi"}}}}, "an update is held to max too"),
    patch("/api/v1/namespaces/sw-claims/persistentvolumeclaims/data",
          {"spec": {"resources": {"requests": {"storage": "2Gi"}}}}, "growing to max", keep=("spec.resources",)),
    {"name": "delete the class", "method": "DELETE", "path": "/apis/storage.k8s.io/v1/storageclasses/sw-grow",
     "keep": ["metadata.name"]},
]

# -- PodSecurity -----------------------------------------------------------------------------------------

_ROOT = [container(securityContext={"runAsUser": 0})]

POD_SECURITY: list[Step] = [
    ns("sw-psa", {"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version":
                  "latest"}),
    pod("sw-psa", "net-bind", [container(securityContext={**RESTRICTED_CONTEXT,
                                                          "capabilities": {"drop": ["ALL"],
                                                                           "add": ["NET_BIND_SERVICE"]}})],
        "restricted lets NET_BIND_SERVICE be added"),
    pod("sw-psa", "raw", [container(securityContext={**RESTRICTED_CONTEXT,
                                                     "capabilities": {"drop": ["ALL"], "add": ["NET_RAW", "CHOWN"]}})],
        "other capabilities are not"),
    pod("sw-psa", "pod-level", [container(securityContext={"allowPrivilegeEscalation": False,
                                                           "capabilities": {"drop": ["ALL"]}})],
        "pod-level runAsNonRoot and seccomp stand for the containers",
        securityContext={"runAsNonRoot": True, "runAsUser": 1000, "seccompProfile": {"type": "Localhost",
                                                                                     "localhostProfile": "p.json"}}),
    pod("sw-psa", "pod-root", [container(securityContext=RESTRICTED_CONTEXT)], "runAsUser 0 at the pod level",
        securityContext={"runAsUser": 0}),
    pod("sw-psa", "volumes", [container(securityContext=RESTRICTED_CONTEXT)], "allowed and refused volume types",
        volumes=[{"name": "cfg", "configMap": {"name": "x"}}, {"name": "tok", "projected": {"sources": []}},
                 {"name": "data", "persistentVolumeClaim": {"claimName": "x"}},
                 {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {
                     "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}},
                 {"name": "share", "nfs": {"server": "nas", "path": "/"}},
                 {"name": "iscsi", "iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:x",
                                             "lun": 0}},
                 {"name": "root", "hostPath": {"path": "/"}}]),
    pod("sw-psa", "windows", [container()], "a Windows pod is spared the Linux-only checks",
        os={"name": "windows"}, securityContext={"runAsNonRoot": True}),
    pod("sw-psa", "unconfined", [container(securityContext={**RESTRICTED_CONTEXT,
                                                            "seccompProfile": {"type": "Unconfined"}})],
        "an unconfined seccomp profile", securityContext={"seccompProfile": {"type": "RuntimeDefault"}}),
    pod("sw-psa", "escalating", [container(securityContext={**RESTRICTED_CONTEXT, "allowPrivilegeEscalation": True}),
                                 container("side", securityContext={**RESTRICTED_CONTEXT,
                                                                    "allowPrivilegeEscalation": True})],
        "two containers that may escalate"),
    pod("sw-psa", "unmasked", [container(securityContext={**RESTRICTED_CONTEXT, "procMount": "Unmasked"})],
        "an unmasked proc mount", hostUsers=False),
    pod("sw-psa", "sysctls", [container(securityContext=RESTRICTED_CONTEXT)], "allowed and refused sysctls",
        securityContext={"sysctls": [{"name": "net.ipv4.ip_unprivileged_port_start", "value": "0"},
                                     {"name": "net.ipv4.tcp_keepalive_time", "value": "60"},
                                     {"name": "kernel.shm_rmid_forced", "value": "0"},
                                     {"name": "net.core.somaxconn", "value": "1024"}]}),
    pod("sw-psa", "ok", [container(securityContext=RESTRICTED_CONTEXT)], "a restricted pod to debug"),
    patch(f"{_pods('sw-psa')}/ok/ephemeralcontainers", {"spec": {"ephemeralContainers": [
        {"name": "debug", "image": IMAGE, "targetContainerName": "app"}]}},
          "an ephemeral container is held to the policy", strategic=True),
    patch(f"{_pods('sw-psa')}/ok/ephemeralcontainers", {"spec": {"ephemeralContainers": [
        {"name": "debug", "image": IMAGE, "targetContainerName": "app", "securityContext": RESTRICTED_CONTEXT}]}},
          "a restricted ephemeral container", strategic=True, keep=("spec.ephemeralContainers.0.name",)),
    workload("sw-psa", "/apis/batch/v1", "jobs", "Job", "report", {"containers": [container()]},
             "a job's template is warned about"),
    workload("sw-psa", "/apis/batch/v1", "cronjobs", "CronJob", "cleanup", {"containers": [container()]},
             "so is a cron job's"),
    workload("sw-psa", "/apis/apps/v1", "daemonsets", "DaemonSet", "agent",
             {"hostNetwork": True, "containers": [container()]}, "a daemon set's"),
    workload("sw-psa", "/apis/apps/v1", "statefulsets", "StatefulSet", "db", {"containers": [container()]},
             "a stateful set's"),
    workload("sw-psa", "/apis/apps/v1", "replicasets", "ReplicaSet", "rs",
             {"containers": [container(securityContext=RESTRICTED_CONTEXT)]}, "a restricted replica set: none"),
    workload("sw-psa", "/api/v1", "replicationcontrollers", "ReplicationController", "rc",
             {"containers": [container()]}, "a replication controller's"),

    pod("sw-psa", "selinux", [container(securityContext={**RESTRICTED_CONTEXT, "seLinuxOptions": {
        "type": "container_init_t", "level": "s0:c1,c2"}}), container("side", securityContext={
            **RESTRICTED_CONTEXT, "seLinuxOptions": {"type": "container_engine_t", "role": "sysadm_r"}})],
        "SELinux: allowed types, no role"),
    pod("sw-psa", "apparmor", [container(securityContext={**RESTRICTED_CONTEXT, "appArmorProfile": {
        "type": "Localhost", "localhostProfile": "k8s-nginx"}})], "a localhost AppArmor profile",
        securityContext={"appArmorProfile": {"type": "Unconfined"}}),
    pod("sw-psa", "non-root-override", [container(securityContext={**RESTRICTED_CONTEXT, "runAsNonRoot": None})],
        "the pod says runAsNonRoot false, the container nothing", securityContext={"runAsNonRoot": False}),
    pod("sw-psa", "host-port", [container(securityContext=RESTRICTED_CONTEXT, ports=[
        {"containerPort": 80, "hostPort": 0}, {"containerPort": 81, "hostPort": 8081, "name": "alt"}])],
        "host ports"),
    ns("sw-psa-old", {"pod-security.kubernetes.io/enforce": "restricted",
                      "pod-security.kubernetes.io/enforce-version": "v1.22"}),
    pod("sw-psa-old", "root", [container(securityContext={**RESTRICTED_CONTEXT, "runAsNonRoot": None,
                                                          "runAsUser": 0})],
        "as of v1.22 runAsUser 0 is not yet refused, runAsNonRoot is"),
    ns("sw-psa-warn", {"pod-security.kubernetes.io/warn": "baseline", "pod-security.kubernetes.io/warn-version":
                       "v1.36", "pod-security.kubernetes.io/audit": "restricted"}),
    pod("sw-psa-warn", "host", [container()], "warned, not refused", hostPID=True,
        volumes=[{"name": "root", "hostPath": {"path": "/"}}]),
    pod("sw-psa-warn", "root", _ROOT, "audit only: no warning"),
    pod("sw-psa-warn", "priv", [container(securityContext={"privileged": False,
                                                          "capabilities": {"add": ["SYS_ADMIN"]}})],
        "a capability baseline refuses"),
    _idle(deployment("sw-psa-warn", "web", {"hostIPC": True, "containers": [container()]})),
    label("sw-psa-warn", {"pod-security.kubernetes.io/warn": "restricted"},
          "a new warn level says nothing about existing pods"),
    label("sw-psa-warn", {"pod-security.kubernetes.io/enforce": "privileged"}, "enforce privileged: nothing to say"),
    label("sw-psa-warn", {"pod-security.kubernetes.io/enforce": "baseline"},
          "enforce baseline over pods that break it"),
    label("sw-psa-warn", {"pod-security.kubernetes.io/enforce-version": "v1.99"}, "a future version"),
    label("sw-psa-warn", {"pod-security.kubernetes.io/audit-version": "1.2.3"}, "a bad audit version"),
    label("sw-psa-warn", {"pod-security.kubernetes.io/enforce": "Restricted",
                          "pod-security.kubernetes.io/warn-version": "v2"}, "a capitalised level and a bad version"),
    ns("sw-psa-enforce-only", {"pod-security.kubernetes.io/enforce": "baseline"}),
    deployment("sw-psa-enforce-only", "api", {"hostNetwork": True, "containers": [container()]}),
    pod("sw-psa-enforce-only", "root", _ROOT, "baseline allows root"),
    {"name": "a bad label on a new namespace", "method": "POST", "path": "/api/v1/namespaces",
     "body": {"apiVersion": "v1", "kind": "Namespace", "metadata": {
         "name": "sw-psa-bad", "labels": {"pod-security.kubernetes.io/enforce": "strict"}}}},
]

def _restricted(**changes: Any) -> dict[str, Any]:
    """The restricted security context with `changes` (None removes a field)."""
    found = {**RESTRICTED_CONTEXT, **changes}
    return {k: v for k, v in found.items() if v is not None}


POD_SECURITY_MORE: list[Step] = [
    ns("sw-psa-more", {"pod-security.kubernetes.io/enforce": "restricted"}),
    pod("sw-psa-more", "override", [container(securityContext=_restricted())],
        "a container's runAsNonRoot true does not excuse the pod's false", securityContext={"runAsNonRoot": False}),
    pod("sw-psa-more", "user-zero", [container(securityContext=_restricted(runAsUser=0))],
        "a container's runAsUser 0 under a pod's 1000", securityContext={"runAsUser": 1000}),
    pod("sw-psa-more", "pod-unconfined", [container(securityContext=_restricted())],
        "a pod-level Unconfined seccomp profile under containers' RuntimeDefault",
        securityContext={"seccompProfile": {"type": "Unconfined"}}),
    pod("sw-psa-more", "lowercase", [container(securityContext=_restricted(capabilities={"drop": ["all"]}))],
        "drop [all] in lower case"),
    pod("sw-psa-more", "prefixed", [container(securityContext=_restricted(capabilities={
        "drop": ["ALL"], "add": ["CAP_NET_BIND_SERVICE"]}))], "a capability spelled with CAP_"),
    pod("sw-psa-more", "spc", [container(securityContext=_restricted(seLinuxOptions={"type": "spc_t"}))],
        "an SELinux type baseline refuses"),
    _annotated(pod("sw-psa-more", "annotated", [container(securityContext=_restricted())],
                   "an unconfined AppArmor annotation"),
               {"container.apparmor.security.beta.kubernetes.io/app": "unconfined"}),
    pod("sw-psa-more", "init-escalates", [container(securityContext=_restricted())],
        "an init container that may escalate",
        initContainers=[container("setup", securityContext=_restricted(allowPrivilegeEscalation=True))]),
    pod("sw-psa-more", "no-context", [container("a", securityContext=_restricted()), container("b")],
        "one container with no security context at all"),
    pod("sw-psa-more", "host-ports", [container(securityContext=_restricted(), ports=[
        {"containerPort": 80, "hostPort": 80}, {"containerPort": 443, "hostPort": 443}]),
        container("side", securityContext=_restricted(), ports=[{"containerPort": 9090, "hostPort": 9090}])],
        "host ports across containers", hostNetwork=True),
]

# -- privileged ------------------------------------------------------------------------------------------

_PRIVILEGED = [container(securityContext={"privileged": True})]

PRIVILEGED: list[Step] = [
    ns("sw-priv"),
    workload("sw-priv", "/apis/apps/v1", "daemonsets", "DaemonSet", "agent", {"containers": _PRIVILEGED},
             "a privileged daemon set"),
    workload("sw-priv", "/apis/batch/v1", "cronjobs", "CronJob", "tidy", {"containers": _PRIVILEGED},
             "a privileged cron job"),
    workload("sw-priv", "/apis/apps/v1", "statefulsets", "StatefulSet", "db", {"containers": [container()],
             "initContainers": _PRIVILEGED}, "a privileged init container in a stateful set"),
    pod("sw-priv", "target", [container()], "a pod to debug"),
    patch(f"{_pods('sw-priv')}/target/ephemeralcontainers", {"spec": {"ephemeralContainers": [
        {"name": "debug", "image": IMAGE, "securityContext": {"privileged": True}}]}},
          "a privileged ephemeral container", strategic=True),
]

# -- NamespaceLifecycle ----------------------------------------------------------------------------------

LIFECYCLE: list[Step] = [
    ns("sw-ending"),
    create("sw-ending", "configmaps", {"apiVersion": "v1", "kind": "ConfigMap",
                                       "metadata": {"name": "held", "finalizers": ["example.com/hold"]}},
           "a config map that holds the namespace", keep=("metadata.finalizers",)),
    create("sw-ending", "serviceaccounts", {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {
        "name": "robot", "finalizers": ["example.com/hold"]}}, "a service account held too"),
    _held(pod("sw-ending", "held", [container()], "a pod held by a finalizer", schedulerName="sw-none")),
    {"name": "delete the namespace", "method": "DELETE", "path": "/api/v1/namespaces/sw-ending",
     "keep": ["status.phase"]},
    get("/api/v1/namespaces/sw-ending/configmaps/held", "the controller asked the config map to go",
        ("metadata.finalizers",), until={"metadata.finalizers": ["example.com/hold"]}),
    create("sw-ending", "configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "late"}},
           "nothing new in a terminating namespace"),
    pod("sw-ending", "late", [container()], "no pod either", query={"dryRun": "All"}),
    create("sw-ending", "localsubjectaccessreviews", {
        "apiVersion": "authorization.k8s.io/v1", "kind": "LocalSubjectAccessReview",
        "metadata": {"namespace": "sw-ending"},
        "spec": {"user": "admin", "resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "sw-ending"}}},
        "an access review is still answered", keep=("status.allowed",), api="/apis/authorization.k8s.io/v1"),
    patch("/api/v1/namespaces/sw-ending/configmaps/held", {"data": {"k": "v"}}, "an update still goes through",
          keep=("data",)),
    create("sw-ending", "serviceaccounts/robot/token", {"apiVersion": "authentication.k8s.io/v1",
                                                        "kind": "TokenRequest", "spec": {"audiences": ["x"]}},
           "nor a token (a subresource create)"),
    create("sw-ending", "pods/held/eviction", {"apiVersion": "policy/v1", "kind": "Eviction",
                                               "metadata": {"name": "held", "namespace": "sw-ending"}},
           "nor an eviction"),
    create("sw-ending", "pods/held/binding", {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "held"},
                                              "target": {"apiVersion": "v1", "kind": "Node", "name": "n"}},
           "nor a binding"),
    create("sw-nowhere", "localsubjectaccessreviews", {
        "apiVersion": "authorization.k8s.io/v1", "kind": "LocalSubjectAccessReview",
        "metadata": {"namespace": "sw-nowhere"},
        "spec": {"user": "admin", "resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "sw-nowhere"}}},
        "an access review in a namespace that does not exist", keep=("status.allowed",),
        api="/apis/authorization.k8s.io/v1"),
    create("sw-nowhere", "configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}},
           "a namespace that does not exist"),
    create("sw-nowhere", "pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
                                  "spec": {"containers": [container()]}}, "a pod in one", ),
    delete("/api/v1/namespaces/kube-system", "kube-system may not be deleted", query={"dryRun": "All"}),
    delete("/api/v1/namespaces/kube-public", "nor kube-public", query={"dryRun": "All"}),
    patch("/api/v1/namespaces/sw-ending/configmaps/held", {"metadata": {"finalizers": None}},
          "let the namespace go", keep=("metadata.finalizers",)),
    patch("/api/v1/namespaces/sw-ending/serviceaccounts/robot", {"metadata": {"finalizers": None}},
          "and the service account", keep=("metadata.finalizers",)),
    patch(f"{_pods('sw-ending')}/held", {"metadata": {"finalizers": None}}, "and the pod",
          keep=("metadata.finalizers",)),
]

# -- Priority, default classes and tolerations, in-use protection ----------------------------------------

_LOW = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "sw-batch-low"},
        "value": 1000, "preemptionPolicy": "Never"}
_DEFAULT = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "sw-default"},
            "value": 10, "globalDefault": True}
_FAST = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {
    "name": "sw-fast", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
    "provisioner": "example.com/disks"}
_SCHEDULING = "/apis/scheduling.k8s.io/v1"

def _ingress(name: str, annotations: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": name, "annotations": annotations},
            "spec": {"defaultBackend": {"service": {"name": "web", "port": {"number": 80}}}}}


DEFAULTS: list[Step] = [
    ns("sw-defaults"),
    cluster(_SCHEDULING, "priorityclasses", _LOW, "a low priority class", keep=("preemptionPolicy",)),
    cluster(_SCHEDULING, "priorityclasses", _DEFAULT, "a default priority class", keep=("globalDefault",)),
    cluster(_SCHEDULING, "priorityclasses", {**_DEFAULT, "metadata": {"name": "sw-default-2"}, "value": 20},
            "a second default"),
    pod("sw-defaults", "batch", [container()], "a pod of the low class", priorityClassName="sw-batch-low",
        keep=("spec.priority", "spec.preemptionPolicy", "spec.priorityClassName")),
    pod("sw-defaults", "unnamed", [container()], "a pod that names no class gets the default",
        keep=("spec.priority", "spec.preemptionPolicy", "spec.priorityClassName")),
    pod("sw-defaults", "stated", [container()], "a pod that states another priority", priority=5),
    pod("sw-defaults", "agreeing", [container()], "a pod that states the same priority", priority=1000,
        priorityClassName="sw-batch-low", keep=("spec.priority",)),
    pod("sw-defaults", "preempting", [container()], "a preemption policy the class contradicts",
        priorityClassName="sw-batch-low", preemptionPolicy="PreemptLowerPriority"),
    pod("sw-defaults", "missing", [container()], "a class that does not exist", priorityClassName="sw-missing"),
    pod("sw-defaults", "system", [container()], "a system class outside kube-system",
        priorityClassName="system-node-critical", keep=("spec.priority",)),
    {"name": "a system class may not be deleted", "method": "DELETE",
     "path": f"{_SCHEDULING}/priorityclasses/system-node-critical", "query": {"dryRun": "All"}, "keep": []},
    {"name": "delete the default class", "method": "DELETE", "path": f"{_SCHEDULING}/priorityclasses/sw-default",
     "keep": ["metadata.name"]},
    cluster("/apis/storage.k8s.io/v1", "storageclasses", _FAST, "a default storage class", keep=("metadata.annotations",)),
    create("sw-defaults", "persistentvolumeclaims", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "classless"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
        "a claim without a class gets the default", keep=("spec.storageClassName", "metadata.finalizers")),
    create("sw-defaults", "persistentvolumeclaims", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "no-class"},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "",
                 "resources": {"requests": {"storage": "1Gi"}}}},
        "an empty class is a choice", keep=("spec.storageClassName",)),
    create("sw-defaults", "persistentvolumeclaims", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "beta", "annotations": {"volume.beta.kubernetes.io/storage-class": "slow"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
        "the beta annotation is a choice too", keep=("spec.storageClassName",)),
    {"name": "delete the default storage class", "method": "DELETE",
     "path": "/apis/storage.k8s.io/v1/storageclasses/sw-fast", "keep": ["metadata.name"]},
    cluster("/api/v1", "persistentvolumes", {
        "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "sw-volume"},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp/x"}}},
        "a volume is protected", keep=("metadata.finalizers",)),
    cluster("/apis/storage.k8s.io/v1", "volumeattributesclasses", {
        "apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttributesClass", "metadata": {"name": "sw-gold"},
        "driverName": "example.com/disks", "parameters": {"iops": "1000"}},
        "an attributes class is protected", keep=("metadata.finalizers",)),
    pod("sw-defaults", "tolerant", [container()], "a toleration of every taint",
        keep=("spec.tolerations",), tolerations=[{"operator": "Exists"}]),
    pod("sw-defaults", "short", [container()], "a shorter not-ready toleration",
        keep=("spec.tolerations",), tolerations=[{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                                                  "effect": "NoExecute", "tolerationSeconds": 30}]),
    pod("sw-defaults", "no-schedule", [container()], "a not-ready toleration of another effect",
        keep=("spec.tolerations",), tolerations=[{"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                                                  "effect": "NoSchedule"}]),
    pod("sw-defaults", "any-effect", [container()], "a not-ready toleration of every effect",
        keep=("spec.tolerations",), tolerations=[{"key": "node.kubernetes.io/unreachable", "operator": "Exists"}]),
    {"name": "delete the volume", "method": "DELETE", "path": "/api/v1/persistentvolumes/sw-volume",
     "keep": ["metadata.finalizers"]},
    cluster("/apis/networking.k8s.io/v1", "ingressclasses", {
        "apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
        "metadata": {"name": "sw-nginx", "annotations": {"ingressclass.kubernetes.io/is-default-class": "true"}},
        "spec": {"controller": "example.com/ingress"}}, "a default ingress class"),
    create("sw-defaults", "ingresses", _ingress("plain", {}), "an ingress without a class gets the default",
           keep=("spec.ingressClassName",), api="/apis/networking.k8s.io/v1"),
    create("sw-defaults", "ingresses", _ingress("legacy", {"kubernetes.io/ingress.class": "haproxy"}),
           "the legacy annotation is a choice", keep=("spec.ingressClassName",), api="/apis/networking.k8s.io/v1"),
    {"name": "delete the ingress class", "method": "DELETE",
     "path": "/apis/networking.k8s.io/v1/ingressclasses/sw-nginx", "keep": []},
]

# -- nodes: TaintNodesByCondition, PodTopologyLabels, PodResizeValidator ----------------------------------------------------

def _node(name: str, labels: dict[str, str], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "spec": spec}


_RESIZABLE = container(**resources({"cpu": "100m", "memory": "64Mi"}, {"cpu": "200m", "memory": "128Mi"}))


def _resize(node_pod: str, cpu: str, step: str, keep: tuple[str, ...] = ()) -> Step:
    return patch(f"{_pods('sw-resize')}/{node_pod}/resize", {"spec": {"containers": [
        {"name": "app", "resources": {"requests": {"cpu": cpu}, "limits": {"cpu": cpu}}}]}}, step,
        strategic=True, keep=keep)


NODES: list[Step] = [
    ns("sw-nodes"),
    cluster("/api/v1", "nodes", _node("sw-node-a", {"kubernetes.io/os": "linux"}), "a new node is not ready",
            keep=("spec.taints",)),
    cluster("/api/v1", "nodes", _node("sw-node-b", {"kubernetes.io/os": "windows"},
                                      taints=[{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"},
                                              {"key": "dedicated", "value": "win", "effect": "NoSchedule"}]),
            "a node that says so already", keep=("spec.taints",)),
    cluster("/api/v1", "nodes", _node("sw-node-z", {"topology.kubernetes.io/zone": "eu-1a",
                                                    "topology.kubernetes.io/region": "eu-1",
                                                    "kubernetes.io/hostname": "z"}),
            "a node in a zone", keep=("metadata.labels",)),
    pod("sw-nodes", "zoned", [container()], "a pod no scheduler will bind", schedulerName="sw-none"),
    create("sw-nodes", "pods/zoned/binding", {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "zoned"},
                                              "target": {"apiVersion": "v1", "kind": "Node", "name": "sw-node-z"}},
           "bound to the zoned node"),
    get(f"{_pods('sw-nodes')}/zoned", "the pod carries its node's topology labels", ("metadata.labels", "spec.nodeName")),
    pod("sw-nodes", "no-account", [container()], "a service account that does not exist (ServiceAccount is off)",
        keep=("spec.serviceAccountName", "spec.volumes"), serviceAccountName="sw-missing"),
    {"name": "delete node a", "method": "DELETE", "path": "/api/v1/nodes/sw-node-a", "keep": ["metadata.name"]},
    {"name": "delete node b", "method": "DELETE", "path": "/api/v1/nodes/sw-node-b", "keep": ["metadata.name"]},
    {"name": "delete node z", "method": "DELETE", "path": "/api/v1/nodes/sw-node-z", "keep": ["metadata.name"]},
]

RESIZE: list[Step] = [
    ns("sw-resize"),
    cluster("/api/v1", "nodes", _node("sw-node-r", {"kubernetes.io/os": "linux"}), "a node", keep=("spec.taints",)),
    cluster("/api/v1", "nodes", _node("sw-node-w", {"kubernetes.io/os": "windows"}), "a Windows node"),
    patch("/api/v1/nodes/sw-node-r/status", {"status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"},
                                                         "capacity": {"cpu": "2", "memory": "4Gi", "pods": "110"}}},
          "the node's allocatable", keep=("status.allocatable",)),
    pod("sw-resize", "on-r", [_RESIZABLE], "a pod on the node", nodeName="sw-node-r",
        tolerations=[{"operator": "Exists"}]),
    pod("sw-resize", "on-w", [_RESIZABLE], "a pod on the Windows node", nodeName="sw-node-w",
        tolerations=[{"operator": "Exists"}]),
    pod("sw-resize", "on-gone", [_RESIZABLE], "a pod on a node that does not exist", nodeName="sw-node-gone",
        tolerations=[{"operator": "Exists"}]),
    pod("sw-resize", "unbound", [_RESIZABLE], "a pod on no node", schedulerName="sw-none"),
    _resize("on-r", "1500m", "a resize that fits the node", keep=("spec.containers.0.resources",)),
    _resize("on-r", "3", "a resize past the node's allocatable"),
    _resize("on-w", "300m", "a resize on a Windows node"),
    _resize("on-gone", "300m", "a resize on a missing node"),
    _resize("unbound", "8", "a resize of an unbound pod", keep=("spec.containers.0.resources",)),
    patch(f"{_pods('sw-resize')}/unbound/resize", {"spec": {"containers": [
        {"name": "app", "image": "registry.example/other:2", "resources": {"requests": {"cpu": "300m"},
                                                                          "limits": {"cpu": "300m"}}}]}},
          "a resize drops what is not resources", strategic=True,
          keep=("spec.containers.0.image", "spec.containers.0.resources", "metadata.generation")),
    patch(f"{_pods('sw-resize')}/unbound/resize", {"spec": {"containers": [
        {"name": "app", "resources": {"requests": {"cpu": "300m", "memory": "128Mi"},
                                      "limits": {"cpu": "300m", "memory": "128Mi"}}}]}},
          "a resize that would make the pod Guaranteed", strategic=True),
    patch(f"{_pods('sw-resize')}/unbound/resize", {"spec": {"containers": [
        {"name": "app", "resources": {"requests": {"cpu": "300m", "memory": None}}}]}},
          "a request cannot be removed", strategic=True),
    patch(f"{_pods('sw-resize')}/unbound/resize", {"spec": {"containers": [
        {"name": "app", "resources": {"requests": {"ephemeral-storage": "1Gi"}}}]}},
          "only cpu and memory may change", strategic=True),
    patch(f"{_pods('sw-resize')}/unbound/resize", {"spec": {"containers": [
        {"name": "app", "image": IMAGE}, {"name": "extra", "image": IMAGE}]}},
          "a container cannot be added", strategic=True),
    pod("sw-resize", "sidecars", [_RESIZABLE], "a pod with a sidecar and an init container",
        schedulerName="sw-none",
        initContainers=[container("proxy", restartPolicy="Always", **_CPU_MEMORY), container("setup", **_CPU_MEMORY)]),
    patch(f"{_pods('sw-resize')}/sidecars/resize", {"spec": {"initContainers": [
        {"name": "proxy", "resources": {"requests": {"cpu": "150m"}, "limits": {"cpu": "300m"}}}]}},
          "a sidecar may be resized", strategic=True, keep=("spec.initContainers.0.resources",)),
    patch(f"{_pods('sw-resize')}/sidecars/resize", {"spec": {"initContainers": [
        {"name": "setup", "resources": {"requests": {"cpu": "150m"}, "limits": {"cpu": "300m"}}}]}},
          "so may an init container", strategic=True, keep=("spec.initContainers.1.resources",)),
    {**get(f"{_pods('sw-resize')}/sidecars/resize", "the resize subresource reads the pod", ("metadata.name",))},
    pod("sw-resize", "init-on-r", [_RESIZABLE], "a bound pod with an init container", nodeName="sw-node-r",
        tolerations=[{"operator": "Exists"}], initContainers=[container("setup", **_CPU_MEMORY)]),
    patch(f"{_pods('sw-resize')}/init-on-r/resize", {"spec": {"initContainers": [
        {"name": "setup", "resources": {"requests": {"cpu": "150m"}, "limits": {"cpu": "300m"}}}]}},
          "resizing its init container needs a node that declares it can", strategic=True),
    pod("sw-resize", "pod-level-on-r", [container()], "a bound pod with pod-level resources", nodeName="sw-node-r",
        tolerations=[{"operator": "Exists"}], resources={"requests": {"cpu": "200m", "memory": "128Mi"},
                                                          "limits": {"cpu": "400m", "memory": "256Mi"}}),
    patch(f"{_pods('sw-resize')}/pod-level-on-r/resize", {"spec": {"resources": {"requests": {"cpu": "300m"}}}},
          "so does resizing pod-level resources", strategic=True),
    patch("/api/v1/nodes/sw-node-r/status", {"status": {"declaredFeatures": [
        "InPlacePodLevelResourcesVerticalScaling", "InPlacePodVerticalScalingInitContainers"]}},
          "the node declares both", keep=("status.declaredFeatures",)),
    patch(f"{_pods('sw-resize')}/init-on-r/resize", {"spec": {"initContainers": [
        {"name": "setup", "resources": {"requests": {"cpu": "150m"}, "limits": {"cpu": "300m"}}}]}},
          "now the init container may be resized", strategic=True, keep=("spec.initContainers.0.resources",)),
    patch(f"{_pods('sw-resize')}/pod-level-on-r/resize", {"spec": {"resources": {"requests": {"cpu": "300m"}}}},
          "and the pod-level resources", strategic=True, keep=("spec.resources",)),
    {"name": "delete node r", "method": "DELETE", "path": "/api/v1/nodes/sw-node-r", "keep": ["metadata.name"]},
    {"name": "delete node w", "method": "DELETE", "path": "/api/v1/nodes/sw-node-w", "keep": ["metadata.name"]},
    ns("sw-resize-bounds"),
    create("sw-resize-bounds", "limitranges", {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "cap"},
                                               "spec": {"limits": [{"type": "Container", "max": {"cpu": "1"}}]}},
           "a container cpu max"),
    quota("sw-resize-bounds", "cpu", {"requests.cpu": "1"}),
    quota_status("sw-resize-bounds", "cpu", {"requests.cpu": "0"}),
    pod("sw-resize-bounds", "web", [_RESIZABLE], "a pod within both", schedulerName="sw-none"),
    {**quota_status("sw-resize-bounds", "cpu", {"requests.cpu": "100m"}, "the pod is charged")},
    patch(f"{_pods('sw-resize-bounds')}/web/resize", {"spec": {"containers": [
        {"name": "app", "resources": {"requests": {"cpu": "500m"}, "limits": {"cpu": "2"}}}]}},
          "a resize past the limit range's max", strategic=True),
    patch(f"{_pods('sw-resize-bounds')}/web/resize", {"spec": {"containers": [
        {"name": "app", "resources": {"requests": {"cpu": "1200m"}, "limits": {"cpu": "1"}}}]}},
          "requests over limits", strategic=True),
    patch(f"{_pods('sw-resize-bounds')}/web/resize", {"spec": {"containers": [
        {"name": "app", "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}}]}},
          "a resize past the quota", strategic=True),
    patch(f"{_pods('sw-resize-bounds')}/web/resize", {"spec": {"containers": [
        {"name": "app", "resources": {"requests": {"cpu": "600m"}, "limits": {"cpu": "1"}}}]}},
          "a resize within both", strategic=True, keep=("spec.containers.0.resources",)),
    # upstream's controller recounts a pod on update only when its kubelet reports other running resources,
    # so the room a shrink frees comes back at its next full sync (five minutes), not now
    {**quota_status("sw-resize-bounds", "cpu", {"requests.cpu": "1"}, "a shrink is not given back at once"),
     "until": {}},
]

# -- updates, dry runs and subresources across the plugins -----------------------------------------------

def json_patch(path: str, operations: list[dict[str, Any]], step: str, keep: tuple[str, ...] = ()) -> Step:
    return {"name": step, "method": "PATCH", "path": path, "content_type": "application/json-patch+json",
            "body": operations, "keep": list(keep)}


UPDATES: list[Step] = [
    ns("sw-upd", {"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/warn": "restricted"}),
    quota("sw-upd", "pods", {"count/pods": "3"}),
    quota_status("sw-upd", "pods", {"count/pods": "0"}),
    pod("sw-upd", "batch-", [container()], "a generated name is what a refusal names", keep=("spec.tolerations",),
        query={"dryRun": "All"}, hostNetwork=True),
    pod("sw-upd", "web", [container()], "a pod, warned of restricted"),
    json_patch(f"{_pods('sw-upd')}/web", [{"op": "remove", "path": "/spec/tolerations"}],
               "its default tolerations come back when an update drops them", keep=("spec.tolerations",)),
    json_patch(f"{_pods('sw-upd')}/web", [{"op": "remove", "path": "/spec/priority"}],
               "so does its priority", keep=("spec.priority",)),
    patch(f"{_pods('sw-upd')}/web/status", {"status": {"phase": "Running"}},
          "a status update is not judged by PodSecurity", keep=("status.phase",)),
    patch(f"{_pods('sw-upd')}/web", {"spec": {"containers": [{"name": "app", "image": "registry.example/web:2"}]}},
          "an image update is judged, and warned", strategic=True, keep=("spec.containers.0.image",)),
    pod("sw-upd", "proc", [container(securityContext={"windowsOptions": {"hostProcess": True}, "runAsNonRoot": True})],
        "a Windows host process", hostNetwork=True, os={"name": "windows"}),
    pod("sw-upd", "dry-host", [container()], "a dry run is judged too", hostPID=True, query={"dryRun": "All"}),
    {**label("sw-upd", {"pod-security.kubernetes.io/enforce": "restricted"},
             "a dry-run label change warns of existing pods too"), "query": {"dryRun": "All"}},
    get("/api/v1/namespaces/sw-upd", "the dry run changed nothing", ("metadata.labels",)),
    _idle(deployment("sw-upd", "api", {"containers": [container()]})),
    patch("/apis/apps/v1/namespaces/sw-upd/deployments/api",
          {"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "registry.example/api:2"}]}}}},
          "a template update is warned again", strategic=True),
    patch("/apis/apps/v1/namespaces/sw-upd/deployments/api/scale", {"spec": {"replicas": 0}},
          "a scale is not", keep=("spec.replicas",)),
    pod("sw-upd", "two", [container()], "a second pod"),
    pod("sw-upd", "three", [container()], "a third (dry run) still fits count/pods", query={"dryRun": "All"}),
    create("sw-upd", "limitranges", {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "ratio"},
                                     "spec": {"limits": [{"type": "Container", "maxLimitRequestRatio": {"memory": "2"}},
                                                         {"type": "Pod", "maxLimitRequestRatio": {"cpu": "3"}}]}},
           "ratios alone", keep=("spec.limits",)),
    pod("sw-upd", "no-memory", [container()], "a ratio with nothing stated", query={"dryRun": "All"}),
    pod("sw-upd", "limit-only", [container(**resources(None, {"memory": "64Mi", "cpu": "1"}))],
        "a limit alone: the request defaults to it", query={"dryRun": "All"}, keep=("spec.containers.0.resources",)),
    pod("sw-upd", "pod-ratio", [container("a", **resources({"cpu": "100m", "memory": "64Mi"},
                                                           {"cpu": "200m", "memory": "64Mi"})),
                                container("b", **resources({"cpu": "100m", "memory": "64Mi"},
                                                           {"cpu": "500m", "memory": "64Mi"}))],
        "a pod ratio over its max", query={"dryRun": "All"}),
    claim("sw-upd", "unbound", "1Gi"),
    patch("/api/v1/namespaces/sw-upd/persistentvolumeclaims/unbound",
          {"spec": {"resources": {"requests": {"storage": "2Gi"}}}}, "an unbound claim cannot grow"),
]

# -- overhead, object validation, node and binding edges -------------------------------------------------

_KATA = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "sw-kata"}, "handler": "kata",
         "overhead": {"podFixed": {"cpu": "250m", "memory": "64Mi"}}}


def _invalid_quota(name: str, spec: dict[str, Any], step: str) -> Step:
    return create("sw-edges", "resourcequotas", {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name},
                                                 "spec": spec}, step)


def _invalid_limits(name: str, limits: list[dict[str, Any]], step: str) -> Step:
    return create("sw-edges", "limitranges", {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": name},
                                              "spec": {"limits": limits}}, step)


EDGES: list[Step] = [
    ns("sw-edges"),
    cluster("/apis/node.k8s.io/v1", "runtimeclasses", _KATA, "a runtime class with overhead"),
    quota("sw-edges", "cpu", {"requests.cpu": "1", "limits.memory": "1Gi"}),
    quota_status("sw-edges", "cpu", {"limits.memory": "0", "requests.cpu": "0"}),
    create("sw-edges", "limitranges", {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "pod"},
                                       "spec": {"limits": [{"type": "Pod", "max": {"cpu": "300m"}}]}},
           "a pod cpu max"),
    pod("sw-edges", "sandboxed", [container(**resources({"cpu": "100m"}, {"cpu": "200m", "memory": "128Mi"}))],
        "the overhead counts for the quota, not for the limit range", runtimeClassName="sw-kata",
        keep=("spec.overhead",)),
    quota_status("sw-edges", "cpu", {"limits.memory": "192Mi", "requests.cpu": "350m"}, "charged with its overhead"),
    _invalid_quota("bare-extended", {"hard": {"example.com/gpu": "1"}}, "an extended resource without requests."),
    _invalid_quota("negative", {"hard": {"pods": "-1", "requests.cpu": "abc"}}, "a negative and a malformed value"),
    _invalid_quota("both", {"hard": {"pods": "1"}, "scopes": ["Terminating", "NotTerminating"]},
                   "contradicting scopes"),
    _invalid_quota("unknown", {"hard": {"pods": "1"}, "scopes": ["Sometimes"]}, "an unknown scope"),
    _invalid_quota("selector", {"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
        {"scopeName": "Terminating", "operator": "In", "values": ["x"]}]}}, "In on a scope that takes none"),
    _invalid_quota("cross", {"hard": {"requests.cpu": "1"}, "scopes": ["CrossNamespacePodAffinity"]},
                   "cross-namespace affinity limits only pods"),
    _invalid_limits("inverted", [{"type": "Container", "min": {"cpu": "1"}, "max": {"cpu": "500m"}}],
                    "min over max"),
    _invalid_limits("outside", [{"type": "Container", "min": {"cpu": "100m"}, "max": {"cpu": "1"},
                                 "default": {"cpu": "2"}, "defaultRequest": {"cpu": "50m"}}],
                    "defaults outside min and max"),
    _invalid_limits("ratio", [{"type": "Container", "maxLimitRequestRatio": {"cpu": "500m"}}],
                    "a ratio under one"),
    _invalid_limits("claims", [{"type": "PersistentVolumeClaim", "default": {"storage": "1Gi"},
                                "min": {"storage": "2Gi"}}], "a claim default"),
    cluster("/api/v1", "nodes", _node("sw-node-e", {}, taints=[
        {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]),
        "a node not ready for execution gets the scheduling taint too", keep=("spec.taints",)),
    patch("/api/v1/nodes/sw-node-e", {"spec": {"taints": None}}, "an update keeps none", keep=("spec.taints",)),
    cluster("/api/v1", "nodes", _node("sw-node-f", {"topology.kubernetes.io/zone": "eu-1b"}), "a zoned node"),
    pod("sw-edges", "legacy-bound", [container(**_CPU_MEMORY)], "a pod bound the legacy way", schedulerName="sw-none"),
    create("sw-edges", "bindings", {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "legacy-bound"},
                                    "target": {"apiVersion": "v1", "kind": "Node", "name": "sw-node-f"}},
           "through the bindings resource"),
    get(f"{_pods('sw-edges')}/legacy-bound", "no topology labels through it", ("metadata.labels", "spec.nodeName")),
    {"name": "delete node e", "method": "DELETE", "path": "/api/v1/nodes/sw-node-e", "keep": ["metadata.name"]},
    {"name": "delete node f", "method": "DELETE", "path": "/api/v1/nodes/sw-node-f", "keep": ["metadata.name"]},
    {"name": "delete the runtime class", "method": "DELETE", "path": "/apis/node.k8s.io/v1/runtimeclasses/sw-kata",
     "keep": []},
]

# -- retroactive and update-time decisions --------------------------------------------------------------

_VAC_CLAIM = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "tiered"},
              "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "", "volumeAttributesClassName": "sw-silver",
                       "volumeName": "sw-late-volume",
                       "resources": {"requests": {"storage": "1Gi"}}}}

LATE: list[Step] = [
    ns("sw-late"),
    quota("sw-late", "gold", {"persistentvolumeclaims": "1", "requests.storage": "500Mi"},
          scopeSelector={"matchExpressions": [{"scopeName": "VolumeAttributesClass", "operator": "In",
                                                "values": ["sw-gold"]}]}),
    quota("sw-late", "both-counts", {"pods": "1", "count/pods": "2"}),
    quota_status("sw-late", "gold", {"persistentvolumeclaims": "0", "requests.storage": "0"}),
    quota_status("sw-late", "both-counts", {"count/pods": "0", "pods": "0"}),
    cluster("/api/v1", "persistentvolumes", {
        "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "sw-late-volume"},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "",
                 "claimRef": {"namespace": "sw-late", "name": "tiered"}, "hostPath": {"path": "/tmp/sw-late"}}},
        "a volume kept for the claim"),
    create("sw-late", "persistentvolumeclaims", _VAC_CLAIM, "a claim of the silver attributes class"),
    get("/api/v1/namespaces/sw-late/persistentvolumeclaims/tiered", "the binder binds them", ("status.phase",),
        until={"status.phase": "Bound"}),
    patch("/api/v1/namespaces/sw-late/persistentvolumeclaims/tiered", {"spec": {"volumeAttributesClassName": "sw-gold"}},
          "moving it to gold charges all of it to the gold quota"),
    pod("sw-late", "first", [container()], "a pod"),
    patch(f"{_pods('sw-late')}/first/status", {"status": {"phase": "Failed"}}, "it fails", keep=("status.phase",)),
    quota_status("sw-late", "both-counts", {"count/pods": "1", "pods": "0"},
                 "a failed pod keeps its count/pods, not its pods"),
    pod("sw-late", "second", [container()], "a second pod fits pods"),
    pod("sw-late", "third", [container()], "a third is over both"),
    cluster(_SCHEDULING, "priorityclasses", {**_DEFAULT, "metadata": {"name": "sw-late-default"}, "value": 7},
            "a default priority class", keep=("globalDefault",)),
    cluster(_SCHEDULING, "priorityclasses", {**_LOW, "metadata": {"name": "sw-late-other"}, "value": 8},
            "another class"),
    patch(f"{_SCHEDULING}/priorityclasses/sw-late-other", {"globalDefault": True},
          "made the default while another is"),
    patch(f"{_SCHEDULING}/priorityclasses/sw-late-default", {"description": "the usual"},
          "the default itself may be updated", keep=("description", "globalDefault")),
    {"name": "delete the default class", "method": "DELETE", "path": f"{_SCHEDULING}/priorityclasses/sw-late-default",
     "keep": []},
    ns("sw-qos"),
    pod("sw-qos", "pod-level", [container("web"), container("log")], "pod-level resources decide the QoS class",
        keep=("status.qosClass",), resources={"requests": {"cpu": "200m", "memory": "256Mi"},
                                              "limits": {"cpu": "400m", "memory": "512Mi"}}),
    pod("sw-qos", "pod-level-guaranteed", [container("web")], "pod-level requests equal to limits",
        keep=("status.qosClass",), resources={"requests": {"cpu": "200m", "memory": "256Mi"},
                                              "limits": {"cpu": "200m", "memory": "256Mi"}}),
    pod("sw-qos", "zero", [container("web", **resources({"cpu": "0", "memory": "0"}))],
        "zero requests are no requests", keep=("status.qosClass",)),
    pod("sw-qos", "equal-spellings", [container("web", **resources({"cpu": "0.5", "memory": "1Gi"},
                                                                    {"cpu": "500m", "memory": "1024Mi"}))],
        "equal quantities spelled apart", keep=("status.qosClass",)),
]

# -- CertificateApproval, CertificateSigning -------------------------------------------------------------

_ALICE = {"Impersonate-User": "sw-alice"}
_CSR = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
_APPROVER = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "sw-approver"},
             "rules": [{"apiGroups": ["certificates.k8s.io"], "resources": ["certificatesigningrequests",
                                                                            "certificatesigningrequests/approval",
                                                                            "certificatesigningrequests/status"],
                        "verbs": ["get", "list", "update", "patch"]},
                       {"apiGroups": ["certificates.k8s.io"], "resources": ["signers"], "verbs": ["approve"],
                        "resourceNames": ["example.com/*"]}]}
_BINDING = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": "sw-approver"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "sw-approver"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "sw-alice"}]}


def _csr(name: str, signer: str) -> dict[str, Any]:
    return {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": name},
            "spec": {"request": _admin_csr(), "signerName": signer, "usages": ["client auth"]}}


def _certificate() -> str:
    """A self-signed client certificate, base64 PEM as status.certificate carries it."""
    import base64
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "sw-ci")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()))
    return base64.b64encode(cert.public_bytes(serialization.Encoding.PEM)).decode()


_APPROVED = {"status": {"conditions": [{"type": "Approved", "status": "True", "reason": "Checked",
                                        "message": "looks fine"}]}}

CERTIFICATES: list[Step] = [
    cluster("/apis/rbac.authorization.k8s.io/v1", "clusterroles", _APPROVER, "an approver role"),
    cluster("/apis/rbac.authorization.k8s.io/v1", "clusterrolebindings", _BINDING, "bound to alice"),
    cluster("/apis/certificates.k8s.io/v1", "certificatesigningrequests", _csr("sw-builtin", "example.net/ci"),
            "a request to a signer alice may not approve"),
    cluster("/apis/certificates.k8s.io/v1", "certificatesigningrequests", _csr("sw-own", "example.com/ci"),
            "a request to a signer she may approve"),
    patch(f"{_CSR}/sw-builtin/approval", _APPROVED, "alice may not approve for that signer", headers=_ALICE),
    patch(f"{_CSR}/sw-own/approval", _APPROVED, "she may for hers", headers=_ALICE,
          keep=("status.conditions.0.type",)),
    patch(f"{_CSR}/sw-own/status", {"status": {"certificate": _certificate()}},
          "but may not sign without the sign verb", headers=_ALICE),
    {"name": "clean up the binding", "method": "DELETE",
     "path": "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/sw-approver", "keep": ["metadata.name"]},
]

SCENARIOS: dict[str, list[Step]] = {
    "sweep_quota_compute": QUOTA_COMPUTE, "sweep_quota_counts": QUOTA_COUNTS, "sweep_quota_updates": QUOTA_UPDATES,
    "sweep_quota_scopes": QUOTA_SCOPES, "sweep_quota_more": QUOTA_MORE,
    "sweep_quota_services": QUOTA_SERVICES, "sweep_refusal_warnings": REFUSAL_WARNINGS, "sweep_limits": LIMITS, "sweep_claim_limits": CLAIM_LIMITS,
    "sweep_podsecurity": POD_SECURITY, "sweep_podsecurity_more": POD_SECURITY_MORE, "sweep_privileged": PRIVILEGED, "sweep_lifecycle": LIFECYCLE,
    "sweep_defaults": DEFAULTS, "sweep_nodes": NODES, "sweep_resize": RESIZE, "sweep_updates": UPDATES, "sweep_edges": EDGES, "sweep_late": LATE, "sweep_certificates": CERTIFICATES,
}
