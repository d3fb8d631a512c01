"""Workload controllers on a server with simulated nodes, driven by the real kubectl: ReplicaSets keep
their pods, the garbage collector follows `--cascade`, Deployments roll."""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Iterator

import pytest
from support import ServerProcess, run_kubectl


def wait_for(what: str, probe: Callable[[], Any], seconds: float = 30.0) -> Any:
    deadline = time.monotonic() + seconds
    last = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(str(tmp_path_factory.mktemp("workloads")),
                         extra_args=["--controllers=*", "--simulate-nodes", "3"])
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def items(server: ServerProcess, path: str) -> list[dict[str, Any]]:
    status, body = server.json("GET", path)
    assert status == 200, body
    return body["items"]  # type: ignore[no-any-return]


def pods(server: ServerProcess, selector: str) -> list[dict[str, Any]]:
    return items(server, f"/api/v1/namespaces/default/pods?labelSelector={selector}")


def running(server: ServerProcess, selector: str, count: int) -> list[dict[str, Any]] | None:
    found = pods(server, selector)
    live = [p for p in found if p["status"].get("phase") == "Running" and not p["metadata"].get("deletionTimestamp")]
    return live if len(found) == count and len(live) == count else None


def replicaset(name: str, replicas: int) -> str:
    return json.dumps({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name},
                       "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                                "template": {"metadata": {"labels": {"app": name}},
                                             "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})


def test_a_replicaset_keeps_its_pods(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "-f", "-", stdin=replicaset("keep", 5))
    live = wait_for("five running pods", lambda: running(cluster, "app=keep", 5))
    rs = cluster.json("GET", "/apis/apps/v1/namespaces/default/replicasets/keep")[1]
    for pod in live:
        assert pod["metadata"]["name"].startswith("keep-") and len(pod["metadata"]["name"]) == len("keep-") + 5
        assert pod["metadata"]["ownerReferences"] == [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "keep",
                                                       "uid": rs["metadata"]["uid"], "controller": True,
                                                       "blockOwnerDeletion": True}]
        assert pod["metadata"]["managedFields"][0]["manager"] == "kube-controller-manager"
    wait_for("the status", lambda: cluster.json("GET", "/apis/apps/v1/namespaces/default/replicasets/keep")[1]
             ["status"].get("readyReplicas") == 5)
    victim = live[0]["metadata"]["name"]
    run_kubectl(cluster, "delete", "pod", victim)
    replaced = wait_for("a replacement", lambda: (r := running(cluster, "app=keep", 5))
                        and victim not in {p["metadata"]["name"] for p in r} and r)
    assert len({p["metadata"]["name"] for p in replaced}) == 5
    run_kubectl(cluster, "scale", "rs", "keep", "--replicas=2")
    wait_for("two pods", lambda: running(cluster, "app=keep", 2))
    out = run_kubectl(cluster, "get", "rs", "keep", "--no-headers").stdout.split()
    assert out[:4] == ["keep", "2", "2", "2"]


def test_background_delete_takes_the_pods(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "-f", "-", stdin=replicaset("bg", 3))
    wait_for("three pods", lambda: running(cluster, "app=bg", 3))
    run_kubectl(cluster, "delete", "rs", "bg")
    wait_for("no pods", lambda: not pods(cluster, "app=bg"))


def test_orphan_delete_keeps_the_pods_without_their_owner(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "-f", "-", stdin=replicaset("orphans", 2))
    wait_for("two pods", lambda: running(cluster, "app=orphans", 2))
    run_kubectl(cluster, "delete", "rs", "orphans", "--cascade=orphan", "--wait=true", "--timeout=20s")
    assert cluster.json("GET", "/apis/apps/v1/namespaces/default/replicasets/orphans")[0] == 404
    kept = wait_for("references gone", lambda: (found := pods(cluster, "app=orphans"))
                    and all("ownerReferences" not in p["metadata"] for p in found) and found)
    assert len(kept) == 2


def test_foreground_delete_waits_for_the_pods(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "-f", "-", stdin=replicaset("fg", 3))
    wait_for("three pods", lambda: running(cluster, "app=fg", 3))
    status, body = cluster.json("DELETE", "/apis/apps/v1/namespaces/default/replicasets/fg",
                                {"propagationPolicy": "Foreground"})
    assert status == 200
    assert body["metadata"]["finalizers"] == ["foregroundDeletion"] and body["metadata"]["deletionTimestamp"]
    wait_for("the owner gone", lambda: cluster.json("GET", "/apis/apps/v1/namespaces/default/replicasets/fg")[0] == 404)
    assert pods(cluster, "app=fg") == []


def test_a_bad_propagation_policy_is_refused(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "-f", "-", stdin=replicaset("policy", 0))
    status, body = cluster.json("DELETE", "/apis/apps/v1/namespaces/default/replicasets/policy",
                                {"propagationPolicy": "Sideways"})
    assert (status, body["reason"]) == (422, "Invalid")
    assert body["message"] == ('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: '
                               '"Sideways": supported values: "Foreground", "Background", "Orphan"')
    assert cluster.json("GET", "/apis/apps/v1/namespaces/default/replicasets/policy")[0] == 200
