"""The disruption controller keeps PodDisruptionBudget status current, and `kubectl drain` evicts only as
far as the budget allows, on a server with simulated nodes and the controllers a Deployment needs.

The garbage collector stays off, so a pod may name a controller that does not exist.
"""

from __future__ import annotations

import datetime
import json
import subprocess
import time
from typing import Any, Iterator

import pytest
from kubernetes import client, config
from support import ServerProcess, kubectl_path, run_kubectl, wait_for

CONTROLLERS = ("--controllers=deployment-controller,replicaset-controller,disruption-controller,kube-scheduler,"
               "node-lifecycle-controller,fastkube-simulated-nodes")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("disruption")),
                       extra_args=[CONTROLLERS, "--simulate-nodes", "3"]) as proc:
        yield proc


@pytest.fixture(scope="module")
def policy(cluster: ServerProcess) -> client.PolicyV1Api:
    return client.PolicyV1Api(config.new_client_from_config(config_file=cluster.kubeconfig))


def create_namespace(cluster: ServerProcess, name: str) -> str:
    run_kubectl(cluster, "create", "namespace", name)
    return name


def deployment(cluster: ServerProcess, namespace: str, name: str, replicas: int) -> None:
    run_kubectl(cluster, "-n", namespace, "create", "deployment", name, "--image=nginx:1.27",
                f"--replicas={replicas}")


def budget(cluster: ServerProcess, namespace: str, name: str, app: str, **spec: Any) -> None:
    run_kubectl(cluster, "-n", namespace, "create", "-f", "-", stdin=json.dumps({
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name},
        "spec": {"selector": {"matchLabels": {"app": app}}, **spec}}))


def status_of(policy: client.PolicyV1Api, namespace: str, name: str) -> dict[str, Any]:
    found = policy.read_namespaced_pod_disruption_budget_status(name, namespace)
    return found.to_dict()["status"] or {}  # type: ignore[no-any-return]


def settled(policy: client.PolicyV1Api, namespace: str, name: str, **wanted: Any) -> dict[str, Any]:
    """The budget's status once its counts are the wanted ones."""
    def probe() -> dict[str, Any] | None:
        status = status_of(policy, namespace, name)
        return status if all(status.get(k) == v for k, v in wanted.items()) else None
    return wait_for(f"{namespace}/{name} to report {wanted}", probe)  # type: ignore[no-any-return]


def allowed_condition(status: dict[str, Any]) -> dict[str, Any]:
    (condition,) = [c for c in status["conditions"] if c["type"] == "DisruptionAllowed"]
    return condition  # type: ignore[no-any-return]


def ready_pods(cluster: ServerProcess, namespace: str, app: str) -> list[dict[str, Any]]:
    status, body = cluster.json("GET", f"/api/v1/namespaces/{namespace}/pods?labelSelector=app={app}")
    assert status == 200, body
    return [p for p in body["items"] if not p["metadata"].get("deletionTimestamp") and any(
        c["type"] == "Ready" and c["status"] == "True" for c in p["status"].get("conditions") or ())]


def test_min_available_counts_the_ready_pods(cluster: ServerProcess, policy: client.PolicyV1Api) -> None:
    ns = create_namespace(cluster, "min-available")
    deployment(cluster, ns, "web", 3)
    budget(cluster, ns, "web", "web", minAvailable=2)
    status = settled(policy, ns, "web", current_healthy=3, desired_healthy=2, expected_pods=3,
                     disruptions_allowed=1, observed_generation=1)
    condition = allowed_condition(status)
    assert (condition["status"], condition["reason"], condition["message"]) == ("True", "SufficientPods", "")
    assert condition["observed_generation"] == 1 and condition["last_transition_time"] is not None
    managers = cluster.json("GET", f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/web")[1][
        "metadata"]["managedFields"]
    assert {"kube-controller-manager"} == {m["manager"] for m in managers if m.get("subresource") == "status"}

    run_kubectl(cluster, "-n", ns, "patch", "pdb", "web", "--type=merge", "-p", '{"spec":{"minAvailable":3}}')
    status = settled(policy, ns, "web", desired_healthy=3, disruptions_allowed=0, observed_generation=2)
    condition = allowed_condition(status)
    assert (condition["status"], condition["reason"], condition["observed_generation"]) == (
        "False", "InsufficientPods", 2)
    out = run_kubectl(cluster, "-n", ns, "get", "pdb", "web", "--no-headers").stdout.split()
    assert out[:4] == ["web", "3", "N/A", "0"]


