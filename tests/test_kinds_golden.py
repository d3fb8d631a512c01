"""Objects exactly as kube-apiserver 1.36 keeps them: apply every fixture, compare `get -o json` (managedFields too)."""

from __future__ import annotations

import json
from typing import Iterator

import pytest
from golden_objects import (
    fixture_objects,
    golden_object,
    key_order,
    load_fixtures,
    normalized,
    object_path,
    resource_name,
)
from support import ServerProcess, run_kubectl, versioned_kubectl

# 1.33 finds the schemas in /openapi/v3; 1.27 also downloads /openapi/v2 before it applies.
KUBECTLS = ["1.33", "1.27"]


@pytest.fixture(scope="module", params=KUBECTLS)
def loaded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    binary = versioned_kubectl(request.param)
    server = ServerProcess(str(tmp_path_factory.mktemp("golden")))
    server.start()
    try:
        load_fixtures(server, binary)
        yield server, binary
    finally:
        server.stop()


def _label(doc: dict[str, object]) -> str:
    meta = doc["metadata"]
    assert isinstance(meta, dict)
    return f"{doc['kind']}-{meta.get('namespace', '')}-{meta['name']}"


@pytest.mark.parametrize("doc", list(fixture_objects()), ids=_label)
def test_get_json_matches_golden(loaded: tuple[ServerProcess, str], doc: dict[str, object]) -> None:
    server, binary = loaded
    meta = doc["metadata"]
    assert isinstance(meta, dict)
    scope = ["-n", meta["namespace"]] if "namespace" in meta else []
    plural, _, group = resource_name(doc).partition(".")
    version = str(doc["apiVersion"]).rpartition("/")[2]
    resource = f"{plural}.{version}.{group}" if group else plural
    got = json.loads(run_kubectl(server, *scope, "get", resource, meta["name"], "-o", "json", "--show-managed-fields",
                                  binary=binary).stdout)
    want = normalized(golden_object(doc))
    assert normalized(got) == want
    # kubectl sorts keys when it prints; the bytes the server sends keep upstream's order.
    status, raw = server.json("GET", object_path(doc))
    assert status == 200
    assert key_order(normalized(raw)) == key_order(want)


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public", "kube-node-lease"])
def test_namespaces_the_server_creates_match_the_golden(shared_server: ServerProcess, name: str) -> None:
    status, got = shared_server.json("GET", f"/api/v1/namespaces/{name}")
    assert status == 200
    want = normalized(golden_object({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}))
    assert normalized(got) == want
    assert key_order(normalized(got)) == key_order(want)
