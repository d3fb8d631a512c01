"""HTTP with the headers kept, and watch streams read line by line, against a real ServerProcess."""

from __future__ import annotations

import http.client
import importlib.util
import json
import os
from collections.abc import Iterator
from typing import Any

import yaml
from support import FIXTURES, GOLDEN, ServerProcess, run_kubectl

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


def load_golden_config(server: ServerProcess) -> None:
    """The goldens' namespaces, ConfigMaps and Secrets, applied with the real kubectl as they were upstream."""
    for name in ("00-namespaces.yaml", "03-config.yaml"):
        run_kubectl(server, "apply", "--validate=false", "-f", os.path.join(FIXTURES, name))


def load_golden_custom(server: ServerProcess) -> None:
    """The goldens' two CRDs and their objects, widgets' status included, as fixtures/apply.sh loads them."""
    run_kubectl(server, "apply", "--validate=false", "-f", os.path.join(FIXTURES, "01-crds.yaml"))
    run_kubectl(server, "wait", "--for=condition=Established", "crd/widgets.example.com", "crd/gadgets.example.com",
                "--timeout=30s")
    run_kubectl(server, "apply", "--validate=false", "-f", os.path.join(FIXTURES, "08-custom.yaml"))
    for status in sorted(os.listdir(os.path.join(FIXTURES, "status"))):
        parts = status.removesuffix(".yaml").split("__")  # namespace__resource__name
        if len(parts) == 3 and parts[1].endswith(".example.com"):
            run_kubectl(server, "-n", parts[0], "patch", parts[1], parts[2], "--subresource=status", "--type=merge",
                        "--patch-file", os.path.join(FIXTURES, "status", status))


def _golden_compare() -> Any:
    spec = importlib.util.spec_from_file_location("golden_compare", os.path.join(GOLDEN, "compare.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_COMPARE = _golden_compare()


def normalized(raw: bytes) -> Any:
    """An answer as golden/compare.py sees it: what differs between two servers (uids, versions, ages) masked."""
    try:
        value = json.loads(raw)
    except ValueError:
        value = yaml.load(raw, Loader=yaml.BaseLoader)
    return _COMPARE.norm(value)


def golden_normalized(relative: str) -> Any:
    """A golden answer (path under kube-1.36.2/) as golden/compare.py sees it."""
    return _COMPARE.load(os.path.join(GOLDEN, "kube-1.36.2", relative))[1]


def watch_demo(server: ServerProcess, query: str, accept: str, count: int) -> list[Any]:
    """What the goldens' watch captures did: watch golden's ConfigMaps (from the current version when
    `query` says `resourceVersion=now`), create, patch and delete `watch-demo`; the first `count` events."""
    base = "/api/v1/namespaces/golden/configmaps"
    if "resourceVersion=now" in query:
        status, plain = server.json("GET", base)
        assert status == 200
        query = query.replace("resourceVersion=now", f"resourceVersion={plain['metadata']['resourceVersion']}")
    watch = Watch(server, f"{base}?watch=1&timeoutSeconds=10&{query}", accept)
    try:
        assert watch.status == 200 and watch.headers["content-type"] == "application/json"
        create(server, base, configmap("watch-demo", "golden", {"k": "v1"}, {"demo": "watch"}))
        status, _ = server.json("PATCH", base + "/watch-demo", {"data": {"k": "v2", "k2": "x"}},
                                content_type="application/merge-patch+json")
        assert status == 200
        assert server.json("DELETE", base + "/watch-demo")[0] == 200
        return [watch.next_event() for _ in range(count)]
    finally:
        watch.close()


def golden_watch(name: str) -> list[Any]:
    """A golden watch stream (under kube-1.36.2/watch/), each event as golden/compare.py sees it."""
    with open(os.path.join(GOLDEN, "kube-1.36.2", "watch", name), "rb") as f:
        return [normalized(line) for line in f]
