"""Server-side apply of an unchanged configuration beside a merge patch of the same object.

Run: python -m pytest benches/micro/test_apply_bench.py --benchmark-only -q --benchmark-timer=time.process_time
(CPU time: on a shared machine, wall time mostly measures the neighbours.)
Both go through the endpoint's whole write path on a real store (decode, merge, defaulting, managed
fields, the no-op check); neither writes, since nothing changes. Controllers re-apply every loop, so
the figure to read is the ratio of the two in group "reapply" (the issue's target: at most 2x).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
import yaml
from pytest_benchmark.fixture import BenchmarkFixture

from apiserver.http.endpoint import Endpoint, Target
from apiserver.kinds.resources import builtin_registry
from apiserver.storage.embedded import EmbeddedStore, StoreOptions

NAMESPACE = "bench"
APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
CONFIG: dict[str, Any] = {
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"app": "web", "tier": "fe"}},
    "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [
            {"name": "app", "image": "registry.example.com/web:2.4.0",
             "ports": [{"containerPort": 8080, "protocol": "TCP"}],
             "env": [{"name": "MODE", "value": "fast"}, {"name": "LOG_LEVEL", "value": "info"}],
             "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}},
            {"name": "sidecar", "image": "registry.example.com/proxy:1.0", "args": ["--port", "9000"]}]}}}}


@pytest.fixture
def setup(tmp_path: Any) -> Iterator[tuple[Endpoint, Target, asyncio.AbstractEventLoop]]:
    loop = asyncio.new_event_loop()
    store = EmbeddedStore(StoreOptions(str(tmp_path / "store")))
    registry = builtin_registry()
    endpoint = Endpoint(store, registry)
    namespaces, deployments = registry.lookup("", "v1", "namespaces"), registry.lookup("apps", "v1", "deployments")
    assert namespaces is not None and deployments is not None
    created = Target(namespaces, "", None, None, {})
    loop.run_until_complete(endpoint.create(created, orjson.dumps({"metadata": {"name": NAMESPACE}}), "application/json"))
    target = Target(deployments, NAMESPACE, "web", None, {"fieldManager": "bench"})
    reply = loop.run_until_complete(endpoint.patch(target, yaml.safe_dump(CONFIG).encode(), APPLY))
    assert reply.status == 201
    yield endpoint, target, loop
    loop.run_until_complete(store.close())
    loop.close()


def _unchanged(endpoint: Endpoint, target: Target, loop: asyncio.AbstractEventLoop, body: bytes,
               content_type: str) -> None:
    before = endpoint.store.latest(target.key())
    reply = loop.run_until_complete(endpoint.patch(target, body, content_type))
    assert reply.status == 200 and endpoint.store.latest(target.key()) is before


@pytest.mark.benchmark(group="reapply")
def test_apply_unchanged(benchmark: BenchmarkFixture, setup: tuple[Endpoint, Target, asyncio.AbstractEventLoop]) -> None:
    endpoint, target, loop = setup
    body = yaml.safe_dump(CONFIG).encode()
    benchmark(_unchanged, endpoint, target, loop, body, APPLY)


@pytest.mark.benchmark(group="reapply")
def test_merge_patch_unchanged(benchmark: BenchmarkFixture,
                               setup: tuple[Endpoint, Target, asyncio.AbstractEventLoop]) -> None:
    endpoint, target, loop = setup
    body = orjson.dumps(CONFIG)
    benchmark(_unchanged, endpoint, target, loop, body, MERGE)
