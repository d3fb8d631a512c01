"""ControllerRevisions of DaemonSets and StatefulSets: names and hashes as pkg/controller/history makes them,
revision numbers, `kubectl rollout history` and `kubectl rollout undo`, and the history limit."""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest
from kubernetes import client, config
from support import ServerProcess, run_kubectl, wait_for

from apiserver.controllers.history import fnv32, go_json, hash_revision, template_patch
from apiserver.controllers.podtemplatehash import compute_hash, safe_encode

CONTROLLERS = ("--controllers=daemonset-controller,statefulset-controller,garbage-collector-controller,"
               "kube-scheduler,node-lifecycle-controller,fastkube-simulated-nodes")


def test_fnv1_is_not_fnv1a() -> None:
    # Go's fnv.New32 (FNV-1): the published test vectors, which FNV-1a does not give.
    assert [fnv32(b""), fnv32(b"a"), fnv32(b"foobar")] == [0x811C9DC5, 0x050C5D7E, 0x31F0B262]


def test_a_revision_hash_is_the_data_then_the_collision_count() -> None:
    data = b'{"spec":{"template":{"$patch":"replace"}}}'
    assert hash_revision(data, None) == safe_encode(str(fnv32(data)))
    assert hash_revision(data, 0) == safe_encode(str(fnv32(data + b"0")))
    assert hash_revision(data, 12) == safe_encode(str(fnv32(data + b"12")))


def test_the_patch_is_encoded_as_go_marshals_a_map() -> None:
    parent = {"spec": {"replicas": 3, "template": {
        "metadata": {"labels": {"tier": "a&b", "app": "x"}},
        "spec": {"containers": [{"name": "c", "image": "<img>", "args": ["ünï"]}]}}}}
    assert template_patch(parent) == (
        '{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"x","tier":"a\\u0026b"}},'
        '"spec":{"containers":[{"args":["ünï"],"image":"\\u003cimg\\u003e","name":"c"}]}}}}').encode()
    assert go_json({"b": 1, "a": [True, None, 0.5]}) == b'{"a":[true,null,0.5],"b":1}'


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("revisions")),
                       extra_args=[CONTROLLERS, "--simulate-nodes", "2"]) as proc:
        yield proc


@pytest.fixture(scope="module")
def apps(cluster: ServerProcess) -> client.AppsV1Api:
    return client.AppsV1Api(config.new_client_from_config(config_file=cluster.kubeconfig))


def daemonset(name: str, image: str, history_limit: int | None = None) -> str:
    spec: dict[str, Any] = {"selector": {"matchLabels": {"app": name}},
                            "template": {"metadata": {"labels": {"app": name}},
                                         "spec": {"containers": [{"name": "agent", "image": image}]}}}
    if history_limit is not None:
        spec["revisionHistoryLimit"] = history_limit
    return json.dumps({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name}, "spec": spec})


def statefulset(name: str, image: str) -> str:
    return json.dumps({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name},
                       "spec": {"replicas": 2, "serviceName": name, "selector": {"matchLabels": {"app": name}},
                                "template": {"metadata": {"labels": {"app": name}},
                                             "spec": {"containers": [{"name": "db", "image": image}]}}}})


def revisions(apps: client.AppsV1Api, app: str) -> dict[int, Any]:
    found = apps.list_namespaced_controller_revision("default", label_selector=f"app={app}").items
    return {r.revision: r for r in found}


def pod_hashes(cluster: ServerProcess, app: str) -> set[str]:
    status, body = cluster.json("GET", f"/api/v1/namespaces/default/pods?labelSelector=app={app}")
    assert status == 200, body
    return {p["metadata"]["labels"]["controller-revision-hash"] for p in body["items"]
            if not p["metadata"].get("deletionTimestamp")}


def rolled_out(cluster: ServerProcess, kind: str, name: str) -> None:
    run_kubectl(cluster, "rollout", "status", f"{kind}/{name}", "--timeout=60s")


def history_numbers(cluster: ServerProcess, target: str) -> list[str]:
    lines = run_kubectl(cluster, "rollout", "history", target).stdout.strip().splitlines()
    assert lines[1].split() == ["REVISION", "CHANGE-CAUSE"], lines
    return [line.split()[0] for line in lines[2:]]


