"""Discovery documents match kube-apiserver 1.36's for every resource this server serves."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from support import GOLDEN, ServerProcess, run_kubectl

from apiserver.kinds.resources import BUILTIN

DISCOVERY = os.path.join(GOLDEN, "kube-1.36.2", "discovery")
AGGREGATED_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
KUBECTL_ACCEPT = ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
                  "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json")


def golden(name: str) -> Any:
    with open(os.path.join(DISCOVERY, name)) as f:
        return json.load(f)


def resources_by_group(doc: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    out = {}
    for group in doc["items"]:
        for version in group["versions"]:
            for resource in version["resources"]:
                out[(group["metadata"].get("name", ""), version["version"], resource["resource"])] = resource
    return out


def _builtin_groups(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The document's groups without the custom resources' group the fixtures create."""
    return [g for g in doc["items"] if g["metadata"].get("name") != "example.com"]


@pytest.mark.parametrize("path, golden_file", [("/api", "api.aggregated-v2.json"),
                                               ("/apis", "apis.aggregated-v2.json")])
def test_aggregated_discovery_equals_upstream(server: ServerProcess, path: str, golden_file: str) -> None:
    status, raw = server.request("GET", path, headers={"Accept": KUBECTL_ACCEPT})
    assert status == 200
    ours = json.loads(raw)
    assert _builtin_groups(ours) == _builtin_groups(golden(golden_file))
    assert {k: v for k, v in ours.items() if k != "items"} == {
        k: v for k, v in golden(golden_file).items() if k != "items"}


@pytest.mark.parametrize("golden_file, wide", [("kubectl-api-resources.txt", False),
                                               ("kubectl-api-resources.wide.txt", True)])
def test_kubectl_api_resources_equal_upstream(server: ServerProcess, golden_file: str, wide: bool) -> None:
    with open(os.path.join(DISCOVERY, golden_file)) as f:
        lines = f.read().splitlines()
    assert lines[0].startswith("$ kubectl api-resources")
    result = run_kubectl(server, "api-resources", *(["-o", "wide"] if wide else []))
    assert result.stdout.splitlines() == lines[1:]


def test_every_legacy_resource_list_equals_upstream_where_captured(server: ServerProcess) -> None:
    for path, golden_file in (("/api/v1", "api.v1.json"), ("/apis/apps/v1", "apis.apps.v1.json")):
        status, ours = server.json("GET", path)
        assert status == 200
        assert ours == golden(golden_file)


def test_aggregated_discovery_headers(shared_server: ServerProcess) -> None:
    import urllib.request

    req = urllib.request.Request(shared_server.url + "/apis", headers={
        "Accept": KUBECTL_ACCEPT, "Authorization": f"Bearer {shared_server.token}"})
    with urllib.request.urlopen(req, context=shared_server.ssl_context()) as resp:
        assert resp.headers["Content-Type"] == AGGREGATED_V2
        assert resp.headers["Vary"] == "Accept"
        assert resp.headers["Cache-Control"] == "public"
        assert resp.headers["ETag"].startswith('"') and len(resp.headers["ETag"]) == 130


def test_v2beta1_alone_is_406_like_1_36(shared_server: ServerProcess) -> None:
    status, raw = shared_server.request("GET", "/apis", headers={
        "Accept": "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"})
    assert status == 406
    with open(os.path.join(DISCOVERY, "apis.aggregated-v2beta1.json")) as f:
        assert json.loads(raw) == json.load(f)


def test_legacy_core_resource_list_equals_upstream(shared_server: ServerProcess) -> None:
    status, ours = shared_server.json("GET", "/api/v1")
    assert status == 200
    theirs = {r["name"]: r for r in golden("api.v1.json")["resources"]}
    assert ours["kind"] == "APIResourceList" and ours["groupVersion"] == "v1" and "apiVersion" not in ours
    for entry in ours["resources"]:
        assert entry == theirs[entry["name"]]


def test_legacy_group_version_document(shared_server: ServerProcess) -> None:
    status, ours = shared_server.json("GET", "/apis/apps/v1")
    assert status == 200
    theirs = {r["name"]: r for r in golden("apis.apps.v1.json")["resources"]}
    assert ours["apiVersion"] == "v1" and ours["groupVersion"] == "apps/v1"
    for entry in ours["resources"]:
        assert entry == theirs[entry["name"]]


def test_group_list_keeps_upstream_order(shared_server: ServerProcess) -> None:
    status, ours = shared_server.json("GET", "/apis")
    assert status == 200
    theirs = [g["name"] for g in golden("apis.json")["groups"]]
    names = [g["name"] for g in ours["groups"]]
    assert names == [n for n in theirs if n != "example.com"]
    expected = {g["name"]: g for g in golden("apis.json")["groups"]}
    for group in ours["groups"]:
        assert group == expected[group["name"]]


def test_api_versions(shared_server: ServerProcess) -> None:
    status, ours = shared_server.json("GET", "/api")
    assert status == 200
    assert ours["kind"] == "APIVersions" and ours["versions"] == ["v1"]
    assert ours["serverAddressByClientCIDRs"][0]["serverAddress"] == f"127.0.0.1:{shared_server.port}"


def test_unknown_group_is_404(shared_server: ServerProcess) -> None:
    """A group nobody serves falls through to Go's plain-text NotFound; a built-in group's web service
    answers an unknown version with a Status."""
    assert shared_server.request("GET", "/apis/nope.example.com") == (404, b"404 page not found\n")
    assert shared_server.json("GET", "/apis/apps/v9")[0] == 404


def test_kubectl_explain_works_for_every_stored_kind(shared_server: ServerProcess) -> None:
    for rt in BUILTIN:
        if rt.synthetic:
            continue
        out = run_kubectl(shared_server, "explain", rt.plural, f"--api-version={rt.group_version}").stdout
        # kubectl names no group for the core one.
        expected = ([f"GROUP:      {rt.group}"] if rt.group else []) + [f"KIND:       {rt.kind}",
                                                                        f"VERSION:    {rt.version}"]
        assert out.splitlines()[:len(expected)] == expected, rt
