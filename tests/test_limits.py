"""What one request or one user may take: object size, open watches, time; slow readers stall nobody."""

from __future__ import annotations

import json
import socket
import ssl
import time
from collections.abc import Iterator

import pytest

from accounts import add_token
from keepalive import Connection
from support import ServerProcess

CM_PATH = "/api/v1/namespaces/default/configmaps"


def revision(conn: Connection) -> str:
    return str(conn.json("GET", CM_PATH)[1]["metadata"]["resourceVersion"])


def configmap(name: str, blob: str = "") -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"blob": blob}}


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("limited")),
                       extra_args=["--max-watches-per-user", "3", "--max-watches", "5",
                                   "--request-timeout", "1", "--max-body-bytes", "200000",
                                   "--max-object-bytes", "100000"]) as server:
        yield server


class RawStream:
    """A request on its own TLS socket, read only as far as the test asks."""

    def __init__(self, server: ServerProcess, path: str, token: str | None = None, method: str = "GET",
                 headers: dict[str, str] | None = None, body: bytes = b"") -> None:
        raw = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        self.sock: ssl.SSLSocket = server.ssl_context().wrap_socket(raw, server_hostname="127.0.0.1")
        lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1",
                 f"Authorization: Bearer {token or server.token}",
                 *(f"{k}: {v}" for k, v in (headers or {}).items())]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)

    def head(self) -> bytes:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            data += chunk
        return data

    def close(self) -> None:
        self.sock.close()


def test_object_over_the_etcd_limit_is_413_and_writes_nothing(shared_server: ServerProcess) -> None:
    conn = Connection(shared_server)
    before = revision(conn)
    # Data over 1 MiB is refused by ConfigMap validation first, as kube-apiserver 1.36.2 refuses it.
    status, answer = conn.json("POST", CM_PATH, configmap("big", "x" * (2 * 1024 * 1024)))
    assert (status, answer["message"]) == (
        422, 'ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes')
    # Keys do not count towards that size: these pass validation and reach the store's limit.
    many_keys = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "many-keys"},
                 "data": {f"{i:06d}-" + "k" * 240: "" for i in range(7000)}}
    status, answer = conn.json("POST", CM_PATH, many_keys)
    assert status == 413
    assert answer["reason"] == "RequestEntityTooLarge" and answer["code"] == 413
    assert "limit is 1572864" in answer["message"] and "request is too large" in answer["message"]
    assert revision(conn) == before
    assert conn.json("POST", CM_PATH, configmap("just-fits", "x" * (1024 * 1024)))[0] == 201


def test_growing_an_object_past_the_limit_by_patch_is_413(limited: ServerProcess) -> None:
    conn = Connection(limited)
    assert conn.json("POST", CM_PATH, configmap("grows", "x" * 60_000))[0] == 201
    before = revision(conn)
    status, answer = conn.json("PATCH", CM_PATH + "/grows", {"data": {"more": "y" * 60_000}},
                               headers={"Content-Type": "application/merge-patch+json"})
    assert (status, answer["reason"]) == (413, "RequestEntityTooLarge")
    assert revision(conn) == before


def test_body_limit_follows_its_flag(limited: ServerProcess) -> None:
    conn = Connection(limited)
    status, answer = conn.json("POST", CM_PATH, configmap("too-big", "x" * 250_000))
    assert status == 413
    assert answer["message"] == "Request entity too large: limit is 200000"


def test_watches_past_the_per_user_limit_are_429_with_retry_after(limited: ServerProcess) -> None:
    watches = [RawStream(limited, CM_PATH + "?watch=1") for _ in range(3)]
    try:
        for w in watches:
            assert w.head().startswith(b"HTTP/1.1 200")
        status, headers, body = Connection(limited).request("GET", CM_PATH + "?watch=1")
        assert status == 429
        assert headers["retry-after"] == "1"
        answer = json.loads(body)
        assert answer["reason"] == "TooManyRequests"
        assert answer["details"] == {"retryAfterSeconds": 1}
        assert 'for user "admin"' in answer["message"]
    finally:
        for w in watches:
            w.close()


def test_a_closed_watch_gives_its_slot_back(limited: ServerProcess) -> None:
    for _ in range(3):
        watches = [RawStream(limited, CM_PATH + "?watch=1") for _ in range(3)]
        for w in watches:
            assert w.head().startswith(b"HTTP/1.1 200")
            w.close()
        # Closing is noticed when the server next writes or reads the socket: a change wakes them.
        deadline = time.monotonic() + 10
        conn = Connection(limited)
        conn.json("POST", CM_PATH, configmap(f"wake-{time.monotonic_ns()}"))
        while conn.request("GET", CM_PATH + "?watch=1&timeoutSeconds=-1")[0] == 429:
            assert time.monotonic() < deadline, "watch slots were not given back"
            time.sleep(0.1)


def test_watches_past_the_server_limit_are_429(limited: ServerProcess) -> None:
    _, other = add_token(limited, "watcher", "view")
    watches = [RawStream(limited, CM_PATH + "?watch=1") for _ in range(3)]
    watches += [RawStream(limited, CM_PATH + "?watch=1", token=other) for _ in range(2)]
    try:
        for w in watches:
            assert w.head().startswith(b"HTTP/1.1 200")
        status, _, body = Connection(limited, other).request("GET", CM_PATH + "?watch=1")
        assert status == 429
        assert "on this server (limit 5)" in json.loads(body)["message"]
    finally:
        for w in watches:
            w.close()


def test_a_request_past_the_timeout_is_504_but_a_watch_is_not_cut(limited: ServerProcess) -> None:
    slow = RawStream(limited, CM_PATH, method="POST",
                     headers={"Content-Type": "application/json", "Content-Length": "100"}, body=b'{"kind":')
    watch = RawStream(limited, CM_PATH + "?watch=1&timeoutSeconds=3")
    started = time.monotonic()
    try:
        head = slow.head()
        assert head.startswith(b"HTTP/1.1 504"), head
        assert 0.9 < time.monotonic() - started < 5
        body = head.split(b"\r\n\r\n", 1)[1] or slow.sock.recv(65536)
        answer = json.loads(body)
        assert (answer["reason"], answer["code"]) == ("Timeout", 504)
        stream = watch.head()
        assert stream.startswith(b"HTTP/1.1 200")
        while not stream.endswith(b"0\r\n\r\n"):
            stream += watch.sock.recv(65536)
        assert time.monotonic() - started > 2.9
    finally:
        slow.close()
        watch.close()


def test_a_client_that_does_not_read_stalls_nobody(shared_server: ServerProcess) -> None:
    conn = Connection(shared_server)
    namespace = "/api/v1/namespaces/stall"
    assert conn.json("POST", "/api/v1/namespaces", {"metadata": {"name": "stall"}})[0] == 201
    for i in range(24):
        assert conn.json("POST", namespace + "/configmaps", configmap(f"blob-{i}", "x" * 1_000_000))[0] == 201
    stalled = [RawStream(shared_server, namespace + "/configmaps"),
               RawStream(shared_server, namespace + "/configmaps?watch=1")]
    try:
        time.sleep(0.5)
        for i in range(50):
            started = time.monotonic()
            assert conn.json("PUT", namespace + "/configmaps/blob-0", configmap("blob-0", str(i)))[0] == 200
            assert conn.request("GET", "/api/v1/namespaces/default")[0] == 200
            assert time.monotonic() - started < 2
    finally:
        for s in stalled:
            s.close()
