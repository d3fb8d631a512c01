"""The plain-ASGI read path answers exactly what the Starlette app answers: status, headers, body.

Both are the very apps `python -m apiserver` serves (`server.build`), driven in process with the
same ASGI requests, so every difference in what a client would see shows.
"""

from __future__ import annotations

import asyncio
import gzip
import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from apiserver import server
from apiserver.http.reads import ASGIApp, FastReads

CM = "/api/v1/namespaces/default/configmaps"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
METADATA = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"

# (path, query, headers beside the admin token): every way a get or list is answered or refused.
READS: list[tuple[str, str, dict[str, str]]] = [
    (CM + "/cm-03", "", {}),
    (CM + "/cm-03", "", {"accept": "application/yaml"}),
    (CM + "/cm-03", "", {"accept": "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"}),
    (CM + "/missing", "", {}),
    (CM + "/missing", "", {"accept": "application/yaml"}),
    (CM, "", {}),
    (CM, "labelSelector=tier%3Dgold", {}),
    (CM, "labelSelector=tier%3D%3D%3Dgold", {}),
    (CM, "fieldSelector=metadata.name%3Dcm-01", {}),
    (CM, "limit=3", {}),
    (CM, "limit=3&continue=bogus", {}),
    (CM, "resourceVersion=999999999", {}),
    (CM, "", {"accept": TABLE}),
    (CM, "includeObject=None", {"accept": TABLE}),
    (CM, "", {"accept": METADATA}),
    (CM, "", {"accept": "application/vnd.kubernetes.protobuf"}),
    (CM, "", {"accept-encoding": "gzip"}),
    ("/api/v1/configmaps", "", {}),
    ("/api/v1/namespaces", "", {}),
    ("/api/v1/namespaces/default", "", {}),
    ("/api/v1/namespaces/default/nodes", "", {}),
    ("/api/v1/namespaces/default/widgets", "", {}),
    ("/api/v1/namespaces/default/pods/p/log", "", {}),
    ("/apis/apiregistration.k8s.io/v1/apiservices", "", {}),
    ("/apis/apiregistration.k8s.io/v1/apiservices/v1.apps", "", {}),
    ("/apis/apps/v1/namespaces/default/deployments/scaled/scale", "", {}),
    (CM, "", {"authorization": "Bearer not-a-token"}),
    (CM, "", {"authorization": ""}),
]


async def call(app: ASGIApp, path: str, query: str, headers: dict[str, str]) -> tuple[int, list[Any], bytes]:
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "https",
             "path": path, "raw_path": path.encode(), "query_string": query.encode(), "root_path": "",
             "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
             "server": ("127.0.0.1", 6443), "client": ("127.0.0.1", 50000)}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = sent[0]
    return start["status"], sorted(start["headers"]), b"".join(m.get("body", b"") for m in sent[1:])


@pytest.fixture(scope="module")
def apps(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FastReads, str]]:
    data_dir = str(tmp_path_factory.mktemp("fast-reads"))
    app, _ = server.build(server.ServeOptions(data_dir, "127.0.0.1", 6443, False, 1000, 600.0, 20_000))
    with open(f"{data_dir}/pki/admin.token") as f:
        admin = f.read().strip()
    loop = asyncio.new_event_loop()
    inner = app.app
    lifespan = inner.router.lifespan_context(inner)  # type: ignore[attr-defined]
    loop.run_until_complete(lifespan.__aenter__())

    async def seed() -> None:
        auth = {"authorization": f"Bearer {admin}", "content-type": "application/json"}
        for i in range(8):
            body = {"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": f"cm-{i:02d}", "labels": {"tier": "gold" if i % 2 else "silver"}},
                    "data": {"k": "v" * 40_000}}
            await post(inner, CM, body, auth)
        await post(inner, "/apis/apps/v1/namespaces/default/deployments", {
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "scaled"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"a": "b"}},
                     "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [
                         {"name": "c", "image": "nginx"}]}}}}, auth)

    loop.run_until_complete(seed())
    yield app, admin
    loop.run_until_complete(lifespan.__aexit__(None, None, None))
    loop.close()


async def post(app: ASGIApp, path: str, body: Any, headers: dict[str, str]) -> None:
    raw = orjson.dumps(body)
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "https",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(k.encode(), v.encode()) for k, v in headers.items()] + [
                 (b"content-length", str(len(raw)).encode())],
             "server": ("127.0.0.1", 6443), "client": ("127.0.0.1", 50000)}
    statuses: list[int] = []
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": raw, "more_body": False}

    async def send(message: Any) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    await app(scope, receive, send)
    assert statuses == [201]


@pytest.mark.parametrize("path,query,extra", READS)
def test_the_fast_path_answers_as_starlette_does(apps: tuple[FastReads, str], path: str, query: str,
                                                 extra: dict[str, str]) -> None:
    app, admin = apps
    headers = {"authorization": f"Bearer {admin}", **extra}
    loop = asyncio.new_event_loop()
    try:
        for _ in range(20):  # a Table's ages must be rendered within one second by both
            second = int(time.time())
            fast = loop.run_until_complete(call(app, path, query, headers))
            slow = loop.run_until_complete(call(app.app, path, query, headers))
            if int(time.time()) == second:
                break
    finally:
        loop.close()
    assert fast == slow
    status, raw_headers, body = fast
    assert status in (200, 400, 401, 404, 405, 406, 410, 504), status
    if extra.get("accept-encoding") == "gzip":
        assert (b"content-encoding", b"gzip") in raw_headers
        assert orjson.loads(gzip.decompress(body))["kind"] == "ConfigMapList"


def test_requests_the_fast_path_leaves_to_starlette_still_work(apps: tuple[FastReads, str]) -> None:
    app, admin = apps
    headers = {"authorization": f"Bearer {admin}"}
    loop = asyncio.new_event_loop()
    try:
        for path in ("/api", "/apis", "/api/v1", "/version", "/api/v1/namespaces/default/configmaps/a b"):
            status, _, body = loop.run_until_complete(call(app, path, "", headers))
            assert status in (200, 404) and body
    finally:
        loop.close()
