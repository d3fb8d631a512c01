"""The store and the plain-JSON read path, each beside the full-parse reference it replaces.

Run: python -m pytest benches/micro --benchmark-only -q
Groups pair a fast path with its reference in the same run (compare within a group, never across runs):
get, list, merge patch and list body each have a `*_full_parse` twin that decodes and re-encodes what the
fast path hands over as stored bytes.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from apiserver.kinds.objects import ordered
from apiserver.kinds.resources import ResourceType, builtin_registry
from apiserver.patching.patch import merge_patch
from apiserver.shapes.shape import JSON_SHAPE, Listing
from apiserver.storage.embedded import EmbeddedStore, StoreOptions, WalRecord, _encode
from apiserver.storage.interface import Key, StoredObject
from apiserver.storage.wal import LogWriter, frame
from benches.objects import configmap, running_pod

NAMESPACE = "bench"
COUNT = 1_000
_names = itertools.count()


def _unique(prefix: str) -> str:
    return f"{prefix}-{os.getpid()}-{next(_names)}"


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def _stored(name: str, i: int) -> dict[str, Any]:
    """A ConfigMap in the key order the server stores (kind first): the order the list splice relies on."""
    return ordered(configmap(NAMESPACE, name, i))


def _fill(store: EmbeddedStore, loop: asyncio.AbstractEventLoop, count: int) -> None:
    async def fill() -> None:
        writes = [store.submit(("configmaps", NAMESPACE, f"cm-{i:05d}"), _stored(f"cm-{i:05d}", i), None)
                  for i in range(count)]
        await asyncio.gather(*writes)
    loop.run_until_complete(fill())


@pytest.fixture
def store(tmp_path: Any, loop: asyncio.AbstractEventLoop) -> Iterator[EmbeddedStore]:
    """A store on disk holding COUNT ConfigMaps, its WAL fsynced like the server's."""
    store = EmbeddedStore(StoreOptions(str(tmp_path / "store")))
    _fill(store, loop, COUNT)
    yield store
    loop.run_until_complete(store.close())


@pytest.fixture(scope="module")
def configmaps() -> ResourceType:
    rt = builtin_registry().lookup("", "v1", "configmaps")
    assert rt is not None
    return rt


def _key(i: int) -> Key:
    return ("configmaps", NAMESPACE, f"cm-{i:05d}")


# -- writes: each one waits for its fsync, as the server's do ------------------------------------

@pytest.mark.benchmark(group="store-write")
def test_create(benchmark: BenchmarkFixture, store: EmbeddedStore, loop: asyncio.AbstractEventLoop) -> None:
    async def create() -> StoredObject:
        name = _unique("new")
        return await store.submit(("configmaps", NAMESPACE, name), _stored(name, 1), None)
    benchmark(lambda: loop.run_until_complete(create()))


@pytest.mark.benchmark(group="store-write")
def test_update(benchmark: BenchmarkFixture, store: EmbeddedStore, loop: asyncio.AbstractEventLoop) -> None:
    async def update() -> StoredObject:
        current = store.latest(_key(7))
        assert current is not None
        return await store.submit(_key(7), _stored("cm-00007", 7), current)
    benchmark(lambda: loop.run_until_complete(update()))


# -- reads ---------------------------------------------------------------------------------------

@pytest.mark.benchmark(group="store-get")
def test_get(benchmark: BenchmarkFixture, store: EmbeddedStore) -> None:
    assert benchmark(store.get, _key(500)) is not None


@pytest.mark.benchmark(group="store-get")
def test_get_full_parse(benchmark: BenchmarkFixture, store: EmbeddedStore) -> None:
    def get_parsed() -> bytes:
        stored = store.get(_key(500))
        assert stored is not None
        return orjson.dumps(orjson.loads(stored.data))
    benchmark(get_parsed)


@pytest.mark.benchmark(group="store-list")
def test_list(benchmark: BenchmarkFixture, store: EmbeddedStore) -> None:
    _, items = benchmark(store.list, "configmaps", NAMESPACE)
    assert len(items) == COUNT