def test_daemonset_revisions_follow_its_template(cluster: ServerProcess, apps: client.AppsV1Api) -> None:
    run_kubectl(cluster, "create", "-f", "-", stdin=daemonset("agent", "fluent-bit:3.0"))
    rolled_out(cluster, "ds", "agent")
    ds = apps.read_namespaced_daemon_set("agent", "default")
    template = cluster.json("GET", "/apis/apps/v1/namespaces/default/daemonsets/agent")[1]["spec"]["template"]
    first_hash = compute_hash(template, None)  # a DaemonSet's snapshot is named by its pod-template-hash
    [first] = revisions(apps, "agent").values()
    assert (first.metadata.name, first.revision) == (f"agent-{first_hash}", 1)
    assert first.metadata.labels == {"app": "agent", "controller-revision-hash": first_hash}
    [owner] = first.metadata.owner_references
    assert (owner.kind, owner.name, owner.uid, owner.controller) == ("DaemonSet", "agent", ds.metadata.uid, True)
    stored = cluster.json("GET", f"/apis/apps/v1/namespaces/default/controllerrevisions/agent-{first_hash}")[1]
    assert go_json(stored["data"]) == template_patch({"spec": {"template": template}})
    assert pod_hashes(cluster, "agent") == {first_hash}

    run_kubectl(cluster, "set", "image", "ds/agent", "agent=fluent-bit:3.1")
    rolled_out(cluster, "ds", "agent")
    second = revisions(apps, "agent")[2]
    second_hash = second.metadata.labels["controller-revision-hash"]
    wait_for("pods of the second template", lambda: pod_hashes(cluster, "agent") == {second_hash})
    assert history_numbers(cluster, "ds/agent") == ["1", "2"]
    shown = run_kubectl(cluster, "rollout", "history", "ds/agent", "--revision=1").stdout
    assert "daemonset.apps/agent with revision #1" in shown and "fluent-bit:3.0" in shown

    out = run_kubectl(cluster, "rollout", "undo", "ds/agent").stdout
    assert out.strip() == "daemonset.apps/agent rolled back"
    rolled_out(cluster, "ds", "agent")
    # The first template is back: its revision is renumbered as the newest, no third one is made.
    wait_for("the first revision renumbered", lambda: sorted(revisions(apps, "agent")) == [2, 3])
    assert revisions(apps, "agent")[3].metadata.name == f"agent-{first_hash}"
    wait_for("pods of the first template", lambda: pod_hashes(cluster, "agent") == {first_hash})
    assert apps.read_namespaced_daemon_set("agent", "default").spec.template.spec.containers[0].image == \
        "fluent-bit:3.0"
    # Undoing to the current revision changes nothing. (A kubectl whose ObjectMeta still writes a null
    # creationTimestamp sees its copy of the template differ from the data, so it patches instead of
    # saying the revision already matches; the patch is then a no-op.)
    generation = apps.read_namespaced_daemon_set("agent", "default").metadata.generation
    run_kubectl(cluster, "rollout", "undo", "ds/agent", "--to-revision=3")
    assert apps.read_namespaced_daemon_set("agent", "default").metadata.generation == generation
    assert sorted(revisions(apps, "agent")) == [2, 3]


def test_statefulset_revisions_name_its_pods(cluster: ServerProcess, apps: client.AppsV1Api) -> None:
    run_kubectl(cluster, "create", "-f", "-", stdin=statefulset("db", "postgres:16"))
    rolled_out(cluster, "sts", "db")
    template = cluster.json("GET", "/apis/apps/v1/namespaces/default/statefulsets/db")[1]["spec"]["template"]
    data = template_patch({"spec": {"template": template}})
    name = f"db-{hash_revision(data, 0)}"  # a StatefulSet always has a collision count, from 0
    [first] = revisions(apps, "db").values()
    assert (first.metadata.name, first.revision) == (name, 1)
    assert first.metadata.labels == {"app": "db", "controller.kubernetes.io/hash": hash_revision(data, 0)}
    assert pod_hashes(cluster, "db") == {name}
    status = apps.read_namespaced_stateful_set_status("db", "default").status
    assert (status.current_revision, status.update_revision, status.collision_count) == (name, name, 0)

    run_kubectl(cluster, "set", "image", "sts/db", "db=postgres:17")
    rolled_out(cluster, "sts", "db")
    second = revisions(apps, "db")[2].metadata.name
    wait_for("pods of the second revision", lambda: pod_hashes(cluster, "db") == {second})
    wait_for("the status", lambda: apps.read_namespaced_stateful_set_status("db", "default").status
             .current_revision == second)
    assert history_numbers(cluster, "sts/db") == ["1", "2"]

    run_kubectl(cluster, "rollout", "undo", "sts/db", "--to-revision=1")
    rolled_out(cluster, "sts", "db")
    wait_for("the first revision renumbered", lambda: sorted(revisions(apps, "db")) == [2, 3])
    assert revisions(apps, "db")[3].metadata.name == name
    wait_for("pods of the first revision", lambda: pod_hashes(cluster, "db") == {name})
    assert history_numbers(cluster, "sts/db") == ["2", "3"]


def test_old_revisions_beyond_the_limit_go(cluster: ServerProcess, apps: client.AppsV1Api) -> None:
    run_kubectl(cluster, "create", "-f", "-", stdin=daemonset("short", "busybox:1.35", history_limit=1))
    rolled_out(cluster, "ds", "short")
    for tag in ("1.36", "1.37"):
        run_kubectl(cluster, "set", "image", "ds/short", f"agent=busybox:{tag}")
        rolled_out(cluster, "ds", "short")
    # The current revision and one old one are kept.
    wait_for("two revisions left", lambda: sorted(revisions(apps, "short")) == [2, 3])
    assert history_numbers(cluster, "ds/short") == ["2", "3"]


def test_revisions_go_with_their_owner(cluster: ServerProcess, apps: client.AppsV1Api) -> None:
    run_kubectl(cluster, "create", "-f", "-", stdin=statefulset("cache", "redis:7.2"))
    wait_for("the first revision", lambda: len(revisions(apps, "cache")) == 1)
    run_kubectl(cluster, "delete", "sts", "cache")
    wait_for("the revisions collected", lambda: not revisions(apps, "cache"))
