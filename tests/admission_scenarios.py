"""Admission scenarios: the privileged-container check, LimitRanger, ResourceQuota and PodSecurity,
each a list of requests in its own namespace, replayed against kube-apiserver 1.36.2 (with its
controllers) to record fixtures and against this server to compare (see admission_replay.py).
"""

from __future__ import annotations

import base64
from typing import Any

Step = dict[str, Any]
IMAGE = "registry.example/shop/cart:1.4"


def ns(name: str, labels: dict[str, str] | None = None) -> Step:
    meta: dict[str, Any] = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"name": f"namespace {name}", "method": "POST", "path": "/api/v1/namespaces",
            "body": {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}, "keep": ["metadata.labels"]}


def container(name: str = "app", **fields: Any) -> dict[str, Any]:
    return {"name": name, "image": IMAGE, **fields}


def resources(requests: dict[str, str] | None = None, limits: dict[str, str] | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {}
    if requests:
        found["requests"] = requests
    if limits:
        found["limits"] = limits
    return {"resources": found}


def pod(namespace: str, name: str, containers: list[dict[str, Any]], step: str = "", keep: tuple[str, ...] = (),
        query: dict[str, str] | None = None, **spec: Any) -> Step:
    meta: dict[str, Any] = {"generateName": name} if name.endswith("-") else {"name": name}
    return {"name": step or f"pod {name}", "method": "POST", "path": f"/api/v1/namespaces/{namespace}/pods",
            "query": query or {},
            "body": {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"containers": containers, **spec}},
            "keep": list(keep)}


def create(namespace: str, plural: str, body: dict[str, Any], step: str, keep: tuple[str, ...] = (),
           api: str = "/api/v1") -> Step:
    return {"name": step, "method": "POST", "path": f"{api}/namespaces/{namespace}/{plural}", "body": body,
            "keep": list(keep)}


def deployment(namespace: str, name: str, spec: dict[str, Any], template_meta: dict[str, Any] | None = None) -> Step:
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}, **(template_meta or {})}, "spec": spec}}}
    return create(namespace, "deployments", body, f"deployment {name}", api="/apis/apps/v1")


def claim(namespace: str, name: str, storage: str, storage_class: str | None = None) -> Step:
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": storage}}}
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    body = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": spec}
    return create(namespace, "persistentvolumeclaims", body, f"claim {name}")


def quota_status(namespace: str, name: str, used: dict[str, str], step: str = "") -> Step:
    """Waits for the quota controller (or an admission charge) to show `used`."""
    return {"name": step or f"quota {name} used", "method": "GET",
            "path": f"/api/v1/namespaces/{namespace}/resourcequotas/{name}",
            "keep": ["status.hard", "status.used"], "until": {"status.used": used}}


def quota(namespace: str, name: str, hard: dict[str, str], **spec: Any) -> Step:
    body = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name}, "spec": {"hard": hard, **spec}}
    return create(namespace, "resourcequotas", body, f"quota {name}")


def label(namespace: str, labels: dict[str, str | None], step: str) -> Step:
    return {"name": step, "method": "PATCH", "path": f"/api/v1/namespaces/{namespace}",
            "content_type": "application/merge-patch+json", "body": {"metadata": {"labels": labels}},
            "keep": ["metadata.labels"]}


RESTRICTED_CONTEXT = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, "runAsNonRoot": True,
                      "seccompProfile": {"type": "RuntimeDefault"}}


PRIVILEGED: list[Step] = [
    ns("priv"),
    pod("priv", "root", [container(securityContext={"privileged": True})], "a privileged container is refused"),
    pod("priv", "init", [container()], "a privileged init container is refused",
        initContainers=[container("setup", securityContext={"privileged": True})]),
    pod("priv", "plain", [container(securityContext={"privileged": False})], "privileged: false is allowed"),
    deployment("priv", "agent", {"containers": [container(securityContext={"privileged": True})]}),
    {"name": "a pod template with a privileged container", "method": "POST", "path": "/api/v1/namespaces/priv/podtemplates",
     "body": {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"},
              "template": {"spec": {"containers": [container(securityContext={"privileged": True})]}}}},
]

