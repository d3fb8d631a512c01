"""What an admission webhook adds to a write, and what choosing the webhook client measured.

Run: python -m pytest benches/micro/test_webhook_bench.py --benchmark-only -q -p no:xdist
(add --benchmark-timer=time.process_time for this process's CPU alone: the webhook runs in its own).

Group "write": a ConfigMap created through the endpoint's whole write path on a real store, with no
admission plugin at all, with the server's plugins and no webhook configuration, with one whose rules
match nothing written (it must cost nothing measurable),
and with one validating webhook called over HTTPS on loopback (uvicorn, benches/micro/webhook_echo.py).
Group "client": one loopback HTTPS POST of a review-sized body with aiohttp (the client the webhooks
use) and with httpx, the alternative it was chosen over.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import aiohttp
import httpx
import orjson
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from apiserver.admission import enabled, plugins
from apiserver.admission.chain import AdmissionChain
from apiserver.auth.tokens import User
from apiserver.http.endpoint import Endpoint, Target
from apiserver.kinds.resources import builtin_registry
from apiserver.storage.embedded import EmbeddedStore, StoreOptions

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "tests"))
from webhook_server import Certificates, make_certificates

assert enabled  # registers the webhook plugins
USER = User("admin", "admin", ("system:masters", "system:authenticated"))
JSON = "application/json"
REVIEW = orjson.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
    "uid": "00000000-0000-0000-0000-000000000000",
    "object": {"metadata": {"name": "x", "labels": {"app": "web"}}, "data": {"k": "v" * 1000}}}})


@pytest.fixture(scope="module")
def echo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Certificates]]:
    certificates = make_certificates(str(tmp_path_factory.mktemp("certs")))
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "--app-dir", os.path.dirname(__file__),
                             "webhook_echo:app", "--host", "127.0.0.1", "--port", str(port), "--log-level",
                             "warning", "--ssl-certfile", certificates.cert_path, "--ssl-keyfile",
                             certificates.key_path])
    url = f"https://127.0.0.1:{port}/validate"
    context = ssl.create_default_context(cadata=certificates.ca_pem.decode())
    for _ in range(100):
        try:
            httpx.post(url, content=REVIEW, verify=context)
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    yield url, certificates
    proc.terminate()
    proc.wait()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Writes:
    """An endpoint with the server's admission chain, writing ConfigMaps as an admin would."""

    def __init__(self, directory: str) -> None:
        self.loop = asyncio.new_event_loop()
        registry = builtin_registry()
        self.store = EmbeddedStore(StoreOptions(directory))
        self.endpoint = Endpoint(self.store, registry)
        context = plugins.PluginContext(self.store, self.endpoint, registry)
        self.endpoint.admission = plugins.build_chain(context)
        self.loop.run_until_complete(self.endpoint.admission.start())
        self.configmaps = registry.lookup("", "v1", "configmaps")
        self._names = itertools.count()
        namespaces = registry.lookup("", "v1", "namespaces")
        namespace = b'{"metadata":{"name":"bench"}}'
        self.run(self.endpoint.create(Target(namespaces, "", None, None, {}), namespace, JSON))
        self.configurations = registry.lookup("admissionregistration.k8s.io", "v1",
                                              "validatingwebhookconfigurations")

    def run(self, coroutine: Any) -> Any:
        return self.loop.run_until_complete(coroutine)

    def configure(self, url: str, certificates: Certificates, resource: str) -> None:
        configuration = {"metadata": {"name": "bench"}, "webhooks": [{
            "name": "bench.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
            "clientConfig": {"url": url, "caBundle": certificates.ca_bundle},
            "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                       "resources": [resource]}]}]}
        self.run(self.endpoint.create(Target(self.configurations, "", None, None, {}, user=USER),
                                      orjson.dumps(configuration), JSON))

    def create(self) -> None:
        body = b'{"metadata":{"name":"cm-%d","labels":{"app":"web"}},"data":{"k":"v"}}' % next(self._names)
        target = Target(self.configmaps, "bench", None, None, {}, "bench", user=USER)
        reply = self.run(self.endpoint.create(target, body, JSON))
        assert reply.status == 201

    def close(self) -> None:
        self.run(self.endpoint.admission.stop())
        self.run(self.store.close())
        self.loop.close()


@pytest.mark.benchmark(group="write")
@pytest.mark.parametrize("configuration", ["no-plugins", "none", "unmatched", "one-webhook"])
def test_create_a_configmap(benchmark: BenchmarkFixture, tmp_path: Any, echo: tuple[str, Certificates],
                            configuration: str) -> None:
    writes = Writes(str(tmp_path))
    url, certificates = echo
    if configuration == "no-plugins":
        writes.endpoint.admission = AdmissionChain()  # the write path as before the admission chain
    elif configuration != "none":
        writes.configure(url, certificates, "configmaps" if configuration == "one-webhook" else "secrets")
    try:
        benchmark(writes.create)
    finally:
        writes.close()


@pytest.mark.benchmark(group="client")
def test_post_with_aiohttp(benchmark: BenchmarkFixture, echo: tuple[str, Certificates]) -> None:
    url, certificates = echo
    loop = asyncio.new_event_loop()
    context = ssl.create_default_context(cadata=certificates.ca_pem.decode())
    session = loop.run_until_complete(_aiohttp_session())

    async def post() -> bytes:
        async with session.post(url, data=REVIEW, ssl=context, headers={"Content-Type": JSON}) as reply:
            return await reply.read()
    benchmark(lambda: loop.run_until_complete(post()))
    loop.run_until_complete(session.close())
    loop.close()


async def _aiohttp_session() -> aiohttp.ClientSession:
    return aiohttp.ClientSession()


@pytest.mark.benchmark(group="client")
def test_post_with_httpx(benchmark: BenchmarkFixture, echo: tuple[str, Certificates]) -> None:
    url, certificates = echo
    loop = asyncio.new_event_loop()
    context = ssl.create_default_context(cadata=certificates.ca_pem.decode())
    session = httpx.AsyncClient(verify=context)

    async def post() -> bytes:
        reply = await session.post(url, content=REVIEW, headers={"Content-Type": JSON})
        return reply.content
    benchmark(lambda: loop.run_until_complete(post()))
    loop.run_until_complete(session.aclose())
    loop.close()
