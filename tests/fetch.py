"""HTTP with the headers kept, and watch streams read line by line, against a real ServerProcess."""

from __future__ import annotations

import http.client
import json
from typing import Any, Iterator

from support import ServerProcess

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
TABLE_V1BETA1 = "application/json;as=Table;v=v1beta1;g=meta.k8s.io"
POM = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"
POML = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"
KUBECTL_ACCEPT = ("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
                  "application/json")
# What client-go's metadata client sends for a list: protobuf first.
METADATA_CLIENT_ACCEPT = ("application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
                          "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json")


def connect(server: ServerProcess, timeout: float = 30) -> http.client.HTTPSConnection:
    return http.client.HTTPSConnection("127.0.0.1", server.port, context=server.ssl_context(), timeout=timeout)


def fetch(server: ServerProcess, path: str, accept: str | None = None, method: str = "GET",
          token: str | None = None, body: Any = None,
          content_type: str = "application/json") -> tuple[int, dict[str, str], bytes]:
    """Status, headers (lower-case names) and body of one request."""
    headers = {"Authorization": f"Bearer {server.token if token is None else token}",
               "User-Agent": "shapes-test/1.0"}
    if accept is not None:
        headers["Accept"] = accept
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = content_type
    conn = connect(server)
    try:
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


class Watch:
    """An open watch: its status and headers, then one event per `next_event()`."""

    def __init__(self, server: ServerProcess, path: str, accept: str) -> None:
        self.conn = connect(server, timeout=10)
        self.conn.request("GET", path, headers={"Authorization": f"Bearer {server.token}", "Accept": accept})
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.headers = {k.lower(): v for k, v in self.resp.getheaders()}

    def next_event(self) -> dict[str, Any]:
        line = self.resp.readline()
        assert line, "the watch ended before the expected event"
        return json.loads(line)  # type: ignore[no-any-return]

    def events(self) -> Iterator[dict[str, Any]]:
        while line := self.resp.readline():
            yield json.loads(line)

    def close(self) -> None:
        self.conn.close()


def create(server: ServerProcess, path: str, obj: dict[str, Any]) -> dict[str, Any]:
    status, body = server.json("POST", path, obj)
    assert status == 201, body
    return body  # type: ignore[no-any-return]


def configmap(name: str, namespace: str, data: dict[str, str], labels: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}


def load_golden_namespace(server: ServerProcess) -> None:
    """The golden namespace with the three ConfigMaps the goldens list, created over HTTP."""
    create(server, "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "golden"}})
    base = "/api/v1/namespaces/golden/configmaps"
    create(server, base, configmap("app-config", "golden", {"FEATURE_X": "true", "LOG_LEVEL": "info",
                                                           "app.properties": "server.port=8080\n"},
                                   {"app": "web", "tier": "gold"}))
    create(server, base, configmap("binary-config", "golden", {"readme.txt": "hello"}, {"app": "tools"}))
    create(server, base, configmap("empty-config", "golden", {}))
