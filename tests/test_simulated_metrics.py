"""`metrics.k8s.io` from the simulated usage of pods on simulated nodes: discoverable, so `kubectl top pods`
and `kubectl top nodes` work; usage is half of what containers request unless a pod's annotation says
otherwise; the bare API server (`--controllers=-*`) serves no such group."""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest
from support import ServerProcess, run_kubectl, wait_for

USAGE = "fastkube.io/simulated-usage"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("metrics")),
                       extra_args=["--controllers=*", "--simulate-nodes", "3"]) as proc:
        yield proc


def top(server: ServerProcess, *args: str) -> dict[str, list[str]]:
    """kubectl top's rows by their first column, once it has numbers for every row asked for."""
    out = run_kubectl(server, "top", *args, "--no-headers").stdout
    return {line.split()[0]: line.split()[1:] for line in out.splitlines()}


def pods_running(server: ServerProcess, selector: str, count: int) -> Any:
    listed = json.loads(run_kubectl(server, "get", "pods", "-l", selector, "-o", "json").stdout)["items"]
    running = [p for p in listed if p["status"].get("phase") == "Running"]
    return running if len(running) == count else None


def test_the_metrics_group_is_discoverable(cluster: ServerProcess) -> None:
    resources = run_kubectl(cluster, "api-resources", "--api-group=metrics.k8s.io", "--no-headers").stdout
    assert [line.split() for line in resources.splitlines()] == [
        ["nodes", "metrics.k8s.io/v1beta1", "false", "NodeMetrics"],
        ["pods", "metrics.k8s.io/v1beta1", "true", "PodMetrics"]]
    # as metrics-server's APIService, which setup scripts wait for
    run_kubectl(cluster, "wait", "--for=condition=Available", "apiservice/v1beta1.metrics.k8s.io", "--timeout=10s")
    spec = json.loads(run_kubectl(cluster, "get", "apiservice", "v1beta1.metrics.k8s.io", "-o", "json").stdout)["spec"]
    assert (spec["group"], spec["version"], spec["groupPriorityMinimum"], spec["versionPriority"]) == (
        "metrics.k8s.io", "v1beta1", 100, 100)


def test_kubectl_top_pods_shows_half_the_requests_then_the_annotated_usage(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "deployment", "shop", "--image=nginx", "--replicas=2")
    run_kubectl(cluster, "set", "resources", "deployment", "shop", "--requests=cpu=200m,memory=128Mi")
    run_kubectl(cluster, "rollout", "status", "deployment/shop", "--timeout=60s")
    pods = wait_for("two running pods", lambda: pods_running(cluster, "app=shop", 2))
    rows = wait_for("metrics of both", lambda: (r := top(cluster, "pods", "-l", "app=shop")) and len(r) == 2 and r)
    assert sorted(rows.values()) == [["100m", "64Mi"], ["100m", "64Mi"]]
    busy = pods[0]["metadata"]["name"]
    run_kubectl(cluster, "annotate", "pod", busy, f"{USAGE}=cpu=750m,memory=300Mi")
    rows = top(cluster, "pods", "-l", "app=shop")
    assert rows[busy] == ["750m", "300Mi"]
    metrics = json.loads(run_kubectl(cluster, "get", "--raw",
                                     f"/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/{busy}").stdout)
    assert metrics["kind"] == "PodMetrics" and metrics["window"] == "10s"
    assert metrics["containers"] == [{"name": "nginx", "usage": {"cpu": "750000000n", "memory": "307200Ki"}}]
    assert metrics["metadata"]["labels"]["app"] == "shop"


def test_kubectl_top_nodes_adds_up_the_pods_on_each_node(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "run", "heavy", "--image=nginx", f"--annotations={USAGE}=cpu=2,memory=1Gi",
                "--overrides", json.dumps({"spec": {"nodeName": "node-3"}}))
    wait_for("heavy running", lambda: pods_running(cluster, "run=heavy", 1))
    nodes = json.loads(run_kubectl(cluster, "get", "--raw", "/apis/metrics.k8s.io/v1beta1/nodes").stdout)
    assert [n["metadata"]["name"] for n in nodes["items"]] == ["node-1", "node-2", "node-3"]
    pods = json.loads(run_kubectl(cluster, "get", "--raw", "/apis/metrics.k8s.io/v1beta1/pods").stdout)["items"]
    on_node_3 = {p["metadata"]["name"] for p in json.loads(run_kubectl(
        cluster, "get", "pods", "-A", "--field-selector", "spec.nodeName=node-3", "-o", "json").stdout)["items"]}
    cpu = sum(int(c["usage"]["cpu"][:-1]) for p in pods if p["metadata"]["name"] in on_node_3 for c in p["containers"])
    node_3 = next(n for n in nodes["items"] if n["metadata"]["name"] == "node-3")
    assert node_3["usage"]["cpu"] == f"{cpu + 100_000_000}n"  # the pods, and the node's own 100m
    rows = top(cluster, "nodes")
    assert sorted(rows) == ["node-1", "node-2", "node-3"]
    millicores = (cpu + 100_000_000) // 1_000_000
    assert millicores >= 2100 and rows["node-3"][:2] == [f"{millicores}m", f"{millicores * 100 // 8000}%"]  # of 8


def test_the_bare_api_server_has_no_metrics(shared_server: ServerProcess) -> None:
    groups = run_kubectl(shared_server, "api-versions").stdout.split()
    assert "metrics.k8s.io/v1beta1" not in groups
    assert run_kubectl(shared_server, "get", "apiservice", "v1beta1.metrics.k8s.io", check=False).returncode == 1
    refused = run_kubectl(shared_server, "top", "pods", check=False)
    assert refused.returncode == 1 and "Metrics API not available" in refused.stderr
