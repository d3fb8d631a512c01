"""One kept-alive HTTPS connection to a test server, for tests that send thousands of requests."""

from __future__ import annotations

import http.client
import json
import ssl
from typing import Any

from support import ServerProcess


class Connection:
    def __init__(self, server: ServerProcess, token: str | None = None, timeout: float = 30.0) -> None:
        self.server = server
        self.token = server.token if token is None else token
        self.timeout = timeout
        self._conn: http.client.HTTPConnection | None = None

    def _connect(self) -> http.client.HTTPConnection:
        if self._conn is None:
            if self.server.plain_http:
                self._conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=self.timeout)
            else:
                self._conn = http.client.HTTPSConnection("127.0.0.1", self.server.port, timeout=self.timeout,
                                                         context=self.server.ssl_context())
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        """Status, headers (lower-case names) and body; reconnects once if the server had closed."""
        all_headers = {"Authorization": f"Bearer {self.token}", **(headers or {})}
        if body is not None:
            all_headers.setdefault("Content-Type", "application/json")
        for attempt in (0, 1):
            conn = self._connect()
            try:
                conn.request(method, path, body=body, headers=all_headers)
                resp = conn.getresponse()
                data = resp.read()
            except (http.client.RemoteDisconnected, ConnectionError, ssl.SSLEOFError):
                # The server closes a connection idle past its keep-alive time.
                self.close()
                if attempt:
                    raise
                continue
            if resp.getheader("connection", "").lower() == "close":
                self.close()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
        raise AssertionError("unreachable")

    def json(self, method: str, path: str, body: Any = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any]:
        raw = None if body is None else json.dumps(body).encode()
        status, _, data = self.request(method, path, raw, headers)
        return status, json.loads(data) if data else None
