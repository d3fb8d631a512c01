"""The horizontal-pod-autoscaler scales a Deployment from simulated load: pods annotated to use more CPU
than their target make it grow (at most doubling, at least 4 at a time, up to maxReplicas), and once
they use little it shrinks as its behavior lets it."""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest
from support import ServerProcess, run_kubectl, wait_for

USAGE = "fastkube.io/simulated-usage"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("hpa")),
                       extra_args=["--controllers=*", "--simulate-nodes", "3",
                                   "--horizontal-pod-autoscaler-sync-period", "1"]) as proc:
        yield proc


def hpa(server: ServerProcess, name: str) -> Any:
    return json.loads(run_kubectl(server, "get", "hpa.v2.autoscaling", name, "-o", "json").stdout)


def condition(server: ServerProcess, name: str, kind: str) -> Any:
    return next((c for c in hpa(server, name).get("status", {}).get("conditions", ()) if c["type"] == kind), None)


def replicas(server: ServerProcess, name: str) -> int:
    return int(json.loads(run_kubectl(server, "get", "deployment", name, "-o", "json").stdout)["spec"]["replicas"])


def events(server: ServerProcess, name: str) -> str:
    return run_kubectl(server, "get", "events", "--field-selector", f"involvedObject.name={name}").stdout


# The autoscaler's arithmetic over simulated metrics, settled above the store: once, not again on etcd.
@pytest.mark.store_once
def test_simulated_load_scales_a_deployment_up_then_down(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "deployment", "api", "--image=nginx", "--replicas=2")
    run_kubectl(cluster, "set", "resources", "deployment", "api", "--requests=cpu=100m")
    run_kubectl(cluster, "rollout", "status", "deployment/api", "--timeout=60s")
    run_kubectl(cluster, "autoscale", "deployment", "api", "--cpu-percent=50", "--min=1", "--max=6")
    # Pods use half their requests unless told otherwise: at the target, nothing to do.
    active = wait_for("a replica count computed", lambda: (c := condition(cluster, "api", "ScalingActive"))
                      and c["status"] == "True" and c)
    assert active["message"] == ("the HPA was able to successfully calculate a replica count from cpu resource "
                                 "utilization (percentage of request)")
    assert run_kubectl(cluster, "get", "hpa", "api", "--no-headers").stdout.split()[2] == "cpu:"
    status = hpa(cluster, "api")["status"]
    assert status["currentMetrics"] == [{"type": "Resource", "resource": {
        "name": "cpu", "current": {"averageUtilization": 50, "averageValue": "50m"}}}]
    assert (status["currentReplicas"], status["desiredReplicas"]) == (2, 2)

    run_kubectl(cluster, "annotate", "pods", "-l", "app=api", f"{USAGE}=cpu=200m")
    # 400% of the target wants 8; without a behavior the first step is at most max(2 x 2, 4) = 4.
    assert wait_for("the first rescale", lambda: "New size: 4; reason: cpu resource utilization (percentage of "
                    "request) above target" in events(cluster, "api"))
    wait_for("maxReplicas", lambda: replicas(cluster, "api") == 6, seconds=90)
    limited = wait_for("the limit said", lambda: (c := condition(cluster, "api", "ScalingLimited"))
                       and c["status"] == "True" and c)
    assert (limited["reason"], limited["message"]) == (
        "TooManyReplicas", "the desired replica count is more than the maximum replica count")

    # Without a scale-down window (default 300 s), a quiet deployment shrinks at the next evaluations.
    run_kubectl(cluster, "patch", "hpa", "api", "--type=merge", "-p", json.dumps(
        {"spec": {"behavior": {"scaleDown": {"stabilizationWindowSeconds": 0}}}}))
    run_kubectl(cluster, "annotate", "pods", "-l", "app=api", "--overwrite", f"{USAGE}=cpu=5m")
    wait_for("a scale down", lambda: replicas(cluster, "api") < 6, seconds=90)
    assert "reason: All metrics below target" in events(cluster, "api")
    assert hpa(cluster, "api")["spec"]["behavior"]["scaleUp"]["policies"] == [
        {"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}]


def test_a_target_that_does_not_exist_is_reported(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "-f", "-", stdin=json.dumps({
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "ghost"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "ghost"},
                 "maxReplicas": 3}}))
    able = wait_for("the condition", lambda: condition(cluster, "ghost", "AbleToScale"))
    assert (able["status"], able["reason"], able["message"]) == (
        "False", "FailedGetScale", ("the HPA controller was unable to get the target's current scale: "
                                    'deployments.apps "ghost" not found'))
