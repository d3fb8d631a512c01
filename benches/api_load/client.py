"""Plain HTTP/1.1 calls over keep-alive connections: seeding, checking each scenario's answer, cleanup.

Seeding goes through the API with as many threads as the load has connections' worth of parallelism
to spare; it is not measured, only checked (every seed must succeed, or the run stops).
"""

from __future__ import annotations

import http.client
import json
import threading
import urllib.parse
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from benches import objects
from benches.api_load.servers import Target

MERGE_PATCH = "application/merge-patch+json"


@dataclass
class Answer:
    status: int
    body: bytes
    content_type: str


class Client:
    def __init__(self, target: Target) -> None:
        self.target = target
        self._url = urllib.parse.urlsplit(target.url)
        self._ctx = target.ssl_context()
        self._local = threading.local()

    def _connection(self) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            host, port = self._url.hostname or "127.0.0.1", self._url.port
            conn = (http.client.HTTPSConnection(host, port, context=self._ctx, timeout=120)
                    if self._url.scheme == "https" else http.client.HTTPConnection(host, port, timeout=120))
            self._local.conn = conn
        return conn

    def call(self, method: str, path: str, body: Any = None, accept: str = "application/json",
             content_type: str = "application/json") -> Answer:
        headers = {"Accept": accept, "Authorization": f"Bearer {self.target.token}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = content_type
        for attempt in range(2):
            conn = self._connection()
            try:
                conn.request(method, self._url.path.rstrip("/") + path, body=data, headers=headers)
                resp = conn.getresponse()
                return Answer(resp.status, resp.read(), resp.getheader("Content-Type", ""))
            except (ConnectionError, http.client.HTTPException):
                # A keep-alive connection the server closed while idle: reconnect once.
                conn.close()
                self._local.conn = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def revision(self, path: str) -> str:
        answer = self.call("GET", path + "?limit=1")
        if answer.status != 200:
            raise RuntimeError(f"GET {path}: HTTP {answer.status}: {answer.body[:300]!r}")
        return str(json.loads(answer.body)["metadata"]["resourceVersion"])

    def ensure_namespace(self, name: str) -> None:
        answer = self.call("POST", "/api/v1/namespaces",
                           {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        if answer.status not in (201, 409):
            raise RuntimeError(f"cannot create namespace {name}: HTTP {answer.status}: {answer.body[:300]!r}")

    def count(self, path: str) -> int:
        answer = self.call("GET", path)
        return len(json.loads(answer.body)["items"]) if answer.status == 200 else 0


def _parallel(fn: Callable[[int], int], count: int, what: str, workers: int = 16) -> None:
    with ThreadPoolExecutor(workers) as pool:
        codes = list(pool.map(fn, range(count)))
    bad = {code: codes.count(code) for code in set(codes) if code not in (200, 201)}
    if bad:
        raise RuntimeError(f"seeding {what}: HTTP codes {bad} out of {count}")


def seed_configmaps(client: Client, namespace: str, count: int, prefix: str = "load-cm", start: int = 0) -> None:
    """ConfigMaps `prefix-START` .. `prefix-(count-1)`; those already there (409) are left as they are."""
    path = f"/api/v1/namespaces/{namespace}/configmaps"

    def create(i: int) -> int:
        status = client.call("POST", path, objects.configmap(namespace, f"{prefix}-{start + i:06d}", start + i)).status
        return 201 if status == 409 else status  # already there from an earlier run against the same server
    _parallel(create, count - start, "configmaps")


def seed_pods(client: Client, namespace: str, count: int) -> None:
    """Running Pods: created as a controller would, then given their status through /status as a kubelet does."""
    path = f"/api/v1/namespaces/{namespace}/pods"
    if client.count(path) >= count:
        return

    def create(i: int) -> int:
        name = f"load-pod-{i:06d}"
        status = client.call("POST", path, objects.pod(namespace, name, i)).status
        if status not in (201, 409):
            return status
        return client.call("PATCH", f"{path}/{name}/status", objects.pod_status(i), content_type=MERGE_PATCH).status
    _parallel(create, count, "pods")
