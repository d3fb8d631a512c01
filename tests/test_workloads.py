"""Workload controllers on a server with simulated nodes, driven by the real kubectl: ReplicaSets keep
their pods, the garbage collector follows `--cascade`, Deployments roll."""

from __future__ import annotations

import json
import time
from typing import Any, Iterator

import pytest
from support import ServerProcess, run_kubectl, wait_for


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("workloads")),
                       extra_args=["--controllers=*", "--simulate-nodes", "3"]) as proc:
        yield proc


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
                               '"Sideways": supported values: "Foreground", "Background", "Orphan", "nil"')
    assert cluster.json("GET", "/apis/apps/v1/namespaces/default/replicasets/policy")[0] == 200


def replicasets(server: ServerProcess, selector: str) -> list[dict[str, Any]]:
    return items(server, f"/apis/apps/v1/namespaces/default/replicasets?labelSelector={selector}")


def test_a_deployment_rolls_out_as_on_a_real_cluster(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "deployment", "web", "--image=nginx", "--replicas=6")
    out = run_kubectl(cluster, "rollout", "status", "deployment/web", "--timeout=60s").stdout
    assert 'deployment "web" successfully rolled out' in out
    live = wait_for("six running pods", lambda: running(cluster, "app=web", 6))
    assert {p["spec"]["nodeName"] for p in live} == {"node-1", "node-2", "node-3"}
    [rs] = replicasets(cluster, "app=web")
    # The hash kube-controller-manager 1.36 gives this template (see test_podtemplatehash.py).
    assert rs["metadata"]["name"] == "web-7887448d46"
    assert rs["metadata"]["annotations"] == {"deployment.kubernetes.io/desired-replicas": "6",
                                             "deployment.kubernetes.io/max-replicas": "8",
                                             "deployment.kubernetes.io/revision": "1"}
    assert rs["spec"]["selector"]["matchLabels"] == {"app": "web", "pod-template-hash": "7887448d46"}
    assert all(p["metadata"]["name"].startswith("web-7887448d46-") for p in live)
    deployment = cluster.json("GET", "/apis/apps/v1/namespaces/default/deployments/web")[1]
    assert deployment["metadata"]["annotations"] == {"deployment.kubernetes.io/revision": "1"}
    assert [(c["type"], c["status"], c["reason"]) for c in deployment["status"]["conditions"]] == [
        ("Available", "True", "MinimumReplicasAvailable"), ("Progressing", "True", "NewReplicaSetAvailable")]
    row = run_kubectl(cluster, "get", "deployment", "web", "--no-headers").stdout.split()
    assert row[:4] == ["web", "6/6", "6", "6"]