_LIMITS = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits"}, "spec": {"limits": [
    {"type": "Container", "default": {"cpu": "500m", "memory": "256Mi"}, "defaultRequest": {"cpu": "100m"},
     "max": {"cpu": "1"}, "min": {"memory": "64Mi"}, "maxLimitRequestRatio": {"cpu": "10"}},
    {"type": "Pod", "max": {"memory": "1Gi"}},
    {"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}, "max": {"storage": "10Gi"}},
]}}

LIMIT_RANGER: list[Step] = [
    ns("limits"),
    create("limits", "limitranges", _LIMITS, "limit range", keep=("spec.limits",)),
    pod("limits", "defaulted", [container()], "a pod without resources gets the defaults",
        keep=("metadata.annotations", "spec.containers.0.resources"),
        initContainers=[container("setup", **resources(limits={"cpu": "200m"}))]),
    pod("limits", "partly", [container(**resources(requests={"memory": "128Mi"}))],
        "only what a container leaves unset is defaulted", keep=("metadata.annotations", "spec.containers.0.resources")),
    pod("limits", "greedy", [container(**resources(limits={"cpu": "2"}))], "a limit over max"),
    pod("limits", "two-greedy", [container("a", **resources(limits={"cpu": "2"})),
                                 container("b", **resources(limits={"cpu": "2"}))],
        "the same breach twice is said once"),
    pod("limits", "mixed", [container("a", **resources(limits={"cpu": "2"})),
                            container("b", **resources(limits={"cpu": "3"}))], "two breaches are listed"),
    pod("limits", "tiny", [container(**resources(requests={"memory": "32Mi"}, limits={"memory": "32Mi"}))],
        "a request under min"),
    pod("limits", "bursty", [container(**resources(requests={"cpu": "30m"}, limits={"cpu": "1"}))],
        "a limit to request ratio over the max"),
    pod("limits", "fat", [container("a", **resources(limits={"memory": "600Mi"})),
                          container("b", **resources(limits={"memory": "600Mi"}))], "a pod over its max"),
    pod("limits", "dry-", [container()], "a dry run is defaulted too", keep=("metadata.annotations",),
        query={"dryRun": "All"}),
    deployment("limits", "web", {"containers": [container()]}),
    {"name": "the deployment's pods are defaulted too", "method": "GET", "path": "/api/v1/namespaces/limits/pods",
     "query": {"labelSelector": "app=web"}, "keep": ["items.0.metadata.annotations", "items.0.spec.containers.0.resources"],
     "until": {"items.0.metadata.annotations": {"kubernetes.io/limit-ranger": "LimitRanger plugin set: cpu, memory "
                                                "request for container app; cpu, memory limit for container app"}}},
    claim("limits", "small", "500Mi"),
    claim("limits", "huge", "20Gi"),
    claim("limits", "fits", "5Gi"),
]

