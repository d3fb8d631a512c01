"""pods/binding on a server without controllers: it sets spec.nodeName once, with upstream's errors."""

from __future__ import annotations

from typing import Any

from support import ServerProcess

PODS = "/api/v1/namespaces/default/pods"


def make_pod(server: ServerProcess, name: str) -> dict[str, Any]:
    status, body = server.json("POST", PODS, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    assert status == 201, body
    return body  # type: ignore[no-any-return]


def binding(name: str, node: str, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, **extra},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node}}


def test_a_binding_sets_the_node_once(server: ServerProcess) -> None:
    created = make_pod(server, "bind-me")
    status, body = server.json("POST", f"{PODS}/bind-me/binding",
                               binding("bind-me", "node-a", annotations={"scheduled-by": "test"}))
    assert (status, body) == (201, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                                    "code": 201})
    status, pod = server.json("GET", f"{PODS}/bind-me")
    assert pod["spec"]["nodeName"] == "node-a"
    assert pod["metadata"]["annotations"] == {"scheduled-by": "test"}
    assert pod["metadata"]["managedFields"] == created["metadata"]["managedFields"]  # written as storage, untracked
    [condition] = pod["status"]["conditions"]
    assert condition["type"] == "PodScheduled" and condition["status"] == "True"
    assert condition["lastProbeTime"] is None
    status, body = server.json("POST", f"{PODS}/bind-me/binding", binding("bind-me", "node-b"))
    assert status == 409
    assert body["reason"] == "Conflict"
    assert body["message"] == ('Operation cannot be fulfilled on pods/binding "bind-me": '
                               'pod bind-me is already assigned to node "node-a"')
    assert body["details"] == {"name": "bind-me", "kind": "pods/binding"}


def test_bad_bindings_are_refused_and_write_nothing(server: ServerProcess) -> None:
    make_pod(server, "pending")
    _, before = server.json("GET", f"{PODS}/pending")
    status, body = server.json("POST", f"{PODS}/pending/binding",
                               {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "pending"},
                                "target": {"kind": "Pod"}})
    assert (status, body["message"]) == (500, '[target.kind: Unsupported value: "Pod": supported values: "Node", '
                                              '"<empty>", target.name: Required value]')
    status, body = server.json("POST", f"{PODS}/pending/binding", binding("other", "node-a"))
    assert (status, body["reason"]) == (400, "BadRequest")
    assert body["message"] == "the name of the object (other) does not match the name on the URL (pending)"
    status, body = server.json("POST", f"{PODS}/missing/binding", binding("missing", "node-a"))
    assert (status, body["reason"], body["message"]) == (404, "NotFound", 'pods "missing" not found')
    assert server.json("GET", f"{PODS}/pending")[1] == before


def test_a_pod_being_deleted_cannot_be_bound(server: ServerProcess) -> None:
    status, _ = server.json("POST", PODS, {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "leaving", "finalizers": ["example.com/hold"]},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    assert status == 201
    assert server.json("DELETE", f"{PODS}/leaving")[0] == 200
    status, body = server.json("POST", f"{PODS}/leaving/binding", binding("leaving", "node-a"))
    assert status == 409
    assert body["message"].endswith("pod leaving is being deleted, cannot be assigned to a host")
