"""pods/binding on a server without controllers: it sets spec.nodeName once, with upstream's errors."""

from __future__ import annotations

import json
from typing import Any

from kubernetes import client, config
from support import ServerProcess, run_kubectl

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
    # BindingREST's own check (kube-apiserver 1.36.2 answers these two alike): an unnamed Binding
    # does not name the URL's pod either.
    for named in ({"name": "other"}, {}):
        status, body = server.json("POST", f"{PODS}/pending/binding", {
            "apiVersion": "v1", "kind": "Binding", "metadata": named, "target": {"name": "node-a"}})
        assert (status, body["reason"]) == (400, "BadRequest")
        assert body["message"] == "name in URL does not match name in Binding object"
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


BINDINGS = "/api/v1/namespaces/default/bindings"


def test_the_bindings_collection_binds_the_pod_its_binding_names(server: ServerProcess) -> None:
    make_pod(server, "legacy")
    status, body = server.json("POST", BINDINGS, binding("legacy", "node-a"))
    assert (status, body) == (201, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                                    "code": 201})
    _, pod = server.json("GET", f"{PODS}/legacy")
    assert pod["spec"]["nodeName"] == "node-a"
    assert [c["type"] for c in pod["status"]["conditions"]] == ["PodScheduled"]
    status, body = server.json("POST", BINDINGS, binding("legacy", "node-b"))
    assert (status, body["reason"], body["details"]) == (409, "Conflict", {"name": "legacy", "kind": "pods/binding"})
    assert body["message"] == ('Operation cannot be fulfilled on pods/binding "legacy": '
                               'pod legacy is already assigned to node "node-a"')
    assert server.json("GET", f"{PODS}/legacy")[1]["spec"]["nodeName"] == "node-a"


def test_the_bindings_collection_refuses_what_pods_binding_refuses(server: ServerProcess) -> None:
    make_pod(server, "waiting")
    _, before = server.json("GET", f"{PODS}/waiting")
    status, body = server.json("POST", BINDINGS, binding("absent", "node-a"))
    assert (status, body["reason"], body["message"]) == (404, "NotFound", 'pods "absent" not found')
    status, body = server.json("POST", BINDINGS, {"apiVersion": "v1", "kind": "Binding",
                                                  "metadata": {"name": "waiting"}, "target": {"kind": "Node"}})
    assert (status, body["message"]) == (500, "target.name: Required value")
    status, body = server.json("POST", BINDINGS, binding("waiting", "node-a", namespace="kube-system"))
    assert (status, body["reason"]) == (400, "BadRequest")
    status, body = server.json("POST", BINDINGS, binding("", "node-a"))
    assert (status, body["message"]) == (400, "Name parameter required.")
    status, body = server.json("POST", "/api/v1/namespaces/default/bindings?dryRun=All", binding("waiting", "node-a"))
    assert status == 201
    assert server.json("GET", f"{PODS}/waiting")[1] == before


def test_kubectl_and_the_python_client_bind_through_the_collection(server: ServerProcess) -> None:
    make_pod(server, "by-kubectl")
    make_pod(server, "by-client")
    run_kubectl(server, "create", "-f", "-", stdin=json.dumps(binding("by-kubectl", "node-k")))
    config.load_kube_config(config_file=server.kubeconfig)
    body = client.V1Binding(metadata=client.V1ObjectMeta(name="by-client"),
                            target=client.V1ObjectReference(kind="Node", name="node-p"))
    # The answer is a Status, which the client's Binding model cannot hold: read it raw.
    answer = client.CoreV1Api().create_namespaced_binding("default", body, _preload_content=False)
    assert answer.status == 201 and json.loads(answer.data)["status"] == "Success"
    assert server.json("GET", f"{PODS}/by-kubectl")[1]["spec"]["nodeName"] == "node-k"
    assert server.json("GET", f"{PODS}/by-client")[1]["spec"]["nodeName"] == "node-p"


def test_a_binding_brings_its_labels_and_its_node_topology(server: ServerProcess) -> None:
    """PodTopologyLabelsAdmission (on at 1.36): the Binding's labels are copied onto the pod, and
    pods/binding (not the legacy bindings resource) adds the node's zone and region first; a Binding's
    uid is a precondition. kube-apiserver 1.36.2 leaves these pods with the same labels."""
    status, _ = server.json("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {
        "name": "zoned", "labels": {"topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/region": "r1",
                                    "other": "x"}}})
    assert status == 201
    for name in ("by-subresource", "by-bindings", "wrong-uid"):
        status, _ = server.json("POST", PODS, {"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": name, "labels": {"keep": "1", "topology.kubernetes.io/zone": "old"}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
        assert status == 201
    assert server.json("POST", f"{PODS}/by-subresource/binding",
                       binding("by-subresource", "zoned", labels={"l": "v"}))[0] == 201
    assert server.json("POST", "/api/v1/namespaces/default/bindings",
                       binding("by-bindings", "zoned", labels={"l": "v"}))[0] == 201
    status, body = server.json("POST", f"{PODS}/wrong-uid/binding", binding("wrong-uid", "zoned", uid="nope"))
    assert (status, body["reason"]) == (409, "Conflict")
    assert body["message"].startswith(
        'Operation cannot be fulfilled on pods "wrong-uid": StorageError: invalid object, Code: 4, '
        "Key: /registry/pods/default/wrong-uid, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: "
        "UID in precondition: nope, UID in object meta: ")
    labels = {name: server.json("GET", f"{PODS}/{name}")[1]["metadata"]["labels"]
              for name in ("by-subresource", "by-bindings", "wrong-uid")}
    assert labels == {
        "by-subresource": {"keep": "1", "l": "v", "topology.kubernetes.io/zone": "z1",
                           "topology.kubernetes.io/region": "r1"},
        "by-bindings": {"keep": "1", "l": "v", "topology.kubernetes.io/zone": "old"},
        "wrong-uid": {"keep": "1", "topology.kubernetes.io/zone": "old"},
    }