QUOTA: list[Step] = [
    ns("quota"),
    # (not configmaps: the reference's OpenShift build publishes a second CA ConfigMap in every namespace)
    quota("quota", "compute", {"pods": "2", "requests.cpu": "1", "limits.memory": "1Gi", "secrets": "1",
                               "count/serviceaccounts": "2", "services": "1", "services.loadbalancers": "0",
                               "count/deployments.apps": "1"}),
    quota_status("quota", "compute", {"count/deployments.apps": "0", "count/serviceaccounts": "1", "limits.memory": "0",
                                      "pods": "0", "requests.cpu": "0", "secrets": "0", "services": "0",
                                      "services.loadbalancers": "0"}),
    pod("quota", "unbounded", [container()], "a pod that states no requests or limits"),
    pod("quota", "half", [container("a", **resources({"cpu": "100m"})), container("b")],
        "one container states nothing"),
    pod("quota", "web", [container(**resources({"cpu": "600m"}, {"memory": "512Mi"}))], "a pod that fits"),
    quota_status("quota", "compute", {"count/deployments.apps": "0", "count/serviceaccounts": "1", "limits.memory": "512Mi",
                                      "pods": "1", "requests.cpu": "600m", "secrets": "0", "services": "0",
                                      "services.loadbalancers": "0"}, "the pod is charged"),
    pod("quota", "worker", [container(**resources({"cpu": "600m"}, {"memory": "256Mi"}))], "cpu over the quota"),
    pod("quota", "dry", [container(**resources({"cpu": "100m"}, {"memory": "100Mi"}))], "a dry run is not charged",
        query={"dryRun": "All"}),
    pod("quota", "api", [container(**resources({"cpu": "300m"}, {"memory": "256Mi"}))], "a second pod that fits"),
    pod("quota", "third", [container(**resources({"cpu": "10m"}, {"memory": "10Mi"}))], "a third pod"),
    create("quota", "secrets", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "one"}}, "a secret"),
    create("quota", "secrets", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "two"}},
           "a secret too many"),
    create("quota", "serviceaccounts", {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "ci"}},
           "a service account"),
    create("quota", "serviceaccounts", {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "cd"}},
           "a service account too many"),
    create("quota", "services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "lb"},
                                 "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}}, "a load balancer"),
    create("quota", "services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
                                 "spec": {"ports": [{"port": 80}]}}, "a service"),
    create("quota", "services", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "api"},
                                 "spec": {"ports": [{"port": 80}]}}, "a service too many"),
    deployment("quota", "shop", {"containers": [container()]}),
    deployment("quota", "cart", {"containers": [container()]}),
    {"name": "delete a pod", "method": "DELETE", "path": "/api/v1/namespaces/quota/pods/web",
     "body": {"gracePeriodSeconds": 0}, "keep": ["metadata.name"]},
    quota_status("quota", "compute", {"count/deployments.apps": "1", "count/serviceaccounts": "2",
                                      "limits.memory": "256Mi", "pods": "1", "requests.cpu": "300m", "secrets": "1",
                                      "services": "1", "services.loadbalancers": "0"},
                 "the controller gives back what was freed"),

    ns("storage"),
    quota("storage", "disks", {"requests.storage": "5Gi", "persistentvolumeclaims": "2",
                               "gold.storageclass.storage.k8s.io/requests.storage": "1Gi"}),
    quota_status("storage", "disks", {"gold.storageclass.storage.k8s.io/requests.storage": "0",
                                      "persistentvolumeclaims": "0", "requests.storage": "0"}),
    claim("storage", "data", "4Gi"),
    claim("storage", "more", "2Gi"),
    claim("storage", "gold", "1536Mi", "gold"),
    claim("storage", "silver", "500Mi", "silver"),
    claim("storage", "third", "1Mi"),
    quota_status("storage", "disks", {"gold.storageclass.storage.k8s.io/requests.storage": "0",
                                      "persistentvolumeclaims": "2", "requests.storage": "4596Mi"},
                 "claims are charged"),

    ns("scopes"),
    quota("scopes", "besteffort", {"pods": "1"}, scopes=["BestEffort"]),
    quota("scopes", "terminating", {"pods": "1", "limits.cpu": "1"}, scopes=["Terminating"]),
    quota("scopes", "high", {"pods": "1"}, scopeSelector={"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "In", "values": ["system-cluster-critical"]}]}),
    quota("scopes", "cross", {"pods": "0"}, scopes=["CrossNamespacePodAffinity"]),
    quota_status("scopes", "besteffort", {"pods": "0"}),
    quota_status("scopes", "terminating", {"limits.cpu": "0", "pods": "0"}),
    quota_status("scopes", "high", {"pods": "0"}),
    quota_status("scopes", "cross", {"pods": "0"}),
    pod("scopes", "be-1", [container()], "a best-effort pod"),
    pod("scopes", "be-2", [container()], "a second best-effort pod"),
    pod("scopes", "burstable", [container(**resources({"cpu": "100m"}))], "a burstable pod is not best-effort"),
    pod("scopes", "job-1", [container(**resources({"cpu": "100m"}))], "a terminating pod without limits",
        activeDeadlineSeconds=60),
    pod("scopes", "job-2", [container(**resources({"cpu": "100m"}, {"cpu": "2"}))], "a terminating pod over limits",
        activeDeadlineSeconds=60),
    pod("scopes", "critical-1", [container(**resources({"cpu": "10m"}))], "a pod of the selected priority class",
        priorityClassName="system-cluster-critical"),
    pod("scopes", "critical-2", [container(**resources({"cpu": "10m"}))], "a second one",
        priorityClassName="system-cluster-critical"),
    pod("scopes", "affine", [container(**resources({"cpu": "10m"}))], "cross-namespace affinity",
        affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}}, "namespaces": ["other"],
             "topologyKey": "kubernetes.io/hostname"}]}}),
    quota_status("scopes", "besteffort", {"pods": "1"}, "best-effort pods counted"),

    ns("long-running"),
    quota("long-running", "services", {"pods": "1"}, scopes=["NotTerminating", "NotBestEffort"]),
    quota_status("long-running", "services", {"pods": "0"}),
    pod("long-running", "api", [container(**resources({"cpu": "10m"}))], "a long-running burstable pod"),
    pod("long-running", "api-2", [container(**resources({"cpu": "10m"}))], "a second one"),
    pod("long-running", "batch", [container(**resources({"cpu": "10m"}))], "a terminating one is out of scope",
        activeDeadlineSeconds=30),
    pod("long-running", "idle", [container()], "a best-effort one is out of scope"),
]