def test_set_image_undo_and_restart_roll(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "deployment", "roll", "--image=nginx:1.26", "--replicas=4")
    run_kubectl(cluster, "rollout", "status", "deployment/roll", "--timeout=60s")
    run_kubectl(cluster, "set", "image", "deployment/roll", "nginx=nginx:1.27")
    run_kubectl(cluster, "rollout", "status", "deployment/roll", "--timeout=60s")
    live = wait_for("four new pods", lambda: running(cluster, "app=roll", 4))
    assert {p["spec"]["containers"][0]["image"] for p in live} == {"nginx:1.27"}
    history = run_kubectl(cluster, "rollout", "history", "deployment/roll").stdout.split("\n")
    assert [line.split()[0] for line in history[2:] if line.strip()] == ["1", "2"]
    run_kubectl(cluster, "rollout", "undo", "deployment/roll")
    run_kubectl(cluster, "rollout", "status", "deployment/roll", "--timeout=60s")
    live = wait_for("the old image back", lambda: (r := running(cluster, "app=roll", 4))
                    and {p["spec"]["containers"][0]["image"] for p in r} == {"nginx:1.26"} and r)
    back = [rs for rs in replicasets(cluster, "app=roll") if rs["spec"]["replicas"] == 4]
    assert len(back) == 1
    assert back[0]["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"
    assert back[0]["metadata"]["annotations"]["deployment.kubernetes.io/revision-history"] == "1"
    before = {p["metadata"]["name"] for p in live}
    run_kubectl(cluster, "rollout", "restart", "deployment/roll")
    run_kubectl(cluster, "rollout", "status", "deployment/roll", "--timeout=60s")
    after = wait_for("restarted pods", lambda: (r := running(cluster, "app=roll", 4))
                     and not before & {p["metadata"]["name"] for p in r} and r)
    assert all("kubectl.kubernetes.io/restartedAt" in p["metadata"]["annotations"] for p in after)
    assert len(replicasets(cluster, "app=roll")) == 3


def test_scale_and_recreate(cluster: ServerProcess) -> None:
    manifest = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "re"},
                "spec": {"replicas": 3, "strategy": {"type": "Recreate"}, "selector": {"matchLabels": {"app": "re"}},
                         "template": {"metadata": {"labels": {"app": "re"}},
                                      "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}}}
    run_kubectl(cluster, "apply", "-f", "-", stdin=json.dumps(manifest))
    run_kubectl(cluster, "rollout", "status", "deployment/re", "--timeout=60s")
    run_kubectl(cluster, "scale", "deployment/re", "--replicas=5")
    wait_for("five pods", lambda: running(cluster, "app=re", 5))
    run_kubectl(cluster, "scale", "deployment/re", "--replicas=1")
    wait_for("one pod", lambda: running(cluster, "app=re", 1))
    run_kubectl(cluster, "set", "image", "deployment/re", "c=nginx:2")
    run_kubectl(cluster, "rollout", "status", "deployment/re", "--timeout=60s")
    [pod] = wait_for("the new pod", lambda: (r := running(cluster, "app=re", 1))
                     and r[0]["spec"]["containers"][0]["image"] == "nginx:2" and r)
    events = run_kubectl(cluster, "get", "events", "--field-selector", "involvedObject.name=re").stdout
    assert "Scaled down replica set" in events and "Scaled up replica set" in events


def test_deleting_a_deployment_removes_its_replicasets_and_pods(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "deployment", "gone", "--image=nginx", "--replicas=3")
    run_kubectl(cluster, "rollout", "status", "deployment/gone", "--timeout=60s")
    run_kubectl(cluster, "delete", "deployment", "gone")
    wait_for("nothing left", lambda: not replicasets(cluster, "app=gone") and not pods(cluster, "app=gone"))


def test_pause_and_resume(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "deployment", "held", "--image=nginx:1", "--replicas=2")
    run_kubectl(cluster, "rollout", "status", "deployment/held", "--timeout=60s")
    run_kubectl(cluster, "rollout", "pause", "deployment/held")
    run_kubectl(cluster, "set", "image", "deployment/held", "nginx=nginx:2")
    paused = wait_for("the template change observed", lambda: (d := cluster.json(
        "GET", "/apis/apps/v1/namespaces/default/deployments/held")[1])
        and d["status"].get("observedGeneration") == d["metadata"]["generation"] and d)
    assert any(c.get("reason") == "DeploymentPaused" for c in paused["status"]["conditions"])
    assert len(replicasets(cluster, "app=held")) == 1
    run_kubectl(cluster, "rollout", "resume", "deployment/held")
    run_kubectl(cluster, "rollout", "status", "deployment/held", "--timeout=60s")
    wait_for("the new image", lambda: (r := running(cluster, "app=held", 2))
             and {p["spec"]["containers"][0]["image"] for p in r} == {"nginx:2"})


def test_a_service_lists_its_ready_pods(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "deployment", "api", "--image=nginx", "--replicas=3", "--port=80")
    run_kubectl(cluster, "expose", "deployment", "api", "--port=8080", "--target-port=80")
    live = wait_for("three pods", lambda: running(cluster, "app=api", 3))
    ips = sorted(p["status"]["podIP"] for p in live)

    def endpoint_ips() -> list[str] | None:
        status, ep = cluster.json("GET", "/api/v1/namespaces/default/endpoints/api")
        if status != 200 or not ep.get("subsets"):
            return None
        return sorted(a["ip"] for a in ep["subsets"][0].get("addresses", []))

    assert wait_for("the endpoints", lambda: (found := endpoint_ips()) == ips and found) == ips
    ep = cluster.json("GET", "/api/v1/namespaces/default/endpoints/api")[1]
    assert ep["subsets"][0]["ports"] == [{"port": 80, "protocol": "TCP"}]
    assert {a["targetRef"]["name"] for a in ep["subsets"][0]["addresses"]} == {p["metadata"]["name"] for p in live}
    [eps] = items(cluster, "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"
                           "?labelSelector=kubernetes.io/service-name=api")
    assert eps["metadata"]["name"].startswith("api-")
    assert eps["metadata"]["labels"]["endpointslice.kubernetes.io/managed-by"] == "endpointslice-controller.k8s.io"
    assert sorted(e["addresses"][0] for e in eps["endpoints"]) == ips
    assert all(e["conditions"] == {"ready": True, "serving": True, "terminating": False} for e in eps["endpoints"])
    assert eps["ports"] == [{"name": "", "port": 80, "protocol": "TCP"}]
    out = run_kubectl(cluster, "get", "endpoints", "api", "--no-headers").stdout
    assert ":80" in out
    run_kubectl(cluster, "scale", "deployment/api", "--replicas=1")
    wait_for("one endpoint", lambda: (found := endpoint_ips()) is not None and len(found) == 1)
    run_kubectl(cluster, "delete", "service", "api")
    wait_for("endpoints and slices gone", lambda: cluster.json("GET", "/api/v1/namespaces/default/endpoints/api")[0]
             == 404 and not items(cluster, "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"
                                           "?labelSelector=kubernetes.io/service-name=api"))


def job_status(server: ServerProcess, name: str) -> dict[str, Any]:
    return server.json("GET", f"/apis/batch/v1/namespaces/default/jobs/{name}")[1].get("status") or {}


def test_jobs_complete_and_fail(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "job", "pi", "--image=perl", "--", "perl", "-e", "print 1")
    run_kubectl(cluster, "wait", "--for=condition=complete", "job/pi", "--timeout=60s")
    status = job_status(cluster, "pi")
    assert status["succeeded"] == 1 and status["ready"] == 0 and status["uncountedTerminatedPods"] == {}
    assert [(c["type"], c["reason"]) for c in status["conditions"]] == [
        ("SuccessCriteriaMet", "CompletionsReached"), ("Complete", "CompletionsReached")]
    assert status["completionTime"] >= status["startTime"]
    indexed = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "shards"},
               "spec": {"completions": 4, "parallelism": 2, "completionMode": "Indexed",
                        "template": {"spec": {"restartPolicy": "Never",
                                              "containers": [{"name": "c", "image": "busybox"}]}}}}
    run_kubectl(cluster, "create", "-f", "-", stdin=json.dumps(indexed))
    run_kubectl(cluster, "wait", "--for=condition=complete", "job/shards", "--timeout=60s")
    status = job_status(cluster, "shards")
    assert (status["succeeded"], status["completedIndexes"]) == (4, "0-3")
    names = [p["metadata"]["name"] for p in pods(cluster, "job-name=shards")]
    assert sorted(n.rsplit("-", 1)[0] for n in names) == ["shards-0", "shards-1", "shards-2", "shards-3"]
    failing = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "doomed"},
               "spec": {"backoffLimit": 1, "template": {
                   "metadata": {"annotations": {"fastkube.io/simulated-exit-code": "1",
                                                "fastkube.io/simulated-run-seconds": "0"}},
                   "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}
    run_kubectl(cluster, "create", "-f", "-", stdin=json.dumps(failing))
    run_kubectl(cluster, "wait", "--for=condition=failed", "job/doomed", "--timeout=60s")
    status = job_status(cluster, "doomed")
    assert status["failed"] == 2
    assert [(c["type"], c["reason"]) for c in status["conditions"]] == [
        ("FailureTarget", "BackoffLimitExceeded"), ("Failed", "BackoffLimitExceeded")]


def test_a_finished_job_with_a_ttl_goes(cluster: ServerProcess) -> None:
    manifest = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "brief"},
                "spec": {"ttlSecondsAfterFinished": 1, "template": {"spec": {
                    "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}
    run_kubectl(cluster, "create", "-f", "-", stdin=json.dumps(manifest))
    run_kubectl(cluster, "wait", "--for=condition=complete", "job/brief", "--timeout=60s")
    wait_for("the job gone", lambda: cluster.json("GET", "/apis/batch/v1/namespaces/default/jobs/brief")[0] == 404)
    wait_for("its pod gone", lambda: not pods(cluster, "job-name=brief"))


def test_a_daemonset_follows_node_labels(cluster: ServerProcess) -> None:
    manifest = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
                "spec": {"selector": {"matchLabels": {"app": "agent"}},
                         "template": {"metadata": {"labels": {"app": "agent"}},
                                      "spec": {"nodeSelector": {"role": "edge"},
                                               "containers": [{"name": "a", "image": "agent:1"}]}}}}
    run_kubectl(cluster, "create", "-f", "-", stdin=json.dumps(manifest))
    run_kubectl(cluster, "label", "node", "node-1", "node-2", "role=edge")
    live = wait_for("two daemon pods", lambda: running(cluster, "app=agent", 2))
    assert sorted(p["spec"]["nodeName"] for p in live) == ["node-1", "node-2"]
    assert all({"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}
               in p["spec"]["tolerations"] for p in live)
    run_kubectl(cluster, "label", "node", "node-2", "role-")
    live = wait_for("one daemon pod", lambda: running(cluster, "app=agent", 1))
    assert live[0]["spec"]["nodeName"] == "node-1"
    ds = wait_for("the status", lambda: (d := cluster.json("GET", "/apis/apps/v1/namespaces/default/daemonsets/agent")[1])
                  and d["status"].get("numberReady") == 1 and d)
    assert (ds["status"]["desiredNumberScheduled"], ds["status"]["currentNumberScheduled"]) == (1, 1)
    run_kubectl(cluster, "set", "image", "daemonset/agent", "a=agent:2")
    run_kubectl(cluster, "rollout", "status", "daemonset/agent", "--timeout=60s")
    live = wait_for("the new image", lambda: (r := running(cluster, "app=agent", 1))
                    and r[0]["spec"]["containers"][0]["image"] == "agent:2" and r)
    run_kubectl(cluster, "label", "node", "node-1", "role-")
    wait_for("no daemon pods", lambda: not pods(cluster, "app=agent"))


def test_a_statefulset_creates_ordered_pods_and_their_claims(cluster: ServerProcess) -> None:
    manifest = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
                "spec": {"serviceName": "db", "replicas": 3, "selector": {"matchLabels": {"app": "db"}},
                         "template": {"metadata": {"labels": {"app": "db"}},
                                      "spec": {"containers": [{"name": "db", "image": "postgres:16",
                                                               "volumeMounts": [{"name": "data",
                                                                                 "mountPath": "/data"}]}]}},
                         "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {
                             "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}}
    run_kubectl(cluster, "create", "-f", "-", stdin=json.dumps(manifest))
    run_kubectl(cluster, "rollout", "status", "statefulset/db", "--timeout=60s")
    live = wait_for("three pods", lambda: running(cluster, "app=db", 3))
    assert sorted(p["metadata"]["name"] for p in live) == ["db-0", "db-1", "db-2"]
    created = sorted((p["metadata"]["creationTimestamp"], p["metadata"]["name"]) for p in live)
    assert [name for _, name in created] == ["db-0", "db-1", "db-2"]
    db1 = next(p for p in live if p["metadata"]["name"] == "db-1")
    assert (db1["spec"]["hostname"], db1["spec"]["subdomain"]) == ("db-1", "db")
    assert db1["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == "1"
    assert {"name": "data", "persistentVolumeClaim": {"claimName": "data-db-1"}} in db1["spec"]["volumes"]
    claims = items(cluster, "/api/v1/namespaces/default/persistentvolumeclaims?labelSelector=app=db")
    assert sorted(c["metadata"]["name"] for c in claims) == ["data-db-0", "data-db-1", "data-db-2"]
    run_kubectl(cluster, "set", "image", "statefulset/db", "db=postgres:17")
    run_kubectl(cluster, "rollout", "status", "statefulset/db", "--timeout=60s")
    wait_for("the new image everywhere", lambda: (r := running(cluster, "app=db", 3))
             and {p["spec"]["containers"][0]["image"] for p in r} == {"postgres:17"})
    run_kubectl(cluster, "scale", "statefulset/db", "--replicas=1")
    live = wait_for("one pod", lambda: running(cluster, "app=db", 1))
    assert live[0]["metadata"]["name"] == "db-0"
    assert len(items(cluster, "/api/v1/namespaces/default/persistentvolumeclaims?labelSelector=app=db")) == 3


def test_cronjobs_fire_and_jobs_come_from_them(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "cronjob", "tick", "--image=busybox", "--schedule=*/1 * * * *", "--", "true")
    # As if the last run were two minutes ago: the run missed since then is due at once.
    two_minutes_ago = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 120))
    status, _ = cluster.json("PATCH", "/apis/batch/v1/namespaces/default/cronjobs/tick/status",
                             {"status": {"lastScheduleTime": two_minutes_ago}},
                             content_type="application/merge-patch+json")
    assert status == 200
    jobs = wait_for("a scheduled job", lambda: items(cluster, "/apis/batch/v1/namespaces/default/jobs")
                    and [j for j in items(cluster, "/apis/batch/v1/namespaces/default/jobs")
                         if j["metadata"]["name"].startswith("tick-")])
    job = jobs[0]
    minute = int(job["metadata"]["name"].removeprefix("tick-"))
    assert time.time() - 120 < minute * 60 <= time.time()
    assert job["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"].endswith(":00Z")
    assert job["metadata"]["ownerReferences"][0]["kind"] == "CronJob"
    run_kubectl(cluster, "wait", "--for=condition=complete", f"job/{job['metadata']['name']}", "--timeout=60s")
    cronjob = wait_for("the last success", lambda: (c := cluster.json(
        "GET", "/apis/batch/v1/namespaces/default/cronjobs/tick")[1]) and c["status"].get("lastSuccessfulTime") and c)
    assert cronjob["status"]["lastScheduleTime"].endswith(":00Z")
    run_kubectl(cluster, "create", "job", "by-hand", "--from=cronjob/tick")
    run_kubectl(cluster, "wait", "--for=condition=complete", "job/by-hand", "--timeout=60s")


def test_min_ready_seconds_hold_back_availability(cluster: ServerProcess) -> None:
    manifest = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "slow"},
                "spec": {"replicas": 2, "minReadySeconds": 2, "selector": {"matchLabels": {"app": "slow"}},
                         "template": {"metadata": {"labels": {"app": "slow"}},
                                      "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    run_kubectl(cluster, "create", "-f", "-", stdin=json.dumps(manifest))
    wait_for("two ready pods", lambda: running(cluster, "app=slow", 2))
    started = time.monotonic()
    run_kubectl(cluster, "rollout", "status", "deployment/slow", "--timeout=60s")
    status = cluster.json("GET", "/apis/apps/v1/namespaces/default/deployments/slow")[1]["status"]
    assert status["availableReplicas"] == 2
    # Ready at once on a simulated node, available only after minReadySeconds (a second of clock slack).
    assert time.monotonic() - started > 0.5


def test_a_new_replicaset_adopts_the_pods_an_orphan_delete_left(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "-f", "-", stdin=replicaset("adopt", 2))
    before = {p["metadata"]["name"] for p in wait_for("two pods", lambda: running(cluster, "app=adopt", 2))}
    run_kubectl(cluster, "delete", "rs", "adopt", "--cascade=orphan", "--wait=true", "--timeout=20s")
    wait_for("orphans", lambda: all("ownerReferences" not in p["metadata"] for p in pods(cluster, "app=adopt")))
    run_kubectl(cluster, "create", "-f", "-", stdin=replicaset("adopt", 2))
    rs = cluster.json("GET", "/apis/apps/v1/namespaces/default/replicasets/adopt")[1]
    adopted = wait_for("adopted", lambda: (found := pods(cluster, "app=adopt")) and all(
        p["metadata"].get("ownerReferences", [{}])[0].get("uid") == rs["metadata"]["uid"] for p in found) and found)
    assert {p["metadata"]["name"] for p in adopted} == before


def test_a_recreated_deployment_takes_back_its_replicaset(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "deployment", "again", "--image=nginx", "--replicas=2")
    run_kubectl(cluster, "rollout", "status", "deployment/again", "--timeout=60s")
    [rs] = replicasets(cluster, "app=again")
    before = {p["metadata"]["name"] for p in running(cluster, "app=again", 2) or []}
    run_kubectl(cluster, "delete", "deployment", "again", "--cascade=orphan", "--wait=true", "--timeout=20s")
    run_kubectl(cluster, "create", "deployment", "again", "--image=nginx", "--replicas=2")
    run_kubectl(cluster, "rollout", "status", "deployment/again", "--timeout=60s")
    [same] = replicasets(cluster, "app=again")
    assert same["metadata"]["uid"] == rs["metadata"]["uid"]
    deployment = cluster.json("GET", "/apis/apps/v1/namespaces/default/deployments/again")[1]
    assert same["metadata"]["ownerReferences"][0]["uid"] == deployment["metadata"]["uid"]
    assert {p["metadata"]["name"] for p in running(cluster, "app=again", 2) or []} == before


def test_a_noexecute_taint_moves_pods_elsewhere(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "deployment", "movable", "--image=nginx", "--replicas=6")
    run_kubectl(cluster, "rollout", "status", "deployment/movable", "--timeout=60s")
    assert "node-3" in {p["spec"]["nodeName"] for p in running(cluster, "app=movable", 6) or []}
    run_kubectl(cluster, "taint", "nodes", "node-3", "maintenance=now:NoExecute")
    try:
        moved = wait_for("six pods off node-3", lambda: (r := running(cluster, "app=movable", 6))
                         and "node-3" not in {p["spec"]["nodeName"] for p in r} and r)
        assert {p["spec"]["nodeName"] for p in moved} == {"node-1", "node-2"}
    finally:
        run_kubectl(cluster, "taint", "nodes", "node-3", "maintenance=now:NoExecute-")


def test_a_stuck_rollout_exceeds_its_progress_deadline(cluster: ServerProcess) -> None:
    manifest = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "stuck"},
                "spec": {"replicas": 1, "progressDeadlineSeconds": 2, "selector": {"matchLabels": {"app": "stuck"}},
                         "template": {"metadata": {"labels": {"app": "stuck"}},
                                      "spec": {"nodeSelector": {"no-such": "node"},
                                               "containers": [{"name": "c", "image": "nginx"}]}}}}
    run_kubectl(cluster, "create", "-f", "-", stdin=json.dumps(manifest))
    result = run_kubectl(cluster, "rollout", "status", "deployment/stuck", "--timeout=60s", check=False)
    assert result.returncode != 0
    assert 'deployment "stuck" exceeded its progress deadline' in result.stderr
    status = cluster.json("GET", "/apis/apps/v1/namespaces/default/deployments/stuck")[1]["status"]
    progressing = next(c for c in status["conditions"] if c["type"] == "Progressing")
    assert (progressing["status"], progressing["reason"]) == ("False", "ProgressDeadlineExceeded")
    assert progressing["message"].endswith("has timed out progressing.")


def test_a_foreground_delete_of_a_deployment_waits_for_everything_below_it(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "deployment", "fgd", "--image=nginx", "--replicas=3")
    run_kubectl(cluster, "rollout", "status", "deployment/fgd", "--timeout=60s")
    status, body = cluster.json("DELETE", "/apis/apps/v1/namespaces/default/deployments/fgd",
                                {"propagationPolicy": "Foreground"})
    assert status == 200 and body["metadata"]["finalizers"] == ["foregroundDeletion"]
    # While the deployment is held, what it owns goes first; the deployment goes last.
    wait_for("the deployment gone", lambda: cluster.json(
        "GET", "/apis/apps/v1/namespaces/default/deployments/fgd")[0] == 404)
    assert replicasets(cluster, "app=fgd") == []
    assert pods(cluster, "app=fgd") == []