def test_percentages_take_the_expected_count_from_the_deployment(cluster: ServerProcess,
                                                                 policy: client.PolicyV1Api) -> None:
    ns = create_namespace(cluster, "percentages")
    deployment(cluster, ns, "api", 5)
    budget(cluster, ns, "half-down", "api", maxUnavailable="50%")
    budget(cluster, ns, "half-up", "api", minAvailable="50%")
    # 50% of 5 rounds up both ways: 3 may be unavailable (2 must stay), 3 must stay up.
    settled(policy, ns, "half-down", expected_pods=5, desired_healthy=2, current_healthy=5, disruptions_allowed=3)
    settled(policy, ns, "half-up", expected_pods=5, desired_healthy=3, current_healthy=5, disruptions_allowed=2)
    # The Deployment's scale counts before its pods exist: expectedPods follows spec.replicas.
    run_kubectl(cluster, "-n", ns, "scale", "deployment", "api", "--replicas=8")
    settled(policy, ns, "half-down", expected_pods=8, desired_healthy=4, current_healthy=8, disruptions_allowed=4)


def test_a_budget_without_pods_allows_nothing(cluster: ServerProcess, policy: client.PolicyV1Api) -> None:
    ns = create_namespace(cluster, "empty")
    budget(cluster, ns, "nobody", "nothing-here", minAvailable=0)
    status = settled(policy, ns, "nobody", expected_pods=0, current_healthy=0, desired_healthy=0,
                     disruptions_allowed=0, observed_generation=1)
    assert allowed_condition(status)["reason"] == "InsufficientPods"


def test_a_controller_without_scale_fails_safe(cluster: ServerProcess, policy: client.PolicyV1Api) -> None:
    ns = create_namespace(cluster, "fail-safe")
    status, body = cluster.json("POST", f"/api/v1/namespaces/{ns}/pods", {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "agent", "labels": {"app": "agent"}, "ownerReferences": [{
            "apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": "0b5e0e5c-1111-4222-8333-444455556666",
            "controller": True}]},
        "spec": {"containers": [{"name": "agent", "image": "fluent-bit:3.1"}]}})
    assert status == 201, body
    budget(cluster, ns, "agent", "agent", maxUnavailable=1)

    def failed() -> dict[str, Any] | None:
        found = status_of(policy, ns, "agent")
        conditions = [c for c in found.get("conditions") or () if c["reason"] == "SyncFailed"]
        return conditions[0] if conditions else None
    condition = wait_for("the SyncFailed condition", failed)
    assert condition["status"] == "False"
    assert condition["message"] == "daemonsets.apps does not implement the scale subresource"
    assert status_of(policy, ns, "agent")["disruptions_allowed"] == 0
    events = cluster.json("GET", f"/api/v1/namespaces/{ns}/events")[1]["items"]
    assert any(e["reason"] == "CalculateExpectedPodCountFailed" and e["message"] ==
               "Failed to calculate the number of expected pods: daemonsets.apps does not implement the scale "
               "subresource" for e in events)