_BASELINE_BREAKER = [container(securityContext={"capabilities": {"add": ["NET_ADMIN", "SYS_TIME"]},
                                                "seLinuxOptions": {"type": "spc_t", "user": "system_u"},
                                                "seccompProfile": {"type": "Unconfined"},
                                                "appArmorProfile": {"type": "Unconfined"}},
                               ports=[{"containerPort": 80, "hostPort": 8080}],
                               livenessProbe={"httpGet": {"path": "/", "port": 80, "host": "10.0.0.1"}}),
                     container("side", securityContext={"capabilities": {"add": ["CHOWN"]}})]

POD_SECURITY: list[Step] = [
    ns("baseline", {"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/warn": "restricted",
                    "pod-security.kubernetes.io/warn-version": "v1.30"}),
    pod("baseline", "loose", [container()], "baseline allows it, restricted warns"),
    pod("baseline", "tight", [container(securityContext=RESTRICTED_CONTEXT)], "a restricted pod: no warning"),
    pod("baseline", "host", [container()], "host namespaces and a hostPath volume", hostNetwork=True, hostPID=True,
        hostIPC=True, volumes=[{"name": "root", "hostPath": {"path": "/"}}, {"name": "logs", "hostPath": {"path": "/var/log"}}]),
    pod("baseline", "breaker", _BASELINE_BREAKER, "every container check at once",
        securityContext={"sysctls": [{"name": "kernel.msgmax", "value": "1"},
                                     {"name": "net.ipv4.tcp_rmem", "value": "4096 87380 6291456"}]}),
    pod("baseline", "gen-", [container()], "a generated name", hostNetwork=True),
    deployment("baseline", "legacy", {"hostNetwork": True, "containers": [container()]}),
    pod("baseline", "loose-2", [container()], "a second loose pod"),
    pod("baseline", "loose-3", [container()], "a third loose pod"),
    label("baseline", {"pod-security.kubernetes.io/enforce": "restricted"}, "tightening warns about existing pods"),
    {"name": "a label change of a pod is not judged", "method": "PATCH", "path": "/api/v1/namespaces/baseline/pods/loose",
     "content_type": "application/merge-patch+json", "body": {"metadata": {"labels": {"tier": "web"}}},
     "keep": ["metadata.labels"]},
    {"name": "a new image is", "method": "PATCH", "path": "/api/v1/namespaces/baseline/pods/loose",
     "content_type": "application/strategic-merge-patch+json",
     "body": {"spec": {"containers": [{"name": "app", "image": "registry.example/shop/cart:1.5"}]}}},
    label("baseline", {"pod-security.kubernetes.io/warn": "strict"}, "a bad level is refused"),
    label("baseline", {"pod-security.kubernetes.io/enforce-version": "1.30"}, "a bad version is refused"),
    ns("restricted", {"pod-security.kubernetes.io/enforce": "restricted"}),
    pod("restricted", "root", [container(securityContext={**RESTRICTED_CONTEXT, "runAsUser": 0})], "runAsUser=0",
        volumes=[{"name": "nfs", "nfs": {"server": "nas", "path": "/x"}}, {"name": "tmp", "emptyDir": {}}]),
    pod("restricted", "implicit", [container("a"), container("b", securityContext={"runAsNonRoot": False,
                                                                                    "allowPrivilegeEscalation": False})],
        "explicit and implicit offenders"),
    pod("restricted", "ok", [container(securityContext=RESTRICTED_CONTEXT)], "a restricted pod"),
    deployment("restricted", "app", {"containers": [container()]}),
    ns("versioned", {"pod-security.kubernetes.io/enforce": "restricted",
                     "pod-security.kubernetes.io/enforce-version": "v1.21"}),
    pod("versioned", "old", [container(securityContext={"runAsNonRoot": True, "allowPrivilegeEscalation": False,
                                                        "seccompProfile": {"type": "RuntimeDefault"}})],
        "restricted as of v1.21: capabilities and runAsUser not yet checked"),
]

