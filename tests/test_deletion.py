"""Deletion as kube-apiserver does it: finalizers, pod grace periods, collections, whole namespaces."""

from __future__ import annotations

from typing import Any

from support import ServerProcess, run_kubectl


def create(server: ServerProcess, path: str, body: dict) -> dict:
    status, created = server.json("POST", path, body)
    assert status == 201, created
    return created


def test_deleting_a_namespace_removes_its_contents(shared_server: ServerProcess) -> None:
    create(shared_server, "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                 "metadata": {"name": "doomed"}})
    create(shared_server, "/api/v1/namespaces/doomed/configmaps",
           {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "inside"}})
    create(shared_server, "/apis/apps/v1/namespaces/doomed/deployments", {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": {"a": "b"}},
                 "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}})
    run_kubectl(shared_server, "delete", "namespace", "doomed")
    assert shared_server.json("GET", "/api/v1/namespaces/doomed")[0] == 404
    assert shared_server.json("GET", "/api/v1/namespaces/doomed/configmaps")[1]["items"] == []
    assert shared_server.json("GET", "/apis/apps/v1/namespaces/doomed/deployments")[1]["items"] == []


def test_a_namespace_held_by_a_finalized_object_stays_terminating(shared_server: ServerProcess) -> None:
    create(shared_server, "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                 "metadata": {"name": "held"}})
    create(shared_server, "/api/v1/namespaces/held/configmaps",
           {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "keep", "finalizers": ["x.io/keep"]}})
    run_kubectl(shared_server, "delete", "namespace", "held", "--wait=false")
    status, ns = shared_server.json("GET", "/api/v1/namespaces/held")
    assert status == 200 and ns["status"]["phase"] == "Terminating" and ns["metadata"]["deletionTimestamp"]
    status, refused = shared_server.json("POST", "/api/v1/namespaces/held/configmaps",
                                         {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new"}})
    assert status == 403 and refused["reason"] == "Forbidden"
    assert "because it is being terminated" in refused["message"]
    status, _ = shared_server.json("PATCH", "/api/v1/namespaces/held/configmaps/keep",
                                   [{"op": "remove", "path": "/metadata/finalizers"}])
    assert status == 415
    status, _ = shared_server.request("PATCH", "/api/v1/namespaces/held/configmaps/keep",
                                      b'[{"op":"remove","path":"/metadata/finalizers"}]',
                                      content_type="application/json-patch+json")
    assert status == 200
    assert shared_server.json("GET", "/api/v1/namespaces/held/configmaps/keep")[0] == 404
    assert shared_server.json("GET", "/api/v1/namespaces/held")[0] == 404


def test_scheduled_pod_waits_for_its_grace_period_and_force_deletes(shared_server: ServerProcess) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "graceful"},
           "spec": {"nodeName": "node-x", "containers": [{"name": "c", "image": "i"}]}}
    create(shared_server, "/api/v1/namespaces/default/pods", pod)
    status, deleting = shared_server.json("DELETE", "/api/v1/namespaces/default/pods/graceful")
    assert status == 200
    assert deleting["metadata"]["deletionGracePeriodSeconds"] == 30 and deleting["metadata"]["deletionTimestamp"]
    assert shared_server.json("GET", "/api/v1/namespaces/default/pods/graceful")[0] == 200
    status, _ = shared_server.json("DELETE", "/api/v1/namespaces/default/pods/graceful?gracePeriodSeconds=0")
    assert status == 200
    assert shared_server.json("GET", "/api/v1/namespaces/default/pods/graceful")[0] == 404


def test_unscheduled_pod_is_deleted_at_once_and_answers_the_object(shared_server: ServerProcess) -> None:
    create(shared_server, "/api/v1/namespaces/default/pods", {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "unscheduled"},
        "spec": {"containers": [{"name": "c", "image": "i"}]}})
    status, deleted = shared_server.json("DELETE", "/api/v1/namespaces/default/pods/unscheduled")
    assert status == 200 and deleted["kind"] == "Pod" and deleted["metadata"]["name"] == "unscheduled"
    assert shared_server.json("GET", "/api/v1/namespaces/default/pods/unscheduled")[0] == 404


def _grace_and_generation(answer: dict[str, Any]) -> tuple[Any, Any]:
    return answer["metadata"].get("deletionGracePeriodSeconds"), answer["metadata"].get("generation")


def test_a_graceful_deletion_may_only_be_shortened(shared_server: ServerProcess) -> None:
    """rest.BeforeDelete, each answer as kube-apiserver 1.36.2 gives it: a negative grace period is one
    second, a later delete may shorten the period but not lengthen it, and the first one is a new
    generation; at zero the pod goes, answering as marked."""
    pods = "/api/v1/namespaces/default/pods"
    for name in ("negative", "shortened"):
        create(shared_server, pods, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                                     "spec": {"nodeName": "node-x", "containers": [{"name": "c", "image": "i"}]}})
    status, deleting = shared_server.json("DELETE", f"{pods}/negative?gracePeriodSeconds=-1")
    assert status == 200 and _grace_and_generation(deleting) == (1, 2)
    answers = [shared_server.json("DELETE", f"{pods}/shortened{query}")[1]
               for query in ("", "", "?gracePeriodSeconds=10", "?gracePeriodSeconds=20", "?gracePeriodSeconds=0")]
    assert [_grace_and_generation(a) for a in answers] == [(30, 2), (30, 2), (10, 2), (10, 2), (0, 2)]
    assert shared_server.json("GET", f"{pods}/shortened")[0] == 404
    assert shared_server.json("GET", f"{pods}/negative")[0] == 200


def test_delete_collection_honours_the_field_selector(shared_server: ServerProcess) -> None:
    create(shared_server, "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                 "metadata": {"name": "coll"}})
    for name in ("a", "b", "c"):
        create(shared_server, "/api/v1/namespaces/coll/secrets",
               {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}})
    status, deleted = shared_server.json("DELETE", "/api/v1/namespaces/coll/secrets?fieldSelector=metadata.name!%3Db")
    assert status == 200
    assert sorted(item["metadata"]["name"] for item in deleted["items"]) == ["a", "c"]
    remaining = shared_server.json("GET", "/api/v1/namespaces/coll/secrets")[1]["items"]
    assert [item["metadata"]["name"] for item in remaining] == ["b"]


def test_precondition_on_uid_is_409(shared_server: ServerProcess) -> None:
    create(shared_server, "/api/v1/namespaces/default/configmaps",
           {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "pre"}})
    status, body = shared_server.json("DELETE", "/api/v1/namespaces/default/configmaps/pre",
                                      {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": "nope"}})
    assert status == 409 and body["reason"] == "Conflict"
    assert shared_server.json("GET", "/api/v1/namespaces/default/configmaps/pre")[0] == 200


def test_kubectl_wait_for_delete(shared_server: ServerProcess) -> None:
    create(shared_server, "/api/v1/namespaces/default/configmaps",
           {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "awaited"}})
    run_kubectl(shared_server, "delete", "configmap", "awaited", "--wait=false")
    run_kubectl(shared_server, "wait", "--for=delete", "configmap/awaited", "--timeout=10s")
