"""Every failure is a Kubernetes Status with kube-apiserver's code and reason, and writes nothing."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from support import GOLDEN, ServerProcess

CM_PATH = "/api/v1/namespaces/default/configmaps"


def configmap(name: str, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **extra}, "data": {"a": "1"}}


def revision(server: ServerProcess) -> str:
    status, listing = server.json("GET", CM_PATH)
    assert status == 200
    return str(listing["metadata"]["resourceVersion"])


def assert_status(body: bytes | Any, code: int, reason: str) -> dict[str, Any]:
    status = json.loads(body) if isinstance(body, bytes) else body
    assert status["kind"] == "Status" and status["apiVersion"] == "v1"
    assert status["status"] == "Failure"
    assert status["code"] == code
    assert status["reason"] == reason
    assert status["message"]
    return status


def test_missing_token_is_401_like_upstream(shared_server: ServerProcess) -> None:
    status, body = shared_server.request("GET", CM_PATH, auth=False)
    assert status == 401
    with open(os.path.join(GOLDEN, "kube-1.36.2", "errors", "bad-token.table.list.json")) as f:
        assert json.loads(body) == json.load(f)


def test_wrong_token_is_401(shared_server: ServerProcess) -> None:
    status, body = shared_server.request("GET", CM_PATH, auth=False, headers={"Authorization": "Bearer nope"})
    assert status == 401
    assert_status(body, 401, "Unauthorized")


def test_health_endpoints_answer_ok(shared_server: ServerProcess) -> None:
    for path in ("/healthz", "/livez", "/readyz"):
        assert shared_server.request("GET", path, auth=False) == (200, b"ok")


def test_version_reports_1_36(shared_server: ServerProcess) -> None:
    status, version = shared_server.json("GET", "/version")
    assert status == 200
    assert (version["major"], version["minor"]) == ("1", "36")


@pytest.mark.parametrize("body, content_type", [
    (b'{"apiVersion": "v1", "kind": ', "application/json"),
    (b"kind: [unclosed", "application/yaml"),
])
def test_malformed_body_is_400_and_writes_nothing(shared_server: ServerProcess, body: bytes,
                                                  content_type: str) -> None:
    before = revision(shared_server)
    status, answer = shared_server.request("POST", CM_PATH, body, content_type=content_type)
    assert status == 400
    assert_status(answer, 400, "BadRequest")
    assert revision(shared_server) == before


def test_yaml_body_is_accepted(shared_server: ServerProcess) -> None:
    body = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n"
    status, created = shared_server.request("POST", CM_PATH, body, content_type="application/yaml")
    assert status == 201
    assert json.loads(created)["data"] == {"k": "v"}


def test_unknown_resource_is_404_like_upstream(shared_server: ServerProcess) -> None:
    status, body = shared_server.request("GET", "/api/v1/namespaces/golden/doesnotexist")
    assert status == 404
    with open(os.path.join(GOLDEN, "kube-1.36.2", "errors", "table-nonexistent-resource.list.json")) as f:
        assert json.loads(body) == json.load(f)


def test_missing_object_is_404_like_upstream(shared_server: ServerProcess) -> None:
    status, body = shared_server.request("GET", "/api/v1/namespaces/golden/configmaps/doesnotexist")
    assert status == 404
    with open(os.path.join(GOLDEN, "kube-1.36.2", "errors", "table-nonexistent-object.get.json")) as f:
        assert json.loads(body) == json.load(f)


def test_list_in_missing_namespace_is_empty(shared_server: ServerProcess) -> None:
    status, listing = shared_server.json("GET", "/api/v1/namespaces/nowhere/configmaps")
    assert status == 200 and listing["items"] == []


def test_create_in_missing_namespace_is_404(shared_server: ServerProcess) -> None:
    status, body = shared_server.json("POST", "/api/v1/namespaces/nowhere/configmaps", configmap("x"))
    assert status == 404
    assert assert_status(body, 404, "NotFound")["message"] == 'namespaces "nowhere" not found'


def test_duplicate_create_is_409_already_exists(shared_server: ServerProcess) -> None:
    assert shared_server.json("POST", CM_PATH, configmap("dup"))[0] == 201
    before = revision(shared_server)
    status, body = shared_server.json("POST", CM_PATH, configmap("dup"))
    assert status == 409
    assert assert_status(body, 409, "AlreadyExists")["message"] == 'configmaps "dup" already exists'
    assert revision(shared_server) == before


def test_stale_update_is_409_conflict(shared_server: ServerProcess) -> None:
    status, created = shared_server.json("POST", CM_PATH, configmap("stale"))
    assert status == 201
    first = dict(created, data={"v": "1"})
    assert shared_server.json("PUT", CM_PATH + "/stale", first)[0] == 200
    stale = dict(created, data={"v": "2"})
    status, body = shared_server.json("PUT", CM_PATH + "/stale", stale)
    assert status == 409
    status_body = assert_status(body, 409, "Conflict")
    assert "the object has been modified" in status_body["message"]
    assert shared_server.json("GET", CM_PATH + "/stale")[1]["data"] == {"v": "1"}


def test_update_of_missing_object_is_404(shared_server: ServerProcess) -> None:
    status, body = shared_server.json("PUT", CM_PATH + "/ghost", configmap("ghost"))
    assert status == 404
    assert_status(body, 404, "NotFound")


def test_invalid_name_is_422_with_upstream_message(shared_server: ServerProcess) -> None:
    before = revision(shared_server)
    status, body = shared_server.json("POST", CM_PATH, configmap("Bad_Name"))
    assert status == 422
    invalid = assert_status(body, 422, "Invalid")
    assert invalid["message"] == (
        'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 '
        "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with "
        "an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
    assert invalid["details"]["causes"][0]["field"] == "metadata.name"
    assert revision(shared_server) == before


def test_missing_name_is_422(shared_server: ServerProcess) -> None:
    status, body = shared_server.json("POST", CM_PATH, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}})
    assert status == 422
    assert "metadata.name: Required value: name or generateName is required" in body["message"]


def test_invalid_label_value_is_422(shared_server: ServerProcess) -> None:
    status, body = shared_server.json("POST", CM_PATH, configmap("labelled", labels={"ok": "not ok!"}))
    assert status == 422
    assert 'metadata.labels: Invalid value: "not ok!"' in body["message"]


def test_generate_name(shared_server: ServerProcess) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "gen-"}}
    status, created = shared_server.json("POST", CM_PATH, body)
    assert status == 201
    name = created["metadata"]["name"]
    assert name.startswith("gen-") and len(name) == len("gen-") + 5


def test_body_over_3_mib_is_413(shared_server: ServerProcess) -> None:
    before = revision(shared_server)
    huge = configmap("huge")
    huge["data"] = {"blob": "x" * (3 * 1024 * 1024 + 1)}
    status, body = shared_server.request("POST", CM_PATH, huge)
    assert status == 413
    assert_status(body, 413, "RequestEntityTooLarge")
    assert revision(shared_server) == before


def test_unsupported_content_type_is_415(shared_server: ServerProcess) -> None:
    status, body = shared_server.request("POST", CM_PATH, b"<xml/>", content_type="application/xml")
    assert status == 415
    assert_status(body, 415, "UnsupportedMediaType")


def test_a_patch_of_an_unknown_type_is_415(shared_server: ServerProcess) -> None:
    assert shared_server.json("POST", CM_PATH, configmap("smp"))[0] == 201
    status, body = shared_server.request("PATCH", CM_PATH + "/smp", {"data": {"b": "2"}},
                                         content_type="application/x-patch+json")
    assert status == 415
    assert_status(body, 415, "UnsupportedMediaType")


def test_post_to_a_named_object_is_405(shared_server: ServerProcess) -> None:
    status, body = shared_server.json("POST", CM_PATH + "/x", configmap("x"))
    assert status == 405
    assert_status(body, 405, "MethodNotAllowed")


def test_head_of_an_object_is_405_not_a_server_error(shared_server: ServerProcess) -> None:
    # The router lets HEAD through wherever GET goes; kube-apiserver routes no HEAD to its resources.
    shared_server.json("POST", CM_PATH, configmap("headed"))
    status, _ = shared_server.request("HEAD", CM_PATH + "/headed")  # a HEAD answer has no body to read
    assert status == 405
    assert "unhandled error" not in shared_server.log()


def test_dry_run_writes_nothing(shared_server: ServerProcess) -> None:
    before = revision(shared_server)
    status, created = shared_server.json("POST", CM_PATH + "?dryRun=All", configmap("dry"))
    assert status == 201 and created["metadata"]["name"] == "dry"
    assert shared_server.json("GET", CM_PATH + "/dry")[0] == 404
    assert revision(shared_server) == before


def test_wrong_kind_in_body_is_400(shared_server: ServerProcess) -> None:
    body = configmap("wrong")
    body["kind"] = "Secret"
    status, answer = shared_server.json("POST", CM_PATH, body)
    assert status == 400
    assert_status(answer, 400, "BadRequest")


def test_delete_answers_a_success_status_and_delete_again_is_404(shared_server: ServerProcess) -> None:
    status, created = shared_server.json("POST", CM_PATH, configmap("gone"))
    assert status == 201
    status, answer = shared_server.json("DELETE", CM_PATH + "/gone")
    assert status == 200
    assert answer["kind"] == "Status" and answer["status"] == "Success"
    assert answer["details"] == {"name": "gone", "kind": "configmaps", "uid": created["metadata"]["uid"]}
    assert shared_server.json("DELETE", CM_PATH + "/gone")[0] == 404