def _admin_csr() -> str:
    """A certificate request for a client in the system:masters group, base64 as the API carries it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "mallory"),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "system:masters")])
    csr = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256())
    return base64.b64encode(csr.public_bytes(serialization.Encoding.PEM)).decode()


_GVISOR = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "gvisor"}, "handler": "runsc",
           "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}},
           "scheduling": {"nodeSelector": {"sandbox": "gvisor"},
                          "tolerations": [{"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}]}}

OTHER_PLUGINS: list[Step] = [
    ns("others"),
    {"name": "runtime class", "method": "POST", "path": "/apis/node.k8s.io/v1/runtimeclasses", "body": _GVISOR,
     "keep": ["overhead", "scheduling"]},
    pod("others", "sandboxed", [container()], "a pod gets its runtime class's overhead and scheduling",
        keep=("spec.overhead", "spec.nodeSelector", "spec.tolerations"), runtimeClassName="gvisor",
        nodeSelector={"disk": "ssd"}, tolerations=[{"key": "sandbox", "operator": "Equal", "value": "x",
                                                    "effect": "NoSchedule"}]),
    pod("others", "missing", [container()], "a runtime class that does not exist", runtimeClassName="kata"),
    pod("others", "clash", [container()], "a node selector the class contradicts", runtimeClassName="gvisor",
        nodeSelector={"sandbox": "none"}),
    pod("others", "heavy", [container()], "an overhead the class does not define", runtimeClassName="gvisor",
        overhead={"cpu": "1"}),
    pod("others", "overhead", [container()], "an overhead without a runtime class", overhead={"cpu": "1"}),
    claim("others", "grow", "1Gi", "standard"),
    {"name": "the claim is bound", "method": "PATCH",
     "path": "/api/v1/namespaces/others/persistentvolumeclaims/grow/status",
     "content_type": "application/merge-patch+json", "body": {"status": {"phase": "Bound"}}, "keep": ["status.phase"]},
    {"name": "a claim of a class that does not allow expansion cannot grow", "method": "PATCH",
     "path": "/api/v1/namespaces/others/persistentvolumeclaims/grow", "content_type": "application/merge-patch+json",
     "body": {"spec": {"resources": {"requests": {"storage": "2Gi"}}}}},
    {"name": "no client certificate for system:masters", "method": "POST",
     "path": "/apis/certificates.k8s.io/v1/certificatesigningrequests",
     "body": {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
              "metadata": {"name": "mallory"},
              "spec": {"request": _admin_csr(), "signerName": "kubernetes.io/kube-apiserver-client",
                       "usages": ["client auth"]}}},
]

SCENARIOS: dict[str, list[Step]] = {"privileged": PRIVILEGED, "limitranger": LIMIT_RANGER, "quota": QUOTA,
                                    "podsecurity": POD_SECURITY, "others": OTHER_PLUGINS}
