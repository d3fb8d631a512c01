"""Watches against the real server: the official Python client, kubectl -w, resumption, selectors, watch-list."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import time
import urllib.parse
from typing import Any, Iterator

import pytest
from kubernetes import client, config, watch
from support import ServerProcess, kubectl_path

NS = "/api/v1/namespaces/default/configmaps"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("watch")),
                       extra_args=["--watch-bookmark-seconds", "0.3"]) as proc:
        yield proc


def stream(server: ServerProcess, path: str, **params: str) -> Iterator[dict[str, Any]]:
    """Events of a raw watch, one dict per line, until the server ends the stream."""
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=server.ssl_context(), timeout=30)
    conn.request("GET", path + "?" + urllib.parse.urlencode({"watch": "1", **params}),
                 headers={"Authorization": f"Bearer {server.token}"})
    resp = conn.getresponse()
    assert resp.status == 200, resp.read()
    try:
        for line in resp:
            yield json.loads(line)
    finally:
        conn.close()


def create(server: ServerProcess, name: str, labels: dict[str, str] | None = None) -> int:
    status, body = server.json("POST", NS, {"metadata": {"name": name, "labels": labels or {}}, "data": {"v": "0"}})
    assert status == 201, body
    return int(body["metadata"]["resourceVersion"])


def patch(server: ServerProcess, name: str, body: dict[str, Any]) -> int:
    status, out = server.json("PATCH", f"{NS}/{name}", body, content_type="application/merge-patch+json")
    assert status == 200, out
    return int(out["metadata"]["resourceVersion"])


def delete(server: ServerProcess, name: str) -> None:
    assert server.json("DELETE", f"{NS}/{name}")[0] == 200


def test_python_client_sees_every_change(server: ServerProcess) -> None:
    config.load_kube_config(server.kubeconfig)
    api = client.CoreV1Api()
    listed = api.list_namespaced_config_map("default")
    seen: list[tuple[str, str, str]] = []

    def consume() -> None:
        w = watch.Watch()
        for event in w.stream(api.list_namespaced_config_map, "default", timeout_seconds=10,
                              resource_version=listed.metadata.resource_version):
            seen.append((event["type"], event["object"].metadata.name, event["object"].data["v"]))
            if event["type"] == "DELETED":
                w.stop()

    thread = threading.Thread(target=consume)
    thread.start()
    time.sleep(0.5)
    create(server, "py")
    patch(server, "py", {"data": {"v": "1"}})
    delete(server, "py")
    thread.join(15)
    assert seen == [("ADDED", "py", "0"), ("MODIFIED", "py", "1"), ("DELETED", "py", "1")]


def test_kubectl_watch_sees_every_change(server: ServerProcess) -> None:
    create(server, "kw-0")
    proc = subprocess.Popen([kubectl_path(), "--kubeconfig", server.kubeconfig, "get", "configmaps", "-w",
                             "-o", "custom-columns=NAME:.metadata.name,V:.data.v", "--no-headers",
                             "--request-timeout=6s"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    create(server, "kw-1")
    patch(server, "kw-1", {"data": {"v": "2"}})
    delete(server, "kw-1")
    time.sleep(1)
    proc.terminate()
    out, _ = proc.communicate(10)
    lines = [line.split() for line in out.splitlines()]
    assert ["kw-0", "0"] in lines
    assert lines[-3:] == [["kw-1", "0"], ["kw-1", "2"], ["kw-1", "2"]]  # added, modified, deleted


def test_resumed_watch_sees_exactly_the_later_events(server: ServerProcess) -> None:
    rvs = [create(server, "resume")] + [patch(server, "resume", {"data": {"v": str(i)}}) for i in range(1, 6)]
    events = list(stream(server, NS, resourceVersion=str(rvs[2]), timeoutSeconds="1",
                         fieldSelector="metadata.name=resume"))
    assert [(e["type"], int(e["object"]["metadata"]["resourceVersion"])) for e in events] == \
        [("MODIFIED", rv) for rv in rvs[3:]]


def test_selector_watch_sees_objects_enter_and_leave(server: ServerProcess) -> None:
    rv = create(server, "mover", {"team": "a"})
    events: list[dict[str, Any]] = []
    thread = threading.Thread(target=lambda: events.extend(
        stream(server, NS, resourceVersion=str(rv), labelSelector="team=b", timeoutSeconds="2")))
    thread.start()
    moved_in = patch(server, "mover", {"metadata": {"labels": {"team": "b"}}})
    patch(server, "mover", {"data": {"v": "9"}})
    moved_out = patch(server, "mover", {"metadata": {"labels": {"team": "c"}}})
    thread.join(10)
    changes = [(e["type"], e["object"]["metadata"]["resourceVersion"], e["object"]["metadata"]["labels"]["team"])
               for e in events if e["type"] != "BOOKMARK"]
    assert changes == [("ADDED", str(moved_in), "b"), ("MODIFIED", str(moved_in + 1), "b"),
                       ("DELETED", str(moved_out), "b")]


def test_watch_list_sends_state_then_the_end_bookmark(server: ServerProcess) -> None:
    create(server, "wl", {"wl": "yes"})
    events = list(stream(server, NS, sendInitialEvents="true", resourceVersionMatch="NotOlderThan",
                         allowWatchBookmarks="true", labelSelector="wl", timeoutSeconds="1"))
    assert [e["type"] for e in events[:2]] == ["ADDED", "BOOKMARK"]
    assert events[0]["object"]["metadata"]["name"] == "wl"
    end = events[1]["object"]
    assert end["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    assert set(end) == {"kind", "apiVersion", "metadata"}


def test_periodic_bookmarks_carry_only_the_revision(server: ServerProcess) -> None:
    events = list(stream(server, NS, resourceVersion=str(server_revision(server)), allowWatchBookmarks="true",
                         timeoutSeconds="1"))
    assert events and all(e["type"] == "BOOKMARK" for e in events)
    assert events[0]["object"] == {"kind": "ConfigMap", "apiVersion": "v1",
                                   "metadata": {"resourceVersion": str(server_revision(server))}}


def server_revision(server: ServerProcess) -> int:
    return int(server.json("GET", NS)[1]["metadata"]["resourceVersion"])


def test_too_old_start_gets_a_410_error_event(tmp_path: Any) -> None:
    proc = ServerProcess(str(tmp_path), extra_args=["--history-size", "3"])
    proc.start()
    try:
        first = create(proc, "old")
        for i in range(6):
            patch(proc, "old", {"data": {"v": str(i)}})
        events = list(stream(proc, NS, resourceVersion=str(first), timeoutSeconds="1"))
    finally:
        proc.stop()
    assert [e["type"] for e in events] == ["ERROR"]
    status = events[0]["object"]
    assert (status["code"], status["reason"]) == (410, "Expired")
    assert status["message"].startswith(f"too old resource version: {first} (")


def test_bad_watch_parameters_are_400_or_422(server: ServerProcess) -> None:
    status, body = server.json("GET", NS + "?watch=1&resourceVersion=abc")
    assert (status, body["reason"]) == (400, "BadRequest")
    status, body = server.json("GET", NS + "?watch=1&sendInitialEvents=true")
    assert (status, body["message"]) == (422, ('ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
                                               "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))


def test_a_negative_timeout_ends_the_watch_at_once_and_zero_leaves_it_open(server: ServerProcess) -> None:
    """As kube-apiserver 1.36.2's watch handler (checked on it): timeoutSeconds=-1 answers an empty
    stream at once; 0 means no timeout of the request's own, so the watch sees a later change."""
    # (in a namespace of no objects: upstream's handler may or may not send the initial events first,
    # as Go's select picks between its ready timer and its events at random)
    assert list(stream(server, "/api/v1/namespaces/timeout-empty/configmaps", timeoutSeconds="-1")) == []
    before = create(server, "timeout-zero-before")
    events = stream(server, NS, timeoutSeconds="0", resourceVersion=str(before))
    threading.Timer(0.5, create, (server, "timeout-zero-after")).start()
    first = next(events)
    assert (first["type"], first["object"]["metadata"]["name"]) == ("ADDED", "timeout-zero-after")
    events.close()


