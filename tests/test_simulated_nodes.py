"""A server with simulated nodes: the scheduler binds pods, fake kubelets run them, and a pod that fits
nowhere says why and waits until a node can take it."""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest
from support import ServerProcess, run_kubectl, wait_for

from apiserver.controllers.nodelifecycle import wanted_taints

PODS = "/api/v1/namespaces/default/pods"




@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("nodes")),
                       extra_args=["--controllers=*", "--simulate-nodes", "3"]) as proc:
        yield proc


def get(server: ServerProcess, path: str) -> Any:
    status, body = server.json("GET", path)
    return body if status == 200 else None


def running(server: ServerProcess, name: str) -> Any:
    pod = get(server, f"{PODS}/{name}")
    return pod if pod and (pod.get("status") or {}).get("phase") == "Running" else None


def test_nodes_register_ready_with_leases(cluster: ServerProcess) -> None:
    names = wait_for("three ready nodes", lambda: (out := run_kubectl(cluster, "get", "nodes", "--no-headers").stdout)
                     and out.count(" Ready ") == 3 and out)
    assert [line.split()[0] for line in names.splitlines()] == ["node-1", "node-2", "node-3"]
    node = get(cluster, "/api/v1/nodes/node-2")
    assert "taints" not in node["spec"]  # the not-ready taint admission put there is gone once Ready
    assert node["metadata"]["labels"]["kubernetes.io/hostname"] == "node-2"
    managers = {m["manager"]: m for m in node["metadata"]["managedFields"]}
    assert managers["kubelet"]["operation"] == "Update"  # it registered the node
    # and node IPAM gave it its podCIDR, as kube-controller-manager gives a kind node its own
    assert "f:podCIDR" in managers["kube-controller-manager"]["fieldsV1"]["f:spec"]
    lease = get(cluster, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-2")
    assert lease["spec"]["holderIdentity"] == "node-2" and lease["spec"]["leaseDurationSeconds"] == 40
    assert lease["metadata"]["ownerReferences"][0]["uid"] == node["metadata"]["uid"]


def test_a_pod_is_scheduled_and_runs(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "run", "web", "--image=nginx")
    pod = wait_for("web running", lambda: running(cluster, "web"))
    status = pod["status"]
    assert pod["spec"]["nodeName"] in ("node-1", "node-2", "node-3")
    assert status["podIP"].startswith("10.244.") and status["podIPs"] == [{"ip": status["podIP"]}]
    assert {c["type"]: c["status"] for c in status["conditions"]} == {
        "PodReadyToStartContainers": "True", "Initialized": "True", "Ready": "True", "ContainersReady": "True",
        "PodScheduled": "True"}
    [container] = status["containerStatuses"]
    assert container["ready"] and container["started"] and "running" in container["state"]
    assert container["image"] == "docker.io/library/nginx:latest"
    managers = [(m["manager"], m.get("subresource")) for m in pod["metadata"]["managedFields"]]
    assert ("kubelet", "status") in managers
    out = run_kubectl(cluster, "get", "pod", "web", "-o", "wide", "--no-headers").stdout.split()
    assert out[1:3] == ["1/1", "Running"] and out[5] == status["podIP"] and out[6] == pod["spec"]["nodeName"]
    events = run_kubectl(cluster, "get", "events", "--field-selector", "involvedObject.name=web").stdout
    assert f"Successfully assigned default/web to {pod['spec']['nodeName']}" in events


def test_pod_ips_are_unique(cluster: ServerProcess) -> None:
    for i in range(6):
        run_kubectl(cluster, "run", f"many-{i}", "--image=busybox", "--", "sleep", "3600")
    ips = [wait_for(f"many-{i}", lambda: running(cluster, f"many-{i}"))["status"]["podIP"] for i in range(6)]
    assert len(set(ips)) == 6


def test_a_pod_that_fits_nowhere_waits_and_says_why(cluster: ServerProcess) -> None:
    overrides = {"spec": {"containers": [{"name": "big", "image": "nginx", "resources": {"requests": {"cpu": "12"}}}]}}
    run_kubectl(cluster, "run", "big", "--image=nginx", "--overrides", json.dumps(overrides))
    message = ("0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are "
               "available: 3 No preemption victims found for incoming pod.")
    pod = wait_for("the unschedulable condition", lambda: (p := get(cluster, f"{PODS}/big"))
                   and p.get("status", {}).get("conditions") and p)
    [condition] = pod["status"]["conditions"]
    assert (condition["type"], condition["status"], condition["reason"]) == ("PodScheduled", "False", "Unschedulable")
    assert condition["message"] == message
    described = run_kubectl(cluster, "describe", "pod", "big").stdout
    assert "FailedScheduling" in described and "default-scheduler" in described and message in described
    # A bigger node arrives: the waiting pod is tried again and lands there.
    big_node = {"apiVersion": "v1", "kind": "Node", "metadata": {
        "name": "big-node", "annotations": {"fastkube.io/simulated": "true"},
        "labels": {"kubernetes.io/hostname": "big-node"}},
        "spec": {"podCIDR": "10.244.90.0/24"},
        "status": {"capacity": {"cpu": "32", "memory": "64Gi", "pods": "110"},
                   "allocatable": {"cpu": "32", "memory": "64Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
                   "addresses": [{"type": "InternalIP", "address": "172.18.0.90"}]}}
    run_kubectl(cluster, "create", "-f", "-", stdin=json.dumps(big_node))
    pod = wait_for("big running", lambda: running(cluster, "big"))
    assert pod["spec"]["nodeName"] == "big-node"
    assert pod["status"]["podIP"].startswith("10.244.90.")


def test_cordon_and_selectors(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "cordon", "node-3")
    overrides = {"spec": {"nodeSelector": {"kubernetes.io/hostname": "node-3"}}}
    run_kubectl(cluster, "run", "pinned", "--image=nginx", "--overrides", json.dumps(overrides))
    pod = wait_for("the unschedulable condition", lambda: (p := get(cluster, f"{PODS}/pinned"))
                   and p.get("status", {}).get("conditions") and p)
    assert pod["status"]["conditions"][0]["message"].startswith(
        "0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) didn't match Pod's node affinity/selector.")
    run_kubectl(cluster, "uncordon", "node-3")
    assert wait_for("pinned running", lambda: running(cluster, "pinned"))["spec"]["nodeName"] == "node-3"


def test_a_pod_told_to_fail_fails_and_a_deleted_pod_goes(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "run", "once", "--image=busybox", "--restart=Never",
                "--annotations=fastkube.io/simulated-exit-code=3", "--", "false")
    pod = wait_for("once failed", lambda: (p := get(cluster, f"{PODS}/once"))
                   and p.get("status", {}).get("phase") == "Failed" and p)
    terminated = pod["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (3, "Error")
    run_kubectl(cluster, "delete", "pod", "web", "--wait=true", "--timeout=20s")
    assert get(cluster, f"{PODS}/web") is None


def test_taints_follow_conditions() -> None:
    def node(ready: str, unschedulable: bool = False) -> dict[str, Any]:
        return {"spec": {"unschedulable": unschedulable},
                "status": {"conditions": [{"type": "Ready", "status": ready},
                                          {"type": "DiskPressure", "status": "False"}]}}

    mine = {"key": "dedicated", "value": "db", "effect": "NoSchedule"}
    admitted = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}
    assert wanted_taints(node("True"), [mine, admitted]) == [mine]
    assert wanted_taints(node("True", unschedulable=True), []) == [
        {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
    lost = wanted_taints(node("Unknown"), [admitted])
    assert [(t["key"], t["effect"]) for t in lost] == [("node.kubernetes.io/unreachable", "NoSchedule"),
                                                      ("node.kubernetes.io/unreachable", "NoExecute")]
    assert "timeAdded" in lost[1] and "timeAdded" not in lost[0]


def test_a_node_whose_kubelet_stops_goes_unknown_and_its_pods_move(tmp_path: Any) -> None:
    server = ServerProcess(str(tmp_path), extra_args=["--controllers=*", "--simulate-nodes", "2",
                                                      "--node-monitor-grace-period", "2"])
    server.start()
    try:
        template = {"spec": {"template": {"spec": {"tolerations": [
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 1}]}}}}
        run_kubectl(server, "create", "deployment", "web", "--image=nginx", "--replicas=4")
        run_kubectl(server, "patch", "deployment", "web", "-p", json.dumps(template))
        run_kubectl(server, "rollout", "status", "deployment/web", "--timeout=60s")
        run_kubectl(server, "annotate", "node", "node-2", "fastkube.io/simulated-")  # its kubelet stops
        node = wait_for("node-2 unknown", lambda: (n := get(server, "/api/v1/nodes/node-2"))
                        and any(c["type"] == "Ready" and c["status"] == "Unknown" for c in n["status"]["conditions"])
                        and n)
        ready = next(c for c in node["status"]["conditions"] if c["type"] == "Ready")
        assert (ready["reason"], ready["message"]) == ("NodeStatusUnknown", "Kubelet stopped posting node status.")
        taints = wait_for("the unreachable taints", lambda: (n := get(server, "/api/v1/nodes/node-2"))
                          and len(n["spec"].get("taints", [])) == 2 and n["spec"]["taints"])
        assert {(t["key"], t["effect"]) for t in taints} == {("node.kubernetes.io/unreachable", "NoSchedule"),
                                                              ("node.kubernetes.io/unreachable", "NoExecute")}
        assert "NotReady" in run_kubectl(server, "get", "node", "node-2", "--no-headers").stdout

        def moved() -> bool:
            pods = get(server, f"{PODS}?labelSelector=app=web")["items"]
            live = [p for p in pods if not p["metadata"].get("deletionTimestamp")]
            return len(live) == 4 and all(p["spec"].get("nodeName") == "node-1" and p["status"].get("phase") == "Running"
                                          for p in live)

        wait_for("the pods on node-1", moved)
        assert get(server, "/api/v1/nodes/node-1")["spec"].get("taints") is None
    finally:
        server.stop()


def test_a_node_that_never_reported_gets_unknown_conditions(tmp_path: Any) -> None:
    """tryUpdateNodeHealth: after the startup grace period from its creation, a node without a Ready
    condition gets Ready, MemoryPressure, DiskPressure and PIDPressure Unknown, NodeStatusNeverUpdated."""
    server = ServerProcess(str(tmp_path), extra_args=["--controllers=node-lifecycle-controller",
                                                      "--node-startup-grace-period", "1"])
    server.start()
    try:
        run_kubectl(server, "create", "-f", "-", stdin=json.dumps({
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": "silent"},
            "status": {"capacity": {"memory": "1Gi"}}}))
        node = wait_for("conditions on the silent node",
                        lambda: (n := get(server, "/api/v1/nodes/silent")) and n["status"].get("conditions") and n)
        created = node["metadata"]["creationTimestamp"]
        assert [(c["type"], c["status"], c["reason"], c["message"], c["lastHeartbeatTime"])
                for c in node["status"]["conditions"]] == [
            (kind, "Unknown", "NodeStatusNeverUpdated", "Kubelet never posted node status.", created)
            for kind in ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")]
        described = run_kubectl(server, "describe", "node", "silent").stdout
        assert "Conditions:" in described and "NodeStatusNeverUpdated" in described
    finally:
        server.stop()
