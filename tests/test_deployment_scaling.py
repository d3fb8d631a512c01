"""A Deployment resized in the middle of a rollout scales its ReplicaSets in proportion, as upstream's
scale() does, instead of giving every new replica to one of them."""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest
from support import ServerProcess, run_kubectl, wait_for

from apiserver.controllers.rollout import proportional_sizes

CONTROLLERS = ("--controllers=deployment-controller,replicaset-controller,kube-scheduler,node-lifecycle-controller,"
               "fastkube-simulated-nodes")


def rs(name: str, size: int, created: str, max_replicas: int | None) -> dict[str, Any]:
    annotations = {} if max_replicas is None else {"deployment.kubernetes.io/max-replicas": str(max_replicas)}
    return {"metadata": {"name": name, "creationTimestamp": created, "annotations": annotations},
            "spec": {"replicas": size}}


def deployment(size: int, surge: Any = 3, unavailable: Any = 2, status_replicas: int = 0) -> dict[str, Any]:
    return {"spec": {"replicas": size, "strategy": {"type": "RollingUpdate", "rollingUpdate": {
        "maxSurge": surge, "maxUnavailable": unavailable}}}, "status": {"replicas": status_replicas}}


@pytest.mark.parametrize(("wanted", "sets", "expected"), [
    # The documentation's example: 10 replicas mid-rollout (8 old, 5 new, surge 3) scaled to 15.
    (15, [("old", 8, "2026-01-01T00:00:00Z", 13), ("new", 5, "2026-01-02T00:00:00Z", 13)], {"old": 11, "new": 7}),
    # Down to 5: 8 of the 13 go, in proportion; the rounding leftover comes off the largest.
    (5, [("old", 8, "2026-01-01T00:00:00Z", 13), ("new", 5, "2026-01-02T00:00:00Z", 13)], {"old": 5, "new": 3}),
    # Equal sizes: scaling up gives the odd replica to the newer ReplicaSet.
    (10, [("a", 4, "2026-01-01T00:00:00Z", 8), ("b", 4, "2026-01-02T00:00:00Z", 8)], {"a": 6, "b": 7}),
    # Down to zero empties every ReplicaSet.
    (0, [("a", 4, "2026-01-01T00:00:00Z", 8), ("b", 4, "2026-01-02T00:00:00Z", 8)], {"a": 0, "b": 0}),
    # Without the max-replicas annotation the Deployment's status replicas are the old maximum.
    (20, [("a", 6, "2026-01-01T00:00:00Z", None), ("b", 6, "2026-01-02T00:00:00Z", None)], {"a": 11, "b": 12}),
])
def test_proportions(wanted: int, sets: list[tuple[str, int, str, int | None]], expected: dict[str, int]) -> None:
    sizes = proportional_sizes(deployment(wanted, status_replicas=12), [rs(*s) for s in sets])
    assert {r["metadata"]["name"]: size for r, size in sizes} == expected


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("scaling")),
                       extra_args=[CONTROLLERS, "--simulate-nodes", "3"]) as proc:
        yield proc


def replica_sets(cluster: ServerProcess, app: str) -> dict[int, dict[str, Any]]:
    """The ReplicaSets of a Deployment by revision."""
    status, body = cluster.json("GET", f"/apis/apps/v1/namespaces/default/replicasets?labelSelector=app={app}")
    assert status == 200, body
    return {int(r["metadata"]["annotations"]["deployment.kubernetes.io/revision"]): r for r in body["items"]}


def sizes(cluster: ServerProcess, app: str) -> dict[int, int]:
    return {revision: r["spec"]["replicas"] for revision, r in replica_sets(cluster, app).items()}


def test_a_resize_mid_rollout_is_shared_in_proportion(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "-f", "-", stdin=json.dumps({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "shop"},
        "spec": {"replicas": 10, "selector": {"matchLabels": {"app": "shop"}},
                 "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 3, "maxUnavailable": 2}},
                 "template": {"metadata": {"labels": {"app": "shop"}},
                              "spec": {"containers": [{"name": "shop", "image": "nginx:1.26"}]}}}}))
    run_kubectl(cluster, "rollout", "status", "deployment/shop", "--timeout=60s")
    # A new template whose pods can never be placed: the rollout stops at 8 old and 5 new.
    run_kubectl(cluster, "patch", "deployment", "shop", "--type=merge", "-p", json.dumps(
        {"spec": {"template": {"spec": {"nodeSelector": {"disk": "nowhere"}}}}}))
    wait_for("the stalled rollout", lambda: sizes(cluster, "shop") == {1: 8, 2: 5})

    run_kubectl(cluster, "scale", "deployment", "shop", "--replicas=15")
    wait_for("the proportional split", lambda: sizes(cluster, "shop") == {1: 11, 2: 7})
    for r in replica_sets(cluster, "shop").values():
        annotations = r["metadata"]["annotations"]
        assert (annotations["deployment.kubernetes.io/desired-replicas"],
                annotations["deployment.kubernetes.io/max-replicas"]) == ("15", "18")
    events = cluster.json("GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=shop")[1]
    messages = {e["message"] for e in events["items"]}
    old, new = (replica_sets(cluster, "shop")[n]["metadata"]["name"] for n in (1, 2))
    assert {f"Scaled up replica set {old} from 8 to 11", f"Scaled up replica set {new} from 5 to 7"} <= messages

    run_kubectl(cluster, "scale", "deployment", "shop", "--replicas=5")
    # The new maximum is 8: 10 of the 18 go, 6 from the old ReplicaSet and 4 from the new one. The rollout
    # then goes on from there (3 old pods keep the 5 - 2 available), so the split shows in the events.
    wait_for("the rollout going on after the shrink", lambda: sizes(cluster, "shop") == {1: 3, 2: 5})
    events = cluster.json("GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=shop")[1]
    messages = {e["message"] for e in events["items"]}
    assert {f"Scaled down replica set {old} from 11 to 5", f"Scaled down replica set {new} from 7 to 3"} <= messages
