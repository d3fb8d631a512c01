"""Label and field selectors and paged lists, against the real server and kube-apiserver's answers."""

from __future__ import annotations

import json
import os
import urllib.parse
from typing import Any

import pytest
from support import GOLDEN, ServerProcess, run_kubectl

ERRORS = os.path.join(GOLDEN, "kube-1.36.2", "errors")


def golden(name: str) -> Any:
    with open(os.path.join(ERRORS, name)) as f:
        return json.load(f)


def names(body: Any) -> list[str]:
    return [item["metadata"]["name"] for item in body["items"]]


def q(**params: str) -> str:
    return "?" + urllib.parse.urlencode(params)


@pytest.fixture(scope="module")
def loaded(shared_server: ServerProcess) -> ServerProcess:
    s = shared_server
    assert s.json("POST", "/api/v1/namespaces", {"metadata": {"name": "sel"}})[0] == 201
    for name, labels in [("a", {"app": "web", "tier": "gold"}), ("b", {"app": "web", "tier": "silver"}),
                         ("c", {"app": "db"}), ("d", {}), ("e", {"app": "db", "n": "7"})]:
        body = {"metadata": {"name": name, "labels": labels}, "data": {"k": name}}
        assert s.json("POST", "/api/v1/namespaces/sel/configmaps", body)[0] == 201
    for name, node, phase, host in [("p1", "n1", "Running", True), ("p2", "n2", "Pending", False),
                                    ("p3", "n1", "Pending", False)]:
        pod = {"metadata": {"name": name}, "spec": {"nodeName": node, "hostNetwork": host,
                                                    "containers": [{"name": "c", "image": "i"}]}}
        assert s.json("POST", "/api/v1/namespaces/sel/pods", pod)[0] == 201
        status = {"status": {"phase": phase, "podIPs": [{"ip": f"10.0.0.{name[1]}"}]}}
        code, _ = s.json("PATCH", f"/api/v1/namespaces/sel/pods/{name}/status", status,
                         content_type="application/merge-patch+json")
        assert code == 200
    return s


@pytest.mark.parametrize("selector, expected", [
    ("app=web", ["a", "b"]),
    ("app==web,tier!=gold", ["b"]),
    ("app in (db, web),tier notin (silver)", ["a", "c", "e"]),
    ("tier", ["a", "b"]),
    ("!app", ["d"]),
    ("n>5", ["e"]),
    ("app notin ()", ["a", "b", "c", "d", "e"]),
])
def test_label_selectors(loaded: ServerProcess, selector: str, expected: list[str]) -> None:
    status, body = loaded.json("GET", "/api/v1/namespaces/sel/configmaps" + q(labelSelector=selector))
    assert status == 200, body
    assert names(body) == expected


@pytest.mark.parametrize("selector, expected", [
    ("spec.nodeName=n1", ["p1", "p3"]),
    ("spec.nodeName=n1,status.phase!=Running", ["p3"]),
    ("spec.hostNetwork=true", ["p1"]),
    ("status.podIP=10.0.0.2", ["p2"]),
    ("metadata.name!=p1,metadata.namespace=sel", ["p2", "p3"]),
    ("==", ["p1", "p2", "p3"]),
])
def test_pod_field_selectors(loaded: ServerProcess, selector: str, expected: list[str]) -> None:
    status, body = loaded.json("GET", "/api/v1/namespaces/sel/pods" + q(fieldSelector=selector))
    assert status == 200, body
    assert names(body) == expected


@pytest.mark.parametrize("path, golden_name", [
    ("/api/v1/namespaces/sel/configmaps?labelSelector=a%20in%20(b", "invalid-labelSelector.list.json"),
    ("/api/v1/namespaces/sel/configmaps?labelSelector=%3D%3Dbad", "invalid-labelSelector.json-plain.list.json"),
    ("/api/v1/namespaces/sel/configmaps?fieldSelector=spec.nope%3Dx", "invalid-fieldSelector.list.json"),
    ("/api/v1/namespaces/sel/configmaps?limit=1&continue=garbage", "garbage-continue.list.json"),
])
def test_errors_match_kube_apiserver(loaded: ServerProcess, path: str, golden_name: str) -> None:
    status, body = loaded.json("GET", path)
    assert (status, body) == (400, golden(golden_name))


def test_kind_specific_unknown_field(loaded: ServerProcess) -> None:
    status, body = loaded.json("GET", "/api/v1/namespaces/sel/pods" + q(fieldSelector="spec.nope=x"))
    assert (status, body["message"]) == (400, "field label not supported: spec.nope")


