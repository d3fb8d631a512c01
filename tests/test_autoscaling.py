"""Autoscaling: HPAs, one stored object served through autoscaling/v2 and v1 as upstream converts; the
scale subresource of ReplicationControllers, whose selector is a plain label map."""

from __future__ import annotations

import json

from support import ServerProcess

V2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
V1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
PREFIX = "autoscaling.alpha.kubernetes.io/"
API = {
    "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "api"},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "api"},
             "minReplicas": 2, "maxReplicas": 9,
             "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization",
                                                                                    "averageUtilization": 70}}},
                         {"type": "Pods", "pods": {"metric": {"name": "rps"},
                                                   "target": {"type": "AverageValue", "averageValue": "1k"}}}],
             "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}},
}


def test_v2_objects_read_through_v1_carry_the_rest_in_annotations(server: ServerProcess) -> None:
    assert server.json("POST", V2, API)[0] == 201
    status, v1 = server.json("GET", f"{V1}/api")
    assert status == 200 and v1["apiVersion"] == "autoscaling/v1"
    assert v1["spec"] == {"scaleTargetRef": {"kind": "Deployment", "name": "api", "apiVersion": "apps/v1"},
                          "minReplicas": 2, "maxReplicas": 9, "targetCPUUtilizationPercentage": 70}
    annotations = v1["metadata"]["annotations"]
    assert json.loads(annotations[PREFIX + "metrics"]) == [
        {"type": "Pods", "pods": {"metricName": "rps", "targetAverageValue": "1k"}}]
    # The defaulted behavior, as Go writes the internal type.
    assert json.loads(annotations[PREFIX + "behavior"]) == {
        "ScaleUp": {"StabilizationWindowSeconds": 0, "SelectPolicy": "Max", "Tolerance": None, "Policies": [
            {"Type": "Pods", "Value": 4, "PeriodSeconds": 15}, {"Type": "Percent", "Value": 100, "PeriodSeconds": 15}]},
        "ScaleDown": {"StabilizationWindowSeconds": 60, "SelectPolicy": "Max", "Tolerance": None, "Policies": [
            {"Type": "Percent", "Value": 100, "PeriodSeconds": 15}]}}
    assert v1["status"] == {"currentReplicas": 0, "desiredReplicas": 0}


def test_a_v1_write_keeps_what_only_v2_can_say(server: ServerProcess) -> None:
    assert server.json("POST", V2, API)[0] == 201
    _, v1 = server.json("GET", f"{V1}/api")
    v1["spec"]["maxReplicas"] = 12
    status, written = server.json("PUT", f"{V1}/api", v1)
    assert status == 200 and written["spec"]["maxReplicas"] == 12
    _, v2 = server.json("GET", f"{V2}/api")
    assert v2["spec"]["maxReplicas"] == 12
    assert v2["spec"]["metrics"] == [API["spec"]["metrics"][1], API["spec"]["metrics"][0]]  # type: ignore[index]
    assert v2["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"] == 60
    assert not any(k.startswith(PREFIX) for k in v2["metadata"].get("annotations") or {})


def test_a_v1_object_gets_v2_defaults(server: ServerProcess) -> None:
    body = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                     "maxReplicas": 4}}
    status, created = server.json("POST", V1, body)
    assert status == 201 and created["spec"]["minReplicas"] == 1
    _, v2 = server.json("GET", f"{V2}/web")
    assert v2["spec"]["metrics"] == [{"type": "Resource", "resource": {
        "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]
    assert server.json("GET", f"{V1}/web")[1]["spec"]["targetCPUUtilizationPercentage"] == 80


def test_a_replication_controller_scales(server: ServerProcess) -> None:
    path = "/api/v1/namespaces/default/replicationcontrollers"
    body = {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
            "spec": {"replicas": 2, "template": {"metadata": {"labels": {"app": "rc", "tier": "a"}},
                                                 "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}}}
    status, created = server.json("POST", path, body)
    assert status == 201 and created["spec"]["selector"] == {"app": "rc", "tier": "a"}
    status, scale = server.json("GET", path + "/rc/scale")
    assert status == 200
    assert (scale["spec"], scale["status"]) == ({"replicas": 2}, {"replicas": 0, "selector": "app=rc,tier=a"})
    status, scale = server.json("PATCH", path + "/rc/scale", {"spec": {"replicas": 5}},
                                content_type="application/merge-patch+json")
    assert status == 200 and scale["spec"] == {"replicas": 5}
    assert server.json("GET", path + "/rc")[1]["spec"]["replicas"] == 5
