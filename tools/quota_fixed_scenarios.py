"""Hand-written quota sequences for what tools/capture_quota_random.py's draw seldom or never reaches,
replayed after the drawn namespaces in the same format: each is a namespace's quotas and its writes.

- A claim's status write is charged by admission as soon as it is made, past the quota's limit (a
  status write is not held to it), and the next claim is refused for it. A quota limiting a device
  class's implicit resource or an extended one counts them for pods.
- Quotas ValidateResourceQuota refuses: a scope that cannot limit a resource, operators a scope does
  not take, scopes that contradict each other. Beside them a NotTerminating quota, left by a pod that
  is given a deadline (the controller recounts when a pod's Terminating scope changes).
- A namespace with no quota: every write is let through, whatever it would use.
"""

from __future__ import annotations

from typing import Any

JSON = "application/json"
MERGE = "application/merge-patch+json"
Step = tuple[str, str, str, dict[str, Any] | None, str]


def _quota(name: str, hard: dict[str, str], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name}, "spec": {"hard": hard, **spec}}


def _claim(name: str, storage: str) -> Step:
    return ("POST", "persistentvolumeclaims", name, {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "silver",
                 "resources": {"requests": {"storage": storage}}}}, JSON)


def _pod(name: str, limits: dict[str, str] | None = None, deadline: int | None = None) -> Step:
    container: dict[str, Any] = {"name": "c0", "image": "registry.example.com/app:1"}
    if limits:
        container["resources"] = {"limits": limits}
    spec: dict[str, Any] = {"containers": [container]}
    if deadline is not None:
        spec["activeDeadlineSeconds"] = deadline
    return "POST", "pods", name, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}, JSON


_STATUS_CHARGED: tuple[list[dict[str, Any]], list[Step]] = (
    [_quota("st", {"requests.storage": "5Gi", "requests.deviceclass.resource.kubernetes.io/gpu-class": "1",
                   "requests.example.com/foo": "1", "pods": "3"})],
    [_claim("c1", "1Gi"),
     ("PATCH", "persistentvolumeclaims", "c1/status", {"status": {"allocatedResources": {"storage": "7Gi"}}}, MERGE),
     _claim("c2", "1Gi"),
     _pod("p1", {"example.com/foo": "1"}),
     _pod("p2", {"example.com/foo": "1"}),
     _pod("p3")],
)

_INVALID_AND_SCOPE_LEFT: tuple[list[dict[str, Any]], list[Step]] = (
    [_quota("best-effort-cpu", {"requests.cpu": "1"}, scopes=["BestEffort"]),
     _quota("exists-with-values", {"pods": "1"}, scopeSelector={"matchExpressions": [
         {"scopeName": "PriorityClass", "operator": "Exists", "values": ["pc-high"]}]}),
     _quota("terminating-in", {"pods": "1"}, scopeSelector={"matchExpressions": [
         {"scopeName": "Terminating", "operator": "In", "values": ["x"]}]}),
     _quota("attributes-for-pods", {"pods": "1"}, scopeSelector={"matchExpressions": [
         {"scopeName": "VolumeAttributesClass", "operator": "Exists"}]}),
     _quota("both-ways", {"pods": "1"}, scopes=["Terminating", "NotTerminating"]),
     _quota("services-scoped", {"services": "1"}, scopes=["NotBestEffort"]),
     _quota("long-running", {"pods": "1", "count/pods": "3"}, scopes=["NotTerminating"])],
    [_pod("p1"),
     _pod("p2", deadline=600),
     _pod("p3"),
     ("PATCH", "pods", "p1", {"spec": {"activeDeadlineSeconds": 60}}, MERGE),
     _pod("p4"),
     _pod("p5", deadline=30),
     _pod("p6", deadline=30)],
)

# No quota at all: quotaEvaluator.checkAttributes lets every write through before measuring what it uses.
_NO_QUOTA: tuple[list[dict[str, Any]], list[Step]] = (
    [],
    [_pod("p1", {"cpu": "2", "memory": "1Gi", "example.com/foo": "3"}),
     _claim("c1", "2Gi"),
     ("PATCH", "persistentvolumeclaims", "c1/status", {"status": {"allocatedResources": {"storage": "9Gi"}}}, MERGE),
     ("POST", "services", "lb", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "lb"},
                                 "spec": {"type": "LoadBalancer", "selector": {"app": "x"}, "ports": [{"port": 80}]}},
      JSON),
     ("POST", "pods", "p2?dryRun=All", _pod("p2", {"cpu": "1"})[3], JSON),
     ("PATCH", "pods", "p1", {"spec": {"activeDeadlineSeconds": 60}}, MERGE)],
)

FIXED = [_STATUS_CHARGED, _INVALID_AND_SCOPE_LEFT, _NO_QUOTA]
