"""Node IPAM gives nodes their podCIDRs from `--cluster-cidr`, and the pod garbage collector removes
finished pods beyond `--terminated-pod-gc-threshold` and the pods of nodes that are gone."""

from __future__ import annotations

import ipaddress
import json
from typing import Any, Iterator

import pytest
from support import ServerProcess, run_kubectl, wait_for


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("podgc")),
                       extra_args=["--controllers=*", "--simulate-nodes", "3", "--cluster-cidr", "10.50.0.0/16",
                                   "--terminated-pod-gc-threshold", "2"]) as proc:
        yield proc


def get(server: ServerProcess, *what: str) -> Any:
    found = run_kubectl(server, "get", *what, "-o", "json", check=False)
    return json.loads(found.stdout) if found.returncode == 0 else None


def test_nodes_get_pod_cidrs_from_the_cluster_cidr(cluster: ServerProcess) -> None:
    nodes = wait_for("three nodes with CIDRs", lambda: (n := get(cluster, "nodes")) and len(n["items"]) == 3
                     and all(i["spec"].get("podCIDR") for i in n["items"]) and n["items"])
    assert sorted(n["spec"]["podCIDR"] for n in nodes) == ["10.50.0.0/24", "10.50.1.0/24", "10.50.2.0/24"]
    assert all(n["spec"]["podCIDRs"] == [n["spec"]["podCIDR"]] for n in nodes)
    run_kubectl(cluster, "run", "addressed", "--image=nginx")
    pod = wait_for("a pod IP", lambda: (p := get(cluster, "pod", "addressed")) and p["status"].get("podIP") and p)
    node = next(n for n in nodes if n["metadata"]["name"] == pod["spec"]["nodeName"])
    assert ipaddress.ip_address(pod["status"]["podIP"]) in ipaddress.ip_network(node["spec"]["podCIDR"])
    run_kubectl(cluster, "create", "-f", "-", stdin=json.dumps(
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "joined"}}))
    joined = wait_for("the new node's CIDR", lambda: (get(cluster, "node", "joined") or {}).get("spec", {}).get("podCIDR"))
    assert joined == "10.50.3.0/24"


def test_finished_pods_beyond_the_threshold_are_collected_oldest_first(cluster: ServerProcess) -> None:
    for i in range(4):
        run_kubectl(cluster, "run", f"batch-{i}", "--image=busybox", "--restart=Never", "--labels=gc=batch")
        wait_for(f"batch-{i} done", lambda name=f"batch-{i}": (p := get(cluster, "pod", name))
                 and p["status"].get("phase") == "Succeeded")
    left = wait_for("two kept", lambda: (p := get(cluster, "pods", "-l", "gc=batch")) and len(p["items"]) == 2
                    and p["items"])
    assert sorted(p["metadata"]["name"] for p in left) == ["batch-2", "batch-3"]


# Upstream's 40 s quarantine, a controller's clock above the store: waited once, not again on etcd.
@pytest.mark.store_once
def test_the_pods_of_a_deleted_node_are_failed_and_deleted(cluster: ServerProcess) -> None:
    # A node of one's own, looked after by a simulated kubelet; --simulate-nodes' ones re-register if deleted,
    # as a real kubelet does.
    run_kubectl(cluster, "create", "-f", "-", stdin=json.dumps(
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "spare",
                                                           "annotations": {"fastkube.io/simulated": "true"}}}))
    run_kubectl(cluster, "run", "stranded", "--image=nginx", "--overrides", json.dumps({"spec": {"nodeName": "spare"}}))
    wait_for("stranded running", lambda: (get(cluster, "pod", "stranded") or {}).get("status", {}).get("phase")
             == "Running")
    run_kubectl(cluster, "delete", "node", "spare")
    assert get(cluster, "pod", "stranded") is not None  # quarantined for 40 s first
    wait_for("the orphan collected", lambda: get(cluster, "pod", "stranded") is None, seconds=120)


def test_deleting_pods_of_an_out_of_service_node_go_at_once(cluster: ServerProcess) -> None:
    # A node whose kubelet is gone (it never reports Ready), as an operator marks one that is shut down.
    run_kubectl(cluster, "create", "-f", "-", stdin=json.dumps(
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "powered-off"}}))
    run_kubectl(cluster, "run", "stuck", "--image=nginx", "--overrides", json.dumps({"spec": {"nodeName": "powered-off"}}))
    run_kubectl(cluster, "delete", "pod", "stuck", "--wait=false")
    assert get(cluster, "pod", "stuck")["metadata"]["deletionTimestamp"]  # no kubelet finishes it
    run_kubectl(cluster, "taint", "node", "powered-off", "node.kubernetes.io/out-of-service=nodeshutdown:NoExecute")
    wait_for("the pod gone", lambda: get(cluster, "pod", "stuck") is None)
