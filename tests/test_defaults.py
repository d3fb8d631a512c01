"""Defaults kube-apiserver 1.36 gives fields the golden fixtures leave out: object in, defaulted fields out."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from support import ServerProcess


def _pod(container: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", **container}], **spec}}


def _first(obj: dict[str, Any]) -> dict[str, Any]:
    return obj["spec"]["containers"][0]  # type: ignore[no-any-return]


def _placeholders(svc: dict[str, Any]) -> tuple[str, list[str], list[int]]:
    spec = svc["spec"]
    return spec["clusterIP"], spec["clusterIPs"], [p["nodePort"] for p in spec["ports"]]


CASES: list[tuple[str, str, dict[str, Any], Callable[[dict[str, Any]], Any], Any]] = [
    ("an image without a tag is always pulled", "pods", _pod({"image": "nginx"}),
     lambda o: _first(o)["imagePullPolicy"], "Always"),
    ("an image tagged latest is always pulled", "pods", _pod({"image": "example.com:5000/nginx:latest"}),
     lambda o: _first(o)["imagePullPolicy"], "Always"),
    ("an image pinned by digest is pulled if not present", "pods", _pod({"image": "nginx@sha256:" + "a" * 64}),
     lambda o: _first(o)["imagePullPolicy"], "IfNotPresent"),
    ("a volume that names no source is an emptyDir", "pods",
     _pod({"image": "a:1"}, volumes=[{"name": "scratch"}, {"name": "conf", "configMap": {"name": "c"}}]),
     lambda o: o["spec"]["volumes"],
     [{"name": "scratch", "emptyDir": {}}, {"name": "conf", "configMap": {"name": "c", "defaultMode": 420}}]),
    # The reference's answer (kube-apiserver 1.36.2): as a container's, by the reference's tag; a reference
    # that cannot be parsed, or none, is pulled if not present, and a policy given is kept.
    ("an image volume's pull policy is its reference's", "pods",
     _pod({"image": "a:1"}, volumes=[
         {"name": "a", "image": {"reference": "a.example.com"}}, {"name": "b", "image": {"reference": "r/app:1"}},
         {"name": "c", "image": {"reference": "Bad Ref"}}, {"name": "d", "image": {"reference": "r:latest",
                                                                                    "pullPolicy": "Never"}},
         {"name": "e", "image": {"reference": "r/app", "pullPolicy": ""}}]),
     lambda o: [v["image"]["pullPolicy"] for v in o["spec"]["volumes"]],
     ["Always", "IfNotPresent", "IfNotPresent", "Never", "Always"]),
    ("a probe gets its timings", "pods",
     _pod({"image": "a:1", "readinessProbe": {"httpGet": {"path": "/", "port": 80}}}),
     lambda o: _first(o)["readinessProbe"],
     {"httpGet": {"path": "/", "port": 80, "scheme": "HTTP"}, "timeoutSeconds": 1, "periodSeconds": 10,
      "successThreshold": 1, "failureThreshold": 3}),
    ("limits without requests become the requests, and the pod is Guaranteed", "pods",
     _pod({"image": "a:1", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}),
     lambda o: (_first(o)["resources"]["requests"], o["status"]["qosClass"]),
     ({"cpu": "1", "memory": "1Gi"}, "Guaranteed")),
    ("a configMap volume is readable by all, writable by none", "pods",
     _pod({"image": "a:1"}, volumes=[{"name": "v", "configMap": {"name": "cm"}}]),
     lambda o: o["spec"]["volumes"], [{"name": "v", "configMap": {"name": "cm", "defaultMode": 420}}]),
    ("a Recreate deployment has no rollingUpdate", "deployments",
     {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
      "spec": {"strategy": {"type": "Recreate"}, "selector": {"matchLabels": {"a": "b"}},
               "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "c"}]}}}},
     lambda o: (o["spec"]["strategy"], o["spec"]["replicas"]), ({"type": "Recreate"}, 1)),
    ("a job with parallelism only has no completions", "jobs",
     {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
      "spec": {"parallelism": 3, "template": {"spec": {"restartPolicy": "Never",
                                                       "containers": [{"name": "c", "image": "c"}]}}}},
     lambda o: ("completions" in o["spec"], o["spec"]["parallelism"], o["spec"]["manualSelector"]), (False, 3, False)),
    # A dry run's allocators draw nothing: the range's own address and ports above the range (kube-apiserver
    # 1.36.2 answers this create with the same values).
    ("a load balancer gets a cluster IP and node ports, placeholders on a dry run", "services",
     {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "lb"},
      "spec": {"type": "LoadBalancer", "ports": [{"name": "a", "port": 80}, {"name": "b", "port": 81}]}},
     lambda o: (_placeholders(o), o["spec"]["allocateLoadBalancerNodePorts"],
                o["spec"]["externalTrafficPolicy"], o["spec"]["ports"][1]["targetPort"]),
     (("10.96.0.0", ["10.96.0.0"], [32769, 32770]), True, "Cluster", 81)),
    ("stringData is folded into data, base64-encoded", "secrets",
     {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"k": "v"}, "data": {"x": "eQ=="}},
     lambda o: ("stringData" in o, o["data"], o["type"]), (False, {"k": "dg==", "x": "eQ=="}, "Opaque")),
    ("a policy with egress rules restricts egress too; ports are TCP", "networkpolicies",
     {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "np"},
      "spec": {"podSelector": {}, "egress": [{"ports": [{"port": 53}]}]}},
     lambda o: (o["spec"]["policyTypes"], o["spec"]["egress"][0]["ports"]),
     (["Ingress", "Egress"], [{"protocol": "TCP", "port": 53}])),
    ("a container's default limit is the max, its default request the limit, else the min", "limitranges",
     {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr"},
      "spec": {"limits": [{"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "64Mi"}}]}},
     lambda o: (o["spec"]["limits"][0]["default"], o["spec"]["limits"][0]["defaultRequest"]),
     ({"cpu": "2"}, {"cpu": "2", "memory": "64Mi"})),
    ("a replication controller selects and is labelled as its template", "replicationcontrollers",
     {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
      "spec": {"template": {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "c:1"}]}}}},
     lambda o: (o["spec"]["selector"], o["metadata"]["labels"], o["spec"]["replicas"]),
     ({"app": "x"}, {"app": "x"}, 1)),
    ("a webhook fails closed, matches equivalent requests and every scope", "validatingwebhookconfigurations",
     {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
      "metadata": {"name": "w"}, "webhooks": [{"name": "w.example.com", "sideEffects": "None",
                                               "admissionReviewVersions": ["v1"],
                                               "clientConfig": {"service": {"namespace": "default", "name": "w"}},
                                               "rules": [{"operations": ["CREATE"], "apiGroups": [""],
                                                          "apiVersions": ["v1"], "resources": ["pods"]}]}]},
     lambda o: {k: v for k, v in o["webhooks"][0].items() if k not in ("name", "sideEffects", "admissionReviewVersions")},
     {"clientConfig": {"service": {"namespace": "default", "name": "w", "port": 443}},
      "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"], "scope": "*"}],
      "failurePolicy": "Fail", "matchPolicy": "Equivalent", "namespaceSelector": {}, "objectSelector": {},
      "timeoutSeconds": 10}),
    ("downward API selectors, projected tokens and ephemeral claims get theirs", "pods",
     _pod({"image": "a:1"}, serviceAccountName="default", volumes=[
         {"name": "d", "downwardAPI": {"items": [
             {"path": "a", "fieldRef": {"fieldPath": "metadata.name"}},
             {"path": "b", "resourceFieldRef": {"containerName": "c", "resource": "limits.cpu", "divisor": "1000m"}}]}},
         {"name": "p", "projected": {"sources": [
             {"serviceAccountToken": {"path": "t"}},
             {"downwardAPI": {"items": [{"path": "x", "fieldRef": {"apiVersion": "", "fieldPath": "metadata.uid"}}]}},
             {"serviceAccountToken": {"path": "u", "expirationSeconds": None}}]}},
         {"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {
             "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1.5Gi"}}}}}}]),
     lambda o: o["spec"]["volumes"],
     [{"name": "d", "downwardAPI": {"items": [
         {"path": "a", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}},
         {"path": "b", "resourceFieldRef": {"containerName": "c", "resource": "limits.cpu", "divisor": "1"}}],
         "defaultMode": 420}},
      {"name": "p", "projected": {"sources": [
          {"serviceAccountToken": {"expirationSeconds": 3600, "path": "t"}},
          {"downwardAPI": {"items": [{"path": "x", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.uid"}}]}},
          {"serviceAccountToken": {"expirationSeconds": 3600, "path": "u"}}], "defaultMode": 420}},
      {"name": "e", "ephemeral": {"volumeClaimTemplate": {"metadata": {}, "spec": {
          "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1536Mi"}},
          "volumeMode": "Filesystem"}}}}]),
    ("a priority level queues as upstream's defaults say", "prioritylevelconfigurations",
     {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration", "metadata": {"name": "pl"},
      "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Queue", "queuing": {}}}}},
     lambda o: o["spec"]["limited"],
     {"nominalConcurrencyShares": 30, "limitResponse": {"type": "Queue", "queuing": {
         "queues": 64, "handSize": 8, "queueLengthLimit": 50}}, "lendablePercent": 0}),
]
_GROUPS = {"pods": "/api/v1", "services": "/api/v1", "secrets": "/api/v1", "deployments": "/apis/apps/v1",
           "jobs": "/apis/batch/v1", "networkpolicies": "/apis/networking.k8s.io/v1", "limitranges": "/api/v1",
           "replicationcontrollers": "/api/v1",
           "validatingwebhookconfigurations": "/apis/admissionregistration.k8s.io/v1",
           "prioritylevelconfigurations": "/apis/flowcontrol.apiserver.k8s.io/v1"}
_CLUSTER_SCOPED = {"validatingwebhookconfigurations", "prioritylevelconfigurations"}


@pytest.mark.parametrize(("case", "resource", "obj", "pick", "expected"), CASES, ids=[c[0] for c in CASES])
def test_defaults(shared_server: ServerProcess, case: str, resource: str, obj: dict[str, Any],
                  pick: Callable[[dict[str, Any]], Any], expected: Any) -> None:
    where = "" if resource in _CLUSTER_SCOPED else "/namespaces/default"
    status, created = shared_server.json("POST", f"{_GROUPS[resource]}{where}/{resource}?dryRun=All", obj)
    assert status == 201, created
    assert pick(created) == expected


@pytest.mark.parametrize("path, body, change", [
    ("/api/v1/namespaces/default/podtemplates",
     {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "gen"},
      "template": {"spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}},
     {"template": {"spec": {"containers": [{"name": "c", "image": "nginx:2"}]}}}),
    ("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
     {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
      "metadata": {"name": "gen"}, "webhooks": [{"name": "a.example.com", "sideEffects": "None",
                                                 "admissionReviewVersions": ["v1"],
                                                 "clientConfig": {"url": "https://a.example.com"}}]},
     {"webhooks": [{"name": "a.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
                    "clientConfig": {"url": "https://a.example.com"}, "timeoutSeconds": 3}]}),
])
def test_generation_follows_the_desired_state_of_kinds_without_a_spec(server: ServerProcess, path: str,
                                                                       body: dict[str, Any],
                                                                       change: dict[str, Any]) -> None:
    status, created = server.json("POST", path, body)
    assert status == 201 and created["metadata"]["generation"] == 1
    status, relabeled = server.json("PATCH", f"{path}/gen", {"metadata": {"labels": {"a": "b"}}},
                                    content_type="application/merge-patch+json")
    assert status == 200 and relabeled["metadata"]["generation"] == 1
    status, changed = server.json("PATCH", f"{path}/gen", change, content_type="application/merge-patch+json")
    assert status == 200 and changed["metadata"]["generation"] == 2


@pytest.mark.parametrize("path, body, written", [
    ("/apis/coordination.k8s.io/v1/namespaces/default/leases",
     {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "empty"}}, {"spec": {}}),
    ("/apis/scheduling.k8s.io/v1/priorityclasses",
     {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "zero"}},
     {"value": 0, "preemptionPolicy": "PreemptLowerPriority"}),
    ("/apis/storage.k8s.io/v1/volumeattachments",
     {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": "va"},
      "spec": {"attacher": "a.example.com", "nodeName": "n", "source": {"persistentVolumeName": "pv"}}},
     {"status": {"attached": False}}),
    # No omitempty on rules: unset, or empty (which the protobuf round trip makes nil), they read null.
    ("/apis/rbac.authorization.k8s.io/v1/clusterroles",
     {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "unset"}},
     {"rules": None}),
    ("/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
     {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "empty"}, "rules": []},
     {"rules": None}),
])
def test_fields_go_always_writes(shared_server: ServerProcess, path: str, body: dict[str, Any],
                                 written: dict[str, Any]) -> None:
    status, created = shared_server.json("POST", path + "?dryRun=All", body)
    assert status == 201
    assert {k: created[k] for k in written} == written


_GROUP_POD = {"metadata": {"labels": {"app": "sg"}},
              "spec": {"schedulingGroup": {"podGroupName": "g"}, "containers": [{"name": "c", "image": "nginx:1"}]}}
_GROUP_JOB_POD = {"spec": {**_GROUP_POD["spec"], "restartPolicy": "Never"}}
_SELECTOR = {"matchLabels": {"app": "sg"}}


@pytest.mark.parametrize("path, body, template", [
    ("/apis/apps/v1/namespaces/default/deployments", {"apiVersion": "apps/v1", "kind": "Deployment",
     "spec": {"selector": _SELECTOR, "template": _GROUP_POD}}, ("spec", "template")),
    ("/apis/apps/v1/namespaces/default/replicasets", {"apiVersion": "apps/v1", "kind": "ReplicaSet",
     "spec": {"selector": _SELECTOR, "template": _GROUP_POD}}, ("spec", "template")),
    ("/apis/apps/v1/namespaces/default/statefulsets", {"apiVersion": "apps/v1", "kind": "StatefulSet",
     "spec": {"selector": _SELECTOR, "template": _GROUP_POD}}, ("spec", "template")),
    ("/apis/apps/v1/namespaces/default/daemonsets", {"apiVersion": "apps/v1", "kind": "DaemonSet",
     "spec": {"selector": _SELECTOR, "template": _GROUP_POD}}, ("spec", "template")),
    ("/apis/batch/v1/namespaces/default/jobs", {"apiVersion": "batch/v1", "kind": "Job",
     "spec": {"template": _GROUP_JOB_POD}}, ("spec", "template")),
    ("/apis/batch/v1/namespaces/default/cronjobs", {"apiVersion": "batch/v1", "kind": "CronJob",
     "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": _GROUP_JOB_POD}}}},
     ("spec", "jobTemplate", "spec", "template")),
])
def test_workload_templates_drop_fields_of_disabled_features(shared_server: ServerProcess, path: str,
                                                             body: dict[str, Any], template: tuple[str, ...]) -> None:
    """DropDisabledTemplateFields in each workload's PrepareForCreate: GenericWorkload is off at 1.36, so a
    template's schedulingGroup is not stored; managed fields, taken before, still name it (kube-apiserver
    1.36.2 answers both so)."""
    status, created = shared_server.json("POST", path + "?dryRun=All", {**body, "metadata": {"name": "sg"}})
    assert status == 201, created
    node = created
    for key in template:
        node = node[key]
    assert "schedulingGroup" not in node["spec"] and node["spec"]["containers"][0]["name"] == "c"
    assert "f:schedulingGroup" in str(created["metadata"]["managedFields"])
