"""Plain lists splice the stored bytes: byte-identical to parsing every object and serializing the list."""

from __future__ import annotations

import json

import orjson

from support import ServerProcess


def test_spliced_list_equals_a_full_reserialization(shared_server: ServerProcess) -> None:
    for i in range(25):
        body = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": f"cm-{i:02d}", "labels": {"i": str(i), "unicode": "x"},
                             "annotations": {"note": "caf\u00e9 \u2603 \"quoted\" \\ <tag> &"}},
                "data": {"k": "v" * i, "nested.json": json.dumps({"a": [1, 2.5, None, True]})}}
        assert shared_server.json("POST", "/api/v1/namespaces/default/configmaps", body)[0] == 201
    status, raw = shared_server.request("GET", "/api/v1/namespaces/default/configmaps")
    assert status == 200
    parsed = orjson.loads(raw)
    assert [item["metadata"]["name"] for item in parsed["items"]] == [f"cm-{i:02d}" for i in range(25)]
    assert orjson.dumps(parsed) == raw
    assert json.dumps(parsed, separators=(",", ":"), ensure_ascii=False).encode() == raw


def test_all_namespaces_list_is_sorted_by_namespace_then_name(shared_server: ServerProcess) -> None:
    for ns in ("zeta", "alpha"):
        shared_server.json("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                          "metadata": {"name": ns}})
        for name in ("b", "a"):
            shared_server.json("POST", f"/api/v1/namespaces/{ns}/secrets",
                               {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}})
    status, listing = shared_server.json("GET", "/api/v1/secrets")
    assert status == 200
    keys = [(item["metadata"]["namespace"], item["metadata"]["name"]) for item in listing["items"]]
    assert keys == sorted(keys)
    assert ("alpha", "a") in keys and ("zeta", "b") in keys
    assert listing["kind"] == "SecretList" and listing["apiVersion"] == "v1"


def test_get_answers_the_stored_bytes(shared_server: ServerProcess) -> None:
    status, created = shared_server.request("POST", "/api/v1/namespaces/default/configmaps",
                                            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "same"}})
    assert status == 201
    status, fetched = shared_server.request("GET", "/api/v1/namespaces/default/configmaps/same")
    assert status == 200 and fetched == created


def test_typed_list_items_carry_no_type_meta_like_upstream(shared_server: ServerProcess) -> None:
    status, raw = shared_server.request("GET", "/api/v1/namespaces/kube-system/configmaps?limit=1")
    assert status == 200
    listing = orjson.loads(raw)
    assert listing["kind"] == "ConfigMapList"
    item = listing["items"][0]
    assert "kind" not in item and "apiVersion" not in item
    assert item["metadata"]["name"] == "kube-apiserver-legacy-service-account-token-tracking"
    status, single = shared_server.json("GET", "/api/v1/namespaces/kube-system/configmaps/" + item["metadata"]["name"])
    assert single == {"kind": "ConfigMap", "apiVersion": "v1", **item}
