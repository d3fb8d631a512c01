"""The fan-out under load: many watchers share one encoding per event; a stalled one is dropped.

Watchers starting from the same state share what a list of their view selected and one block of
initial events per shape.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import ssl
import statistics
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator

import pytest
from support import ServerProcess

PATH = "/api/v1/namespaces/default/configmaps"


def metric(server: ServerProcess, name: str) -> float:
    _, text = server.request("GET", "/metrics")
    match = re.search(rf'^{name}\{{resource="configmaps"\}} (\S+)$', text.decode(), re.MULTILINE)
    return float(match.group(1)) if match else 0.0


def revision(server: ServerProcess) -> str:
    return str(server.json("GET", PATH + "?limit=1")[1]["metadata"]["resourceVersion"])


def open_stream(server: ServerProcess, accept: str | None = None,
                **params: str) -> tuple[http.client.HTTPSConnection, http.client.HTTPResponse]:
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=server.ssl_context(), timeout=60)
    headers = {"Authorization": f"Bearer {server.token}"}
    if accept is not None:
        headers["Accept"] = accept
    conn.request("GET", PATH + "?" + urllib.parse.urlencode({"watch": "1", **params}), headers=headers)
    resp = conn.getresponse()
    assert resp.status == 200
    return conn, resp


@pytest.fixture
def fanout_server(tmp_path: Any) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path), extra_args=["--watch-queue-limit", "2000"]) as proc:
        yield proc


def test_hundred_watchers_cost_one_encoding_per_event(fanout_server: ServerProcess) -> None:
    server = fanout_server
    start = revision(server)
    encoded_before = metric(server, "apiserver_watch_events_encoded_total")
    streams = [open_stream(server, resourceVersion=start, timeoutSeconds="60") for _ in range(100)]
    received: list[list[int]] = [[] for _ in streams]

    def read(i: int) -> None:
        for line in streams[i][1]:
            received[i].append(int(json.loads(line)["object"]["metadata"]["resourceVersion"]))
            if len(received[i]) == 1000:
                return

    readers = [threading.Thread(target=read, args=(i,)) for i in range(100)]
    for reader in readers:
        reader.start()
    began = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        written = list(pool.map(lambda i: server.json("POST", PATH, {"metadata": {"name": f"w-{i:04d}"}})[1],
                                range(1000)))
    for reader in readers:
        reader.join(60)
    elapsed = time.monotonic() - began
    expected = sorted(int(obj["metadata"]["resourceVersion"]) for obj in written)
    encoded = metric(server, "apiserver_watch_events_encoded_total") - encoded_before
    print(f"\n100 watchers x 1000 writes: delivered in {elapsed:.2f}s, {encoded:.0f} encodings")
    assert all(r == expected for r in received)
    assert encoded == 1000
    assert metric(server, "apiserver_watch_events_delivered_total") >= 100_000
    assert elapsed < 60
    for conn, _ in streams:
        conn.close()


def stalled_watch(server: ServerProcess) -> ssl.SSLSocket:
    """A watch whose client never reads past the response headers, with a small receive buffer."""
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect(("127.0.0.1", server.port))
    sock = server.ssl_context().wrap_socket(raw, server_hostname="127.0.0.1")
    sock.sendall(f"GET {PATH}?watch=1&resourceVersion={revision(server)} HTTP/1.1\r\nHost: x\r\n"
                 f"Authorization: Bearer {server.token}\r\n\r\n".encode())
    return sock


def timed_writes(server: ServerProcess, names: list[str], blob: str) -> list[float]:
    latencies = []
    for name in names:
        began = time.perf_counter()
        status, _ = server.json("POST", PATH, {"metadata": {"name": name}, "data": {"blob": blob}})
        latencies.append(time.perf_counter() - began)
        assert status == 201
    return latencies


def test_stalled_watcher_is_dropped_without_slowing_writers(tmp_path: Any) -> None:
    server = ServerProcess(str(tmp_path), extra_args=["--watch-queue-limit", "50"])
    server.start()
    try:
        blob = "x" * 65_536
        conn, healthy = open_stream(server, resourceVersion=revision(server), timeoutSeconds="60")
        healthy_names: list[str] = []

        def read() -> None:
            for line in healthy:
                healthy_names.append(json.loads(line)["object"]["metadata"]["name"])
                if len(healthy_names) == 400:
                    return

        reader = threading.Thread(target=read)
        reader.start()
        alone = timed_writes(server, [f"alone-{i}" for i in range(100)], blob)
        stalled = stalled_watch(server)
        with_stalled = timed_writes(server, [f"stalled-{i}" for i in range(300)], blob)
        dropped = metric(server, "apiserver_watchers_dropped_total")
        stalled.settimeout(10)
        tail = b""
        while chunk := stalled.recv(1 << 20):  # the server closed it: the buffered rest, then EOF
            tail += chunk
        stalled.close()
        print(f"\nwrite latency (64 KiB objects), median/p95 ms: alone "
              f"{statistics.median(alone) * 1e3:.1f}/{statistics.quantiles(alone, n=20)[-1] * 1e3:.1f}, "
              f"with a stalled watcher {statistics.median(with_stalled) * 1e3:.1f}/"
              f"{statistics.quantiles(with_stalled, n=20)[-1] * 1e3:.1f}")
        assert dropped == 1
        assert not tail.endswith(b"0\r\n\r\n")  # cut off, not a finished response
        reader.join(20)
        assert healthy_names == [f"alone-{i}" for i in range(100)] + [f"stalled-{i}" for i in range(300)]
        conn.close()
    finally:
        server.stop()


def test_watchers_starting_together_share_initial_event_bytes(fanout_server: ServerProcess) -> None:
    server = fanout_server
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: server.json("POST", PATH, {"metadata": {"name": f"s-{i:02d}"}}), range(50)))
    encoded_before = metric(server, "apiserver_watch_events_encoded_total")
    streams = [open_stream(server, sendInitialEvents="true", resourceVersionMatch="NotOlderThan",
                           allowWatchBookmarks="true", timeoutSeconds="1") for _ in range(20)]
    for conn, resp in streams:
        events = [json.loads(line) for line in resp]
        conn.close()
        assert [e["type"] for e in events[:51]] == ["ADDED"] * 50 + ["BOOKMARK"]
    assert metric(server, "apiserver_watch_events_encoded_total") - encoded_before == 50


TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
WATCH_LIST = {"sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan", "allowWatchBookmarks": "true",
              "timeoutSeconds": "30"}


def until_initial_end(resp: http.client.HTTPResponse) -> list[dict[str, Any]]:
    """A watch-list's initial events, read up to its initial-events-end bookmark."""
    events: list[dict[str, Any]] = []
    for line in resp:
        event = json.loads(line)
        if event["type"] == "BOOKMARK":
            assert event["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
            return events
        events.append(event)
    raise AssertionError("the stream ended before its initial events did")


def initial_events(server: ServerProcess, accept: str | None = None, **params: str) -> list[dict[str, Any]]:
    conn, resp = open_stream(server, accept, **WATCH_LIST, **params)
    try:
        return until_initial_end(resp)
    finally:
        conn.close()


def selection_counts(server: ServerProcess) -> tuple[float, float]:
    """The assembled views' selection hits and misses, as /metrics shows them."""
    _, text = server.request("GET", "/metrics")
    found = dict(re.findall(r'^apiserver_list_assembled_(hits|misses)_total\{part="selection"\} (\S+)$',
                            text.decode(), re.MULTILINE))
    return float(found.get("hits", 0)), float(found.get("misses", 0))


def as_items(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Watch event objects as a typed list's items: without kind and apiVersion."""
    assert all(e["type"] == "ADDED" for e in events)
    return [{k: v for k, v in e["object"].items() if k not in ("kind", "apiVersion")} for e in events]


def seed(server: ServerProcess, count: int) -> None:
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: server.json("POST", PATH, {
            "metadata": {"name": f"v-{i:02d}", "labels": {"tier": ("gold", "silver", "bronze")[i % 3]}},
            "data": {"i": str(i)}}), range(count)))


