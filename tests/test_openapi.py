"""The OpenAPI documents kubectl downloads before an apply: /openapi/v3 and /openapi/v2."""

from __future__ import annotations

import json

from support import ServerProcess, kubectl_versions, run_kubectl


def test_v3_index_names_a_document_per_group_version_by_hash(shared_server: ServerProcess) -> None:
    status, index = shared_server.json("GET", "/openapi/v3")
    assert status == 200
    assert {"api/v1", "apis/apps/v1", "apis/batch/v1", "apis/networking.k8s.io/v1"} <= set(index["paths"])
    url = index["paths"]["apis/apps/v1"]["serverRelativeURL"]
    assert url.startswith("/openapi/v3/apis/apps/v1?hash=")
    status, doc = shared_server.json("GET", url)
    assert status == 200
    schemas = doc["components"]["schemas"]
    containers = schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["x-kubernetes-patch-merge-key"] == "name"
    assert containers["items"] == {"$ref": "#/components/schemas/io.k8s.api.core.v1.Container"}
    patch = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert patch["x-kubernetes-group-version-kind"] == {"group": "apps", "version": "v1", "kind": "Deployment"}
    assert "fieldValidation" in [p["name"] for p in patch["parameters"]]


def test_unknown_group_version_document_is_404(shared_server: ServerProcess) -> None:
    assert shared_server.request("GET", "/openapi/v3/apis/nope.example.com/v1")[0] == 404


def test_v2_is_json_or_protobuf_by_accept(shared_server: ServerProcess) -> None:
    status, doc = shared_server.json("GET", "/openapi/v2")
    assert status == 200
    assert doc["swagger"] == "2.0"
    assert "io.k8s.api.apps.v1.Deployment" in doc["definitions"]
    status, raw = shared_server.request(
        "GET", "/openapi/v2", headers={"Accept": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"})
    assert status == 200
    assert raw.startswith(b"\n\x032.0") and b"io.k8s.api.apps.v1.Deployment" in raw


def test_kubectl_apply_with_default_validation_leaves_it_to_the_server(shared_server: ServerProcess) -> None:
    for version in ("1.27", "1.33"):
        binary = kubectl_versions().get(version)
        if binary is None:
            continue
        manifest = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"name": "openapi-" + version.replace(".", "-"), "namespace": "default"}})
        out = run_kubectl(shared_server, "apply", "-f", "-", "-v=6", binary=binary, stdin=manifest)
        assert "/openapi/v3/api/v1?hash=" in out.stderr
        assert "fieldValidation=Strict" in out.stderr