def test_drain_evicts_as_the_budget_allows(cluster: ServerProcess, policy: client.PolicyV1Api) -> None:
    ns = create_namespace(cluster, "drain")
    # Every replica on node-1: the drain has to take three pods from it through a budget that lets one go.
    # The other tests' pods share the nodes; the drain's pod selector leaves them be.
    run_kubectl(cluster, "cordon", "node-2", "node-3")
    deployment(cluster, ns, "shop", 3)
    wait_for("three ready pods", lambda: len(ready_pods(cluster, ns, "shop")) == 3)
    assert {p["spec"]["nodeName"] for p in ready_pods(cluster, ns, "shop")} == {"node-1"}
    budget(cluster, ns, "shop", "shop", minAvailable=2)
    settled(policy, ns, "shop", current_healthy=3, disruptions_allowed=1)
    run_kubectl(cluster, "uncordon", "node-2")

    drain = subprocess.Popen(
        [kubectl_path(), "--kubeconfig", cluster.kubeconfig, "drain", "node-1", "--ignore-daemonsets",
         "--pod-selector=app=shop", "--timeout=120s"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    fewest = 3
    deadline = time.monotonic() + 150
    while drain.poll() is None and time.monotonic() < deadline:
        fewest = min(fewest, len(ready_pods(cluster, ns, "shop")))
        time.sleep(0.1)
    output = drain.communicate(timeout=30)[0]
    assert drain.returncode == 0, output
    # kubectl was told to wait at least once, and no sample saw fewer than the two ready pods the budget keeps
    # (replacements become ready quickly, so samples need not see the dip to two).
    assert fewest >= 2, output
    assert "Cannot evict pod as it would violate the pod's disruption budget." in output
    assert "node/node-1 drained" in output
    moved = wait_for("three ready pods on node-2", lambda: (r := ready_pods(cluster, ns, "shop")) and
                     len(r) == 3 and r)
    assert {p["spec"]["nodeName"] for p in moved} == {"node-2"}
    settled(policy, ns, "shop", current_healthy=3, disruptions_allowed=1, disrupted_pods=None)
    run_kubectl(cluster, "uncordon", "node-1", "node-3")


def test_a_stale_disruption_target_is_cleared(cluster: ServerProcess) -> None:
    """An eviction's DisruptionTarget condition on a pod still running two minutes later goes back to False;
    the kubelet's own (TerminationByKubelet) stays."""
    ns = create_namespace(cluster, "stale")
    long_ago = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=3)).strftime(
        "%Y-%m-%dT%H:%M:%SZ")
    for name, reason in (("evicted", "EvictionByEvictionAPI"), ("by-kubelet", "TerminationByKubelet")):
        # Bound to a node no kubelet serves: nothing else writes this pod's status.
        status, body = cluster.json("POST", f"/api/v1/namespaces/{ns}/pods", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"nodeName": "retired-node", "containers": [{"name": "c", "image": "nginx:1.27"}]}})
        assert status == 201, body
        status, body = cluster.json("PATCH", f"/api/v1/namespaces/{ns}/pods/{name}/status", {"status": {
            "phase": "Running", "conditions": [{"type": "DisruptionTarget", "status": "True", "reason": reason,
                                                "message": "evicting", "lastTransitionTime": long_ago}]}},
            content_type="application/merge-patch+json")
        assert status == 200, body

    def condition(name: str) -> dict[str, Any]:
        pod = cluster.json("GET", f"/api/v1/namespaces/{ns}/pods/{name}")[1]
        (found,) = [c for c in pod["status"]["conditions"] if c["type"] == "DisruptionTarget"]
        return found  # type: ignore[no-any-return]
    cleared = wait_for("the stale condition cleared", lambda: (c := condition("evicted"))["status"] == "False" and c)
    assert "reason" not in cleared and "message" not in cleared and cleared["lastTransitionTime"] != long_ago
    assert condition("by-kubelet")["status"] == "True"


@pytest.mark.parametrize(("path", "kind", "api_version"), [
    ("/api/v1/namespaces/{ns}/replicationcontrollers", "ReplicationController", "v1"),
    ("/apis/apps/v1/namespaces/{ns}/statefulsets", "StatefulSet", "apps/v1"),
])
def test_the_scale_of_other_controllers_counts(cluster: ServerProcess, policy: client.PolicyV1Api, path: str,
                                               kind: str, api_version: str) -> None:
    """A ReplicationController's or StatefulSet's spec.replicas is the expected count, however many of its
    pods exist (no controller for them runs here, so two of four are made by hand)."""
    ns = create_namespace(cluster, f"scale-{kind.lower()}")
    template = {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "db", "image": "mysql:8.4"}]}}
    spec: dict[str, Any] = {"replicas": 4, "template": template}
    if kind == "StatefulSet":
        spec.update({"serviceName": "db", "selector": {"matchLabels": {"app": "db"}}})
    else:
        spec["selector"] = {"app": "db"}
    status, owner = cluster.json("POST", path.format(ns=ns), {"apiVersion": api_version, "kind": kind,
                                                              "metadata": {"name": "db"}, "spec": spec})
    assert status == 201, owner
    for index in range(2):
        status, body = cluster.json("POST", f"/api/v1/namespaces/{ns}/pods", {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"db-{index}", "labels": {"app": "db"}, "ownerReferences": [{
                "apiVersion": api_version, "kind": kind, "name": "db", "uid": owner["metadata"]["uid"],
                "controller": True}]},
            "spec": {"nodeName": "retired-node", "containers": [{"name": "db", "image": "mysql:8.4"}]}})
        assert status == 201, body
        status, body = cluster.json("PATCH", f"/api/v1/namespaces/{ns}/pods/db-{index}/status", {"status": {
            "phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}},
            content_type="application/merge-patch+json")
        assert status == 200, body
    budget(cluster, ns, "db", "db", maxUnavailable="25%")
    settled(policy, ns, "db", expected_pods=4, desired_healthy=3, current_healthy=2, disruptions_allowed=0)