def test_a_list_and_the_watches_after_it_select_once(fanout_server: ServerProcess) -> None:
    server = fanout_server
    seed(server, 30)
    hits, misses = selection_counts(server)
    encoded = metric(server, "apiserver_watch_events_encoded_total")
    _, listed = server.json("GET", PATH + "?labelSelector=tier%3Dgold")
    assert len(listed["items"]) == 10

    def start(i: int) -> list[dict[str, Any]]:
        if i % 2:
            return initial_events(server, labelSelector="tier=gold")
        conn, resp = open_stream(server, labelSelector="tier=gold", timeoutSeconds="30")  # no resourceVersion
        try:
            return [json.loads(resp.readline()) for _ in listed["items"]]
        finally:
            conn.close()

    with ThreadPoolExecutor(10) as pool:
        started = list(pool.map(start, range(10)))
    assert all(as_items(events) == listed["items"] for events in started)
    now_hits, now_misses = selection_counts(server)
    assert (now_hits - hits, now_misses - misses) == (10, 1)  # the list selected; ten watches reused it
    assert metric(server, "apiserver_watch_events_encoded_total") - encoded == 10  # one block for all


def test_a_selector_watch_starts_from_what_the_selector_list_gives(fanout_server: ServerProcess) -> None:
    server = fanout_server
    seed(server, 12)
    for query in ({"labelSelector": "tier in (gold,bronze)"}, {"fieldSelector": "metadata.name!=v-04"},
                  {"labelSelector": "tier!=gold", "fieldSelector": "metadata.name!=v-05"}):
        started = initial_events(server, **query)  # before any list: the watch selects, the list reuses
        _, listed = server.json("GET", PATH + "?" + urllib.parse.urlencode(query))
        assert as_items(started) == listed["items"] and listed["items"]


