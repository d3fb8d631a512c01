"""The fan-out under load: many watchers share one encoding per event; a stalled one is dropped."""

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


def open_stream(server: ServerProcess, **params: str) -> tuple[http.client.HTTPSConnection, http.client.HTTPResponse]:
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=server.ssl_context(), timeout=60)
    conn.request("GET", PATH + "?" + urllib.parse.urlencode({"watch": "1", **params}),
                 headers={"Authorization": f"Bearer {server.token}"})
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
