"""managedFields of objects written through a version other than the one they are stored in
(HorizontalPodAutoscalers through autoscaling/v1, Events through events.k8s.io/v1), as upstream's
field manager records them: the entry names the version the request used and its fields are that
version's (a CPU target is `targetCPUUtilizationPercentage`, the atomic v1 `scaleTargetRef` one
leaf); a write through the other version takes away only what it changed as each manager's version
shows it."""

from __future__ import annotations

import json
from typing import Any

from kubernetes import client, config
from support import ServerProcess, run_kubectl

V1_MANIFEST = """\
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: web
  namespace: default
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
  targetCPUUtilizationPercentage: 60
"""
V1_SPEC_FIELDS = {"f:maxReplicas": {}, "f:minReplicas": {}, "f:scaleTargetRef": {},
                  "f:targetCPUUtilizationPercentage": {}}


def _entries(server: ServerProcess, version: str, name: str = "web") -> list[dict[str, Any]]:
    status, hpa = server.json("GET", f"/apis/autoscaling/{version}/namespaces/default/horizontalpodautoscalers/{name}")
    assert status == 200, hpa
    return [{k: v for k, v in e.items() if k != "time"} for e in hpa["metadata"].get("managedFields") or ()]


def test_kubectl_apply_through_v1_is_recorded_in_v1_terms(server: ServerProcess) -> None:
    run_kubectl(server, "apply", "-f", "-", stdin=V1_MANIFEST)
    want = [{"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "autoscaling/v1",
             "fieldsType": "FieldsV1",
             "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}}},
                          "f:spec": V1_SPEC_FIELDS}}]
    # The record is the object's, whichever version reads it.
    assert _entries(server, "v1") == want
    assert _entries(server, "v2") == want


def test_a_write_through_each_version_takes_only_what_it_changed(server: ServerProcess) -> None:
    run_kubectl(server, "apply", "-f", "-", stdin=V1_MANIFEST)
    run_kubectl(server, "patch", "horizontalpodautoscalers.v2.autoscaling", "web", "--type=merge",
                "-p", '{"spec":{"maxReplicas":7}}', "--field-manager=sizer")
    run_kubectl(server, "patch", "horizontalpodautoscalers.v1.autoscaling", "web", "--type=merge",
                "-p", '{"spec":{"targetCPUUtilizationPercentage":70}}', "--field-manager=tuner")
    entries = {e["manager"]: e for e in _entries(server, "v1")}
    assert list(entries) == ["kubectl-client-side-apply", "sizer", "tuner"]
    assert entries["kubectl-client-side-apply"]["fieldsV1"]["f:spec"] == {"f:minReplicas": {}, "f:scaleTargetRef": {}}
    assert entries["sizer"]["apiVersion"] == "autoscaling/v2"
    assert entries["sizer"]["fieldsV1"] == {"f:spec": {"f:maxReplicas": {}}}
    assert entries["tuner"]["apiVersion"] == "autoscaling/v1"
    assert entries["tuner"]["fieldsV1"] == {"f:spec": {"f:targetCPUUtilizationPercentage": {}}}


def test_a_v2_write_of_the_metrics_takes_the_v1_cpu_target(server: ServerProcess) -> None:
    run_kubectl(server, "apply", "-f", "-", stdin=V1_MANIFEST)
    metrics = [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization",
                                                                          "averageUtilization": 80}}}]
    run_kubectl(server, "patch", "horizontalpodautoscalers.v2.autoscaling", "web", "--type=merge",
                "-p", json.dumps({"spec": {"metrics": metrics}}), "--field-manager=metrics-owner")
    entries = {e["manager"]: e for e in _entries(server, "v2")}
    assert "f:targetCPUUtilizationPercentage" not in entries["kubectl-client-side-apply"]["fieldsV1"]["f:spec"]
    assert entries["metrics-owner"]["apiVersion"] == "autoscaling/v2"
    assert entries["metrics-owner"]["fieldsV1"] == {"f:spec": {"f:metrics": {}}}


def test_the_python_client_creates_and_replaces_through_v1(server: ServerProcess) -> None:
    config.load_kube_config(config_file=server.kubeconfig)
    api = client.AutoscalingV1Api()
    body = client.V1HorizontalPodAutoscaler(
        metadata=client.V1ObjectMeta(name="py"),
        spec=client.V1HorizontalPodAutoscalerSpec(
            scale_target_ref=client.V1CrossVersionObjectReference(api_version="apps/v1", kind="Deployment", name="py"),
            max_replicas=4, target_cpu_utilization_percentage=50))
    created = api.create_namespaced_horizontal_pod_autoscaler("default", body, field_manager="py-client")
    [entry] = created.metadata.managed_fields
    assert (entry.manager, entry.operation, entry.api_version) == ("py-client", "Update", "autoscaling/v1")
    # minReplicas was defaulted before the field manager saw the object: the creator owns it (an Update).
    assert entry.fields_v1 == {"f:spec": V1_SPEC_FIELDS}
    created.spec.max_replicas = 6
    replaced = api.replace_namespaced_horizontal_pod_autoscaler("py", "default", created, field_manager="resizer")
    by_manager = {e.manager: e for e in replaced.metadata.managed_fields}
    assert by_manager["resizer"].api_version == "autoscaling/v1"
    assert by_manager["resizer"].fields_v1 == {"f:spec": {"f:maxReplicas": {}}}
    assert "f:maxReplicas" not in by_manager["py-client"].fields_v1["f:spec"]


def test_an_events_k8s_io_write_is_recorded_in_its_own_field_names(server: ServerProcess) -> None:
    event = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "started"},
             "eventTime": "2026-12-01T01:00:00.000000Z", "reportingController": "example.com/runner",
             "reportingInstance": "runner-1", "action": "Start", "reason": "Started", "type": "Normal",
             "regarding": {"kind": "Pod", "name": "web", "namespace": "default"}, "note": "started"}
    status, created = server.json("POST", "/apis/events.k8s.io/v1/namespaces/default/events?fieldManager=runner",
                                  event)
    assert status == 201, created
    [entry] = created["metadata"]["managedFields"]
    assert (entry["manager"], entry["apiVersion"]) == ("runner", "events.k8s.io/v1")
    # Sorted, as structured-merge-diff writes a field set; the atomic object reference is one leaf.
    assert list(entry["fieldsV1"].items()) == [(f, {}) for f in (
        "f:action", "f:eventTime", "f:note", "f:reason", "f:regarding", "f:reportingController",
        "f:reportingInstance", "f:type")]