@pytest.mark.benchmark(group="store-list")
def test_list_full_parse(benchmark: BenchmarkFixture, store: EmbeddedStore) -> None:
    benchmark(lambda: [orjson.loads(obj.data) for _, obj in store.list("configmaps", NAMESPACE)[1]])


# -- the write-ahead log -------------------------------------------------------------------------

@pytest.mark.parametrize("batch", [1, 32])
@pytest.mark.benchmark(group="wal-append")
def test_wal_append(benchmark: BenchmarkFixture, tmp_path: Any, batch: int) -> None:
    data = orjson.dumps(configmap(NAMESPACE, "cm-00001", 1))
    frames = [frame(_encode(WalRecord(i, False, "configmaps", NAMESPACE, f"cm-{i:05d}", data))) for i in range(batch)]
    writer = LogWriter(str(tmp_path / "wal-bench.log"))
    try:
        benchmark(writer.append_and_sync, frames)
    finally:
        writer.close()


@pytest.mark.benchmark(group="wal-replay")
def test_wal_replay(benchmark: BenchmarkFixture, tmp_path: Any, loop: asyncio.AbstractEventLoop) -> None:
    """Recovering COUNT ConfigMaps from the log alone (no snapshot)."""
    directory = str(tmp_path / "replay")
    store = EmbeddedStore(StoreOptions(directory))
    _fill(store, loop, COUNT)
    loop.run_until_complete(store.close())

    def recover() -> int:
        recovered = EmbeddedStore(StoreOptions(directory))
        loop.run_until_complete(recovered.close())
        return recovered.revision
    assert benchmark(recover) == store.revision


# -- merge patch: on a parsed object, and the whole stored -> patched -> stored round trip -----------

_POD = running_pod(NAMESPACE, "pod-00001", 1)
_POD_BYTES = orjson.dumps(_POD)
_STATUS_PATCH = {"metadata": {"labels": {"tier": "gold"}},
                 "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "False"}]}}


@pytest.mark.benchmark(group="merge-patch")
def test_merge_patch(benchmark: BenchmarkFixture) -> None:
    assert benchmark(merge_patch, _POD, _STATUS_PATCH)["metadata"]["labels"]["tier"] == "gold"


@pytest.mark.benchmark(group="merge-patch")
def test_merge_patch_full_parse(benchmark: BenchmarkFixture) -> None:
    benchmark(lambda: orjson.dumps(merge_patch(orjson.loads(_POD_BYTES), _STATUS_PATCH)))


# -- a plain list body: stored bytes spliced, against decoding and re-encoding every item -----------

def _listing(store: EmbeddedStore) -> Listing:
    revision, items = store.list("configmaps", NAMESPACE)
    return Listing(revision, items)


@pytest.mark.benchmark(group="list-body")
def test_list_body_splice(benchmark: BenchmarkFixture, store: EmbeddedStore, configmaps: ResourceType) -> None:
    listing = _listing(store)
    body = benchmark(JSON_SHAPE.list_body, configmaps, listing)
    assert body == _full_body(configmaps, listing)


def _item(data: bytes) -> dict[str, Any]:
    """A typed list's item, as upstream writes it: the object without kind and apiVersion."""
    obj = orjson.loads(data)
    del obj["kind"], obj["apiVersion"]
    return dict(obj)


def _full_body(rt: ResourceType, listing: Listing) -> bytes:
    return orjson.dumps({"kind": rt.list_kind, "apiVersion": rt.api_version, "metadata": listing.metadata(),
                         "items": [_item(obj.data) for _, obj in listing.items]})


@pytest.mark.benchmark(group="list-body")
def test_list_body_full_reserialization(benchmark: BenchmarkFixture, store: EmbeddedStore,
                                        configmaps: ResourceType) -> None:
    benchmark(_full_body, configmaps, _listing(store))
