"""Informers on the real store and Endpoint, in process: one dropped by the watch fan-out for falling
behind catches up from the retained history; only an expired history makes it list again."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest

from apiserver import metrics
from apiserver.controllers import informer as informer_module
from apiserver.controllers.informer import Informer
from apiserver.http.endpoint import Endpoint, Target
from apiserver.kinds.resources import builtin_registry
from apiserver.storage.embedded import EmbeddedStore, StoreOptions


def _count(counter: Any, resource: str) -> float:
    return float(counter.labels(resource)._value.get())


async def _scenario(data_dir: str, history_size: int) -> tuple[Informer, list[tuple[str, str]]]:
    registry = builtin_registry()
    store = EmbeddedStore(StoreOptions(data_dir, history_size=history_size))
    endpoint = Endpoint(store, registry)
    namespaces = registry.lookup("", "v1", "namespaces")
    configmaps = registry.lookup("", "v1", "configmaps")
    assert namespaces is not None and configmaps is not None
    await endpoint.create(Target(namespaces, "", None, None, {}), b'{"metadata":{"name":"ns"}}', "application/json")
    seen: list[tuple[str, str]] = []
    informer = Informer(endpoint, configmaps)
    informer.add_handler(lambda old, new: seen.append(("added" if old is None else "changed" if new else "gone",
                                                       (new or old or {})["metadata"]["name"])))
    task = asyncio.create_task(informer.run())
    await asyncio.sleep(0)

    async def create(i: int) -> None:
        body = orjson.dumps({"metadata": {"name": f"cm-{i}"}, "data": {"i": str(i)}})
        await endpoint.create(Target(configmaps, "ns", None, None, {}), body, "application/json")

    # Written together, the changes reach the fan-out in one batch, before the informer runs again.
    await asyncio.gather(*(create(i) for i in range(10)))
    for _ in range(100):
        if len(informer.items("ns")) == 10:
            break
        await asyncio.sleep(0.01)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await store.close()
    return informer, seen


def test_a_dropped_informer_catches_up_from_history(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(informer_module, "_QUEUE_LIMIT", 3)
    catchups = _count(metrics.CONTROLLER_CATCHUPS, "configmaps")
    relists = _count(metrics.CONTROLLER_RELISTS, "configmaps")
    informer, seen = asyncio.run(_scenario(str(tmp_path), history_size=1000))
    assert sorted(o["metadata"]["name"] for o in informer.items("ns")) == sorted(f"cm-{i}" for i in range(10))
    assert sorted(seen) == sorted(("added", f"cm-{i}") for i in range(10))  # each change once, none twice
    assert _count(metrics.CONTROLLER_CATCHUPS, "configmaps") > catchups
    assert _count(metrics.CONTROLLER_RELISTS, "configmaps") == relists


def test_expired_history_lists_again_and_says_so(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(informer_module, "_QUEUE_LIMIT", 3)
    relists = _count(metrics.CONTROLLER_RELISTS, "configmaps")
    informer, seen = asyncio.run(_scenario(str(tmp_path), history_size=2))
    assert sorted(o["metadata"]["name"] for o in informer.items("ns")) == sorted(f"cm-{i}" for i in range(10))
    assert sorted(set(seen)) == sorted(("added", f"cm-{i}") for i in range(10))
    assert _count(metrics.CONTROLLER_RELISTS, "configmaps") > relists
