"""Starting a watch-list over 1,000 ConfigMaps: the endpoint's work up to its initial-events-end bookmark.

Run: python -m pytest benches/micro/test_watch_start_bench.py --benchmark-only -q --benchmark-timer=time.process_time
(CPU time: on a shared machine, wall time mostly measures the neighbours.)
Each round opens a watch through `Endpoint.watch` on a real store, reads every chunk up to the bookmark
that ends its initial events, and closes it: what an informer's watch costs the server before any
byte reaches a socket. "same version" starts again at an unchanged collection (watchers starting
together, or the watch after an informer's list); "after a write" updates one object before each
round (untimed), so the collection's selection and its encoded events are made again. Views: every
object, and a label selector that picks one in ten. The bench uses only `Endpoint.watch`, so the same
file measures an older checkout too (copy it there and run it from that checkout's root).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from apiserver.http.endpoint import Endpoint, Target
from apiserver.kinds.resources import ResourceType, builtin_registry
from apiserver.shapes.shape import JSON_SHAPE, Shape
from apiserver.shapes.table_shape import TableShape
from apiserver.storage.embedded import EmbeddedStore, StoreOptions
from benches.objects import GOLD_EVERY, configmap

COUNT = 1_000
NAMESPACE = "bench"
WATCH_LIST = {"watch": "1", "sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan",
              "allowWatchBookmarks": "true"}
VIEWS = {"all": {}, "selector": {"labelSelector": "tier=gold"}}
SHAPES: dict[str, Shape] = {"plain": JSON_SHAPE, "table": TableShape("meta.k8s.io/v1", "None")}


class World:
    def __init__(self, directory: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.store = EmbeddedStore(StoreOptions(directory))
        registry = builtin_registry()
        self.endpoint = Endpoint(self.store, registry)
        namespaces, configmaps = registry.lookup("", "v1", "namespaces"), registry.lookup("", "v1", "configmaps")
        assert namespaces is not None and configmaps is not None
        self.configmaps: ResourceType = configmaps
        self.run(self.endpoint.create(Target(namespaces, "", None, None, {}),
                                      orjson.dumps({"metadata": {"name": NAMESPACE}}), "application/json"))
        async def seed() -> None:  # together, so the store commits them in a few fsyncs
            await asyncio.gather(*(self.endpoint.create(
                Target(configmaps, NAMESPACE, None, None, {}), orjson.dumps(configmap(NAMESPACE, f"cm-{i:04d}", i)),
                "application/json") for i in range(COUNT)))
        self.run(seed())
        self.writes = 0

    def run(self, work: Any) -> Any:
        return self.loop.run_until_complete(work)

    def start(self, query: dict[str, str], shape: Shape) -> list[bytes]:
        """The chunks of one watch-list's initial events, read up to its end bookmark."""
        async def read() -> list[bytes]:
            reply = self.endpoint.watch(Target(self.configmaps, NAMESPACE, None, None, {**query, **WATCH_LIST}),
                                        shape)
            chunks: list[bytes] = []
            try:
                async for chunk in reply.chunks:
                    if chunk.startswith(b'{"type":"BOOKMARK"'):  # the only one before live events: the end
                        return chunks
                    chunks.append(chunk)
            finally:
                await reply.chunks.aclose()  # type: ignore[attr-defined]
            raise AssertionError("the watch ended before its initial events did")
        chunks: list[bytes] = self.run(read())
        return chunks

    def write_one(self) -> None:
        """Changes one object's data (not its labels): a new version of the collection, the same views."""
        self.writes += 1
        body = configmap(NAMESPACE, "cm-0001", 1)
        body["data"]["mode"] = f"round-{self.writes}"
        self.run(self.endpoint.update(Target(self.configmaps, NAMESPACE, "cm-0001", None, {}), orjson.dumps(body),
                                      "application/json"))

    def close(self) -> None:
        self.run(self.store.close())
        self.loop.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = World(str(tmp_path_factory.mktemp("watch-start")))
    yield w
    w.close()


def _check(chunks: list[bytes], view: str) -> None:
    """Every selected object arrived as one ADDED event."""
    events = sum(chunk.count(b'{"type":"ADDED","object":') for chunk in chunks)
    assert events == (COUNT if view == "all" else COUNT // GOLD_EVERY)


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("view", list(VIEWS))
def test_watch_start_same_version(benchmark: BenchmarkFixture, world: World, view: str, shape: str) -> None:
    benchmark.group = f"watch start, same version, {view}"
    _check(benchmark(world.start, VIEWS[view], SHAPES[shape]), view)


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("view", list(VIEWS))
def test_watch_start_after_a_write(benchmark: BenchmarkFixture, world: World, view: str, shape: str) -> None:
    benchmark.group = f"watch start, after a write, {view}"
    _check(benchmark.pedantic(world.start, (VIEWS[view], SHAPES[shape]), setup=world.write_one, rounds=30), view)