def test_limit_one_pages_like_upstream(loaded: ServerProcess) -> None:
    status, page1 = loaded.json("GET", "/api/v1/namespaces/sel/configmaps?limit=1")
    assert status == 200
    assert names(page1) == ["a"]
    assert page1["metadata"]["remainingItemCount"] == 4
    token = page1["metadata"]["continue"]
    status, page2 = loaded.json("GET", "/api/v1/namespaces/sel/configmaps" + q(limit="1", **{"continue": token}))
    assert names(page2) == ["b"]
    assert page2["metadata"]["resourceVersion"] == page1["metadata"]["resourceVersion"]
    assert page2["metadata"]["remainingItemCount"] == 3


def test_filtered_pages_have_no_remaining_count(loaded: ServerProcess) -> None:
    _, page = loaded.json("GET", "/api/v1/namespaces/sel/configmaps" + q(limit="1", labelSelector="app"))
    assert names(page) == ["a"] and "continue" in page["metadata"]
    assert "remainingItemCount" not in page["metadata"]


def test_exact_resource_version_reads_the_past(loaded: ServerProcess) -> None:
    _, before = loaded.json("GET", "/api/v1/namespaces/sel/configmaps")
    rv = before["metadata"]["resourceVersion"]
    assert loaded.json("POST", "/api/v1/namespaces/sel/configmaps", {"metadata": {"name": "late"}})[0] == 201
    assert loaded.json("DELETE", "/api/v1/namespaces/sel/configmaps/late")[0] == 200
    assert loaded.json("DELETE", "/api/v1/namespaces/sel/configmaps/d")[0] == 200
    try:
        _, past = loaded.json("GET", "/api/v1/namespaces/sel/configmaps"
                              + q(resourceVersion=rv, resourceVersionMatch="Exact"))
        assert past == before
        _, now = loaded.json("GET", "/api/v1/namespaces/sel/configmaps"
                             + q(resourceVersion=rv, resourceVersionMatch="NotOlderThan"))
        assert names(now) == ["a", "b", "c", "e"]
    finally:
        loaded.json("POST", "/api/v1/namespaces/sel/configmaps", {"metadata": {"name": "d"}, "data": {"k": "d"}})


def test_resource_version_rules(loaded: ServerProcess) -> None:
    path = "/api/v1/namespaces/sel/configmaps"
    status, body = loaded.json("GET", path + q(resourceVersion="999999", resourceVersionMatch="Exact"))
    assert (status, body["reason"], body["message"].split(",")[0]) == (504, "Timeout",
                                                                       "Timeout: Too large resource version: 999999")
    # an exact list is handed to etcd upstream, whose error asks for no retry; the watch cache's does
    assert "retryAfterSeconds" not in body["details"]
    exact = [q(resourceVersion="999999", limit="5"), q(resourceVersion="999999", resourceVersionMatch="Exact", limit="5")]
    for query in exact:
        assert "retryAfterSeconds" not in loaded.json("GET", path + query)[1]["details"]
    cached = [q(resourceVersion="999999"), q(resourceVersion="999999", resourceVersionMatch="NotOlderThan", limit="5")]
    for query in cached:
        assert loaded.json("GET", path + query)[1]["details"]["retryAfterSeconds"] == 1
    status, body = loaded.json("GET", path + q(resourceVersionMatch="Exact"))
    assert (status, body["message"]) == (422, ('ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
                                               "resourceVersionMatch is forbidden unless resourceVersion is provided"))


def test_kubectl_chunked_get_and_label_selector(loaded: ServerProcess) -> None:
    out = run_kubectl(loaded, "get", "configmaps", "-n", "sel", "--chunk-size=2", "-o", "name").stdout.split()
    assert out == [f"configmap/{n}" for n in "abcde"]
    out = run_kubectl(loaded, "get", "configmaps", "-n", "sel", "-l", "app in (db)", "-o", "name").stdout.split()
    assert out == ["configmap/c", "configmap/e"]


def test_a_get_at_a_revision_not_reached_is_too_large_and_an_unparsable_one_is_refused(loaded: ServerProcess) -> None:
    """As kube-apiserver 1.36.2 answers a get (checked on it: its watch cache's words, before the object
    is looked up); a list's unparsable resourceVersion is the list storage's 400."""
    path = "/api/v1/namespaces/sel/configmaps"
    status, body = loaded.json("GET", path + "/a" + q(resourceVersion="999999999"))
    assert (status, body["reason"]) == (504, "Timeout")
    assert body["message"].startswith("Timeout: Too large resource version: 999999999, current: ")
    assert body["details"]["causes"] == [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}]
    assert loaded.json("GET", path + "/missing" + q(resourceVersion="999999999"))[0] == 504
    status, body = loaded.json("GET", path + q(resourceVersion="abc"))
    assert (status, body["message"]) == (400, 'invalid resource version: resourceVersion: Invalid value: "abc": '
                                              'strconv.ParseUint: parsing "abc": invalid syntax')
    current = loaded.json("GET", path)[1]["metadata"]["resourceVersion"]
    assert loaded.json("GET", path + "/a" + q(resourceVersion=current))[0] == 200