def test_a_table_watch_carries_column_definitions_on_its_first_event_only(fanout_server: ServerProcess) -> None:
    server = fanout_server
    seed(server, 3)
    starts = [initial_events(server, TABLE) for _ in range(2)]
    for events in starts:
        tables = [e["object"] for e in events]
        assert [t["kind"] for t in tables] == ["Table"] * 3
        assert [c["name"] for c in tables[0]["columnDefinitions"]] == ["Name", "Data", "Age"]
        assert [t["columnDefinitions"] for t in tables[1:]] == [None, None]
        assert [t["rows"][0]["cells"][:2] for t in tables] == [[f"v-{i:02d}", 1] for i in range(3)]
    # A watch whose first event is a live one: that event carries them.
    conn, resp = open_stream(server, TABLE, labelSelector="tier=none", **WATCH_LIST)
    try:
        assert until_initial_end(resp) == []
        server.json("POST", PATH, {"metadata": {"name": "late", "labels": {"tier": "none"}}})
        event = json.loads(resp.readline())
    finally:
        conn.close()
    assert event["type"] == "ADDED" and event["object"]["columnDefinitions"]


def test_a_write_between_two_watch_starts_reaches_both(fanout_server: ServerProcess) -> None:
    server = fanout_server
    seed(server, 6)
    conn, first = open_stream(server, **WATCH_LIST)
    try:
        before = until_initial_end(first)
        assert [e["object"]["metadata"]["name"] for e in before] == [f"v-{i:02d}" for i in range(6)]
        changed = server.json("PATCH", PATH + "/v-02", {"data": {"i": "changed"}},
                              content_type="application/merge-patch+json")[1]
        added = server.json("POST", PATH, {"metadata": {"name": "v-99"}})[1]
        assert server.json("DELETE", PATH + "/v-00")[0] == 200
        after = initial_events(server)
        _, listed = server.json("GET", PATH)
        assert as_items(after) == listed["items"]
        assert [e["object"]["metadata"]["name"] for e in after] == ["v-01", "v-02", "v-03", "v-04", "v-05", "v-99"]
        assert after[1]["object"]["data"] == {"i": "changed"}
        live = [json.loads(first.readline()) for _ in range(3)]
    finally:
        conn.close()
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in live] == [
        ("MODIFIED", "v-02"), ("ADDED", "v-99"), ("DELETED", "v-00")]
    assert live[0]["object"]["metadata"]["resourceVersion"] == changed["metadata"]["resourceVersion"]
    assert live[1]["object"]["metadata"]["resourceVersion"] == added["metadata"]["resourceVersion"]