def test_a_watch_without_its_own_timeout_ends_after_the_servers_minimum(tmp_path: Any) -> None:
    """kube-apiserver ends a watch that names no timeout (or 0) after --min-request-timeout to twice it,
    at random (default 1800 s), so that informers relist now and then and watches opened together do
    not all end together; a watch naming its own timeout keeps it."""
    proc = ServerProcess(str(tmp_path), extra_args=["--min-request-timeout=1"])
    proc.start()
    try:
        create(proc, "min-timeout")
        for params in ({}, {"timeoutSeconds": "0"}):
            started = time.monotonic()
            events = list(stream(proc, NS, **params))
            lasted = time.monotonic() - started
            assert [e["object"]["metadata"]["name"] for e in events] == ["min-timeout"]
            assert 1.0 <= lasted < 10, lasted  # ended by the server, not before the minimum
        ending = stream(proc, NS, timeoutSeconds="30")
        next(ending)
        threading.Timer(2.5, create, (proc, "after-the-minimum")).start()
        later = next(ending)  # still open past twice the minimum: its own timeout holds
        assert later["object"]["metadata"]["name"] == "after-the-minimum"
        ending.close()
    finally:
        proc.stop()
    refused = subprocess.run([sys.executable, "-m", "apiserver", "--min-request-timeout=-1"], capture_output=True, text=True)
    assert refused.returncode == 2
    assert "--min-request-timeout can not be negative value" in refused.stderr
