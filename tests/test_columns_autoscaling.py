"""The HorizontalPodAutoscaler printer's TARGETS for v2 objects and for v1 objects as upstream converts them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from columns_golden import cells

from columns.autoscaling import HORIZONTAL_POD_AUTOSCALERS as HPAS


def v2(metrics: list[dict[str, Any]], current: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"apiVersion": "autoscaling/v2", "spec": {"metrics": metrics}, "status": {"currentMetrics": current}}


def resource(name: str, target: dict[str, Any]) -> dict[str, Any]:
    return {"type": "Resource", "resource": {"name": name, "target": target}}


def current_resource(name: str, current: dict[str, Any]) -> dict[str, Any]:
    return {"type": "Resource", "resource": {"name": name, "current": current}}


@pytest.mark.parametrize(("hpa", "targets"), [
    (v2([]), "<none>"),
    (v2([resource("memory", {"type": "Utilization"})]), "memory: <unknown>/<auto>"),
    (v2([resource("cpu", {"averageUtilization": 60})], [current_resource("cpu", {"averageUtilization": 75})]),
     "cpu: 75%/60%"),
    # A reported status without the value the target reads is Go's nil quantity.
    (v2([resource("memory", {"averageValue": "1Gi"})], [current_resource("memory", {"averageUtilization": 5})]),
     "memory: <nil>/1Gi"),
    (v2([{"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "app",
                                                             "target": {"averageUtilization": 60}}}],
        [{"type": "ContainerResource", "containerResource": {"name": "cpu", "current": {"averageUtilization": 40}}}]),
     "cpu: 40%/60%"),
    (v2([{"type": "External", "external": {"metric": {"name": "q"}, "target": {"value": "5"}}}]), "<unknown>/5"),
    (v2([{"type": "External", "external": {"metric": {"name": "q"}, "target": {"value": "5"}}}],
        [{"type": "External", "external": {"current": {"value": "3000m"}}}]), "3/5"),
    (v2([{"type": "Object", "object": {"target": {"averageValue": "2"}}}],
        [{"type": "Object", "object": {"current": {"value": "9"}}}]), "<unknown>/2 (avg)"),
    (v2([{"type": "Pods", "pods": {"target": {"averageValue": "10240Mi"}}}]), "<unknown>/10Gi"),
    (v2([{"type": "Bogus"}, resource("cpu", {"averageUtilization": 1}), resource("memory", {"averageValue": "1"})]),
     "<unknown type>, cpu: <unknown>/1% + 1 more..."),
], ids=str)
def test_v2_targets(hpa: dict[str, Any], targets: str) -> None:
    assert cells(HPAS, hpa)[2] == targets


def v1(spec: dict[str, Any], status: dict[str, Any] | None = None,
       annotations: dict[str, Any] | None = None) -> dict[str, Any]:
    encoded = {key: json.dumps(value) if not isinstance(value, str) else value
               for key, value in (annotations or {}).items()}
    return {"apiVersion": "autoscaling/v1", "metadata": {"annotations": encoded}, "spec": spec,
            "status": status or {}}


METRICS = "autoscaling.alpha.kubernetes.io/metrics"
CURRENT = "autoscaling.alpha.kubernetes.io/current-metrics"


@pytest.mark.parametrize(("hpa", "targets"), [
    # v1 without any target scales on 80% CPU.
    (v1({}), "cpu: <unknown>/80%"),
    (v1({"targetCPUUtilizationPercentage": 50}, {"currentCPUUtilizationPercentage": 20}), "cpu: 20%/50%"),
    # The annotation's metrics come first, the CPU target after them.
    (v1({"targetCPUUtilizationPercentage": 50}, {},
        {METRICS: [{"type": "Pods", "pods": {"metricName": "rps", "targetAverageValue": "1k"}}]}),
     "<unknown>/1k, cpu: <unknown>/50%"),
    # The current-metrics annotation replaces the CPU status, and v1's value fields are never nil.
    (v1({}, {"currentCPUUtilizationPercentage": 20},
        {METRICS: [{"type": "Object", "object": {"metricName": "m"}}],
         CURRENT: [{"type": "Object", "object": {"metricName": "m"}}]}), "0/0"),
    (v1({}, {}, {METRICS: [{"type": "External", "external": {"metricName": "q", "targetAverageValue": "30"}}],
                 CURRENT: [{"type": "External", "external": {"metricName": "q", "currentAverageValue": "12"}}]}),
     "12/30 (avg)"),
    (v1({}, {}, {METRICS: [{"type": "Resource", "resource": {"name": "memory", "targetAverageValue": "1Gi"}}],
                 CURRENT: [{"type": "Resource", "resource": {"name": "memory", "currentAverageUtilization": 3}}]}),
     "memory: 0/1Gi"),
    # A malformed annotation is read as absent.
    (v1({}, {}, {METRICS: "[{"}), "cpu: <unknown>/80%"),
], ids=str)
def test_v1_targets_as_converted(hpa: dict[str, Any], targets: str) -> None:
    assert cells(HPAS, hpa)[2] == targets


def test_reference_and_replica_cells() -> None:
    hpa = {"spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5},
           "status": {"currentReplicas": 2}}
    assert cells(HPAS, hpa)[1:6] == ["Deployment/web", "<none>", "<unset>", 5, 2]
