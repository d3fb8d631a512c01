"""ReplicationControllers keep their pods as ReplicaSets do (one shared core), with their plain-map selector,
status counts, `kubectl scale rc` and the garbage collector behind `kubectl delete rc`."""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest
from kubernetes import client, config
from support import ServerProcess, run_kubectl, wait_for

CONTROLLERS = ("--controllers=replicationcontroller-controller,garbage-collector-controller,kube-scheduler,"
               "node-lifecycle-controller,fastkube-simulated-nodes")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("rc")),
                       extra_args=[CONTROLLERS, "--simulate-nodes", "2"]) as proc:
        yield proc


@pytest.fixture(scope="module")
def core(cluster: ServerProcess) -> client.CoreV1Api:
    return client.CoreV1Api(config.new_client_from_config(config_file=cluster.kubeconfig))


def controller(name: str, replicas: int) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": name},
                       "spec": {"replicas": replicas, "selector": {"app": name},
                                "template": {"metadata": {"labels": {"app": name, "tier": "front"}},
                                             "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}})


def live_pods(cluster: ServerProcess, app: str) -> list[dict[str, Any]]:
    status, body = cluster.json("GET", f"/api/v1/namespaces/default/pods?labelSelector=app={app}")
    assert status == 200, body
    return [p for p in body["items"] if not p["metadata"].get("deletionTimestamp")]


def running(cluster: ServerProcess, app: str, count: int) -> list[dict[str, Any]] | None:
    found = live_pods(cluster, app)
    ready = [p for p in found if p["status"].get("phase") == "Running"]
    return ready if len(found) == count and len(ready) == count else None


def test_a_replicationcontroller_keeps_its_pods_and_counts_them(cluster: ServerProcess,
                                                                core: client.CoreV1Api) -> None:
    run_kubectl(cluster, "create", "-f", "-", stdin=controller("front", 3))
    live = wait_for("three running pods", lambda: running(cluster, "front", 3))
    rc = core.read_namespaced_replication_controller("front", "default")
    for pod in live:
        assert pod["metadata"]["name"].startswith("front-") and len(pod["metadata"]["name"]) == len("front-") + 5
        assert pod["metadata"]["ownerReferences"] == [{
            "apiVersion": "v1", "kind": "ReplicationController", "name": "front", "uid": rc.metadata.uid,
            "controller": True, "blockOwnerDeletion": True}]
        assert pod["metadata"]["labels"] == {"app": "front", "tier": "front"}

    def counted() -> Any:
        status = core.read_namespaced_replication_controller_status("front", "default").status
        return status if status.ready_replicas == 3 and status.available_replicas == 3 else None
    status = wait_for("the status", counted)
    assert (status.replicas, status.fully_labeled_replicas, status.observed_generation) == (3, 3, 1)
    row = run_kubectl(cluster, "get", "rc", "front", "--no-headers").stdout.split()
    assert row[:4] == ["front", "3", "3", "3"]

    victim = live[0]["metadata"]["name"]
    run_kubectl(cluster, "delete", "pod", victim)
    wait_for("a replacement", lambda: (r := running(cluster, "front", 3))
             and victim not in {p["metadata"]["name"] for p in r})

    run_kubectl(cluster, "scale", "rc", "front", "--replicas=1")
    wait_for("one pod", lambda: running(cluster, "front", 1))
    wait_for("the status after the scale", lambda: core.read_namespaced_replication_controller_status(
        "front", "default").status.replicas == 1)
    events = cluster.json("GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=front")[1]
    assert {"SuccessfulCreate", "SuccessfulDelete"} <= {e["reason"] for e in events["items"]}
    assert {e.get("reportingComponent") for e in events["items"]} == {"replication-controller"}


def test_the_selector_is_a_map_of_equal_labels(cluster: ServerProcess) -> None:
    """An orphan pod with every selector label is adopted, counts towards replicas, and is not
    fully labelled when it lacks a template label; one missing a selector label is left alone."""
    for name, labels in (("stray", {"app": "adopt"}), ("other", {"app": "adopt-not"})):
        status, body = cluster.json("POST", "/api/v1/namespaces/default/pods", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}})
        assert status == 201, body
    run_kubectl(cluster, "create", "-f", "-", stdin=controller("adopt", 2))
    wait_for("two running pods", lambda: running(cluster, "adopt", 2))
    stray = cluster.json("GET", "/api/v1/namespaces/default/pods/stray")[1]
    assert [r["kind"] for r in stray["metadata"]["ownerReferences"]] == ["ReplicationController"]
    assert "ownerReferences" not in cluster.json("GET", "/api/v1/namespaces/default/pods/other")[1]["metadata"]
    rc = wait_for("the counts", lambda: (found := cluster.json(
        "GET", "/api/v1/namespaces/default/replicationcontrollers/adopt")[1])["status"].get("readyReplicas") == 2
        and found)
    assert (rc["status"]["replicas"], rc["status"]["fullyLabeledReplicas"]) == (2, 1)


def test_deleting_a_replicationcontroller_takes_its_pods(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "-f", "-", stdin=controller("gone", 2))
    wait_for("two running pods", lambda: running(cluster, "gone", 2))
    run_kubectl(cluster, "delete", "rc", "gone")
    wait_for("no pods", lambda: not live_pods(cluster, "gone"))
