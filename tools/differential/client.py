"""A small HTTP/1.1 client for the harness: one keep-alive connection per thread, a bearer token.

The harness sends thousands of short requests from a thread pool; the standard library's
http.client keeps each thread's connection open between them, which is all it needs. TLS is not
verified: both servers are local test servers and the harness reads their answers, not their identity.
"""

from __future__ import annotations

import http.client
import ssl
import threading
import urllib.parse
from dataclasses import dataclass

import yaml


@dataclass(frozen=True)
class Answer:
    status: int
    warnings: tuple[str, ...]
    body: bytes


class Client:
    def __init__(self, server: str, token: str) -> None:
        url = urllib.parse.urlsplit(server)
        self.host = url.hostname or "127.0.0.1"
        self.port = url.port or (443 if url.scheme == "https" else 80)
        self.tls = url.scheme == "https"
        self.token = token
        self._local = threading.local()
        self._context = ssl.create_default_context()
        self._context.check_hostname = False
        self._context.verify_mode = ssl.CERT_NONE

    @classmethod
    def from_kubeconfig(cls, path: str) -> Client:
        with open(path) as f:
            config = yaml.safe_load(f)
        current = config.get("current-context")
        context = next(c["context"] for c in config["contexts"] if c["name"] == current or current is None)
        cluster = next(c["cluster"] for c in config["clusters"] if c["name"] == context["cluster"])
        user = next(u["user"] for u in config["users"] if u["name"] == context["user"])
        token = user.get("token")
        if token is None:
            raise SystemExit(f"{path}: the harness needs a bearer token in the kubeconfig's user")
        return cls(cluster["server"], token)

    def _connection(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            if self.tls:
                conn = http.client.HTTPSConnection(self.host, self.port, context=self._context, timeout=60)
            else:
                conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
            self._local.conn = conn
        return conn

    def request(self, method: str, path: str, body: bytes | None = None, content_type: str = "",
                accept: str = "application/json") -> Answer:
        # The user agent names the field manager of every write that does not name one.
        headers = {"Authorization": f"Bearer {self.token}", "Accept": accept, "User-Agent": "differential"}
        if body is not None:
            headers["Content-Type"] = content_type or "application/json"
        for attempt in range(2):
            conn = self._connection()
            try:
                conn.request(method, path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                warnings = tuple(v for k, v in resp.getheaders() if k.lower() == "warning")
                if resp.getheader("Connection", "").lower() == "close":
                    self._drop()
                return Answer(resp.status, warnings, data)
            except (http.client.HTTPException, ConnectionError, OSError):
                self._drop()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def _drop(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
        self._local.conn = None

