"""Lists assembled once per collection version answer exactly what assembling them anew answers.

The contract: for every shape and view (namespace, selectors, pages), the body built from what an
earlier list kept is byte-identical to the body built from the selected objects alone, and a write
to the resource is seen by the very next list. A watch's initial events come from the same pieces
and equal the lines encoded one object at a time.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from support import GOLDEN, ServerProcess

from apiserver import metrics
from apiserver.http.endpoint import Endpoint, Target
from apiserver.kinds.resources import Registry, ResourceType, builtin_registry
from apiserver.shapes.assembled import AssemblyCache
from apiserver.shapes.metadata_shape import MetadataShape
from apiserver.shapes.shape import JSON_SHAPE, Shape, YamlShape
from apiserver.shapes.table_shape import TableShape
from apiserver.storage.embedded import EmbeddedStore, StoreOptions
from apiserver.storage.interface import StoredObject
from apiserver.watch.fanout import event_line
from columns.registry import printer_for
from tables.rows import compile_rows, render_rows, variant

SHAPES: dict[str, Shape] = {
    "plain": JSON_SHAPE,
    "yaml": YamlShape(JSON_SHAPE),
    "metadata": MetadataShape("meta.k8s.io/v1", as_list=True),
    "metadata-no-managed": MetadataShape("meta.k8s.io/v1", as_list=True, managed_fields=False),
    "table-none": TableShape("meta.k8s.io/v1", "None"),
    "table-metadata": TableShape("meta.k8s.io/v1beta1", "Metadata"),
    "table-object": TableShape("meta.k8s.io/v1", "Object"),
}

VIEWS: dict[str, dict[str, str]] = {
    "all": {},
    "selector": {"labelSelector": "tier=gold"},
    "set-selector": {"labelSelector": "tier in (gold,silver),!missing"},
    "field": {"fieldSelector": "metadata.name!=cm-03"},
    "page": {"limit": "4"},
    "selector-page": {"labelSelector": "tier=gold", "limit": "2"},
}


@dataclasses.dataclass
class World:
    endpoint: Endpoint
    registry: Registry

    def rt(self, plural: str) -> ResourceType:
        found = self.registry.lookup("", "v1", plural)
        assert found is not None
        return found

    def target(self, namespace: str, query: dict[str, str], plural: str = "configmaps") -> Target:
        return Target(self.rt(plural), namespace, None, None, query)

    def write(self, namespace: str, body: dict[str, Any], name: str | None = None) -> None:
        t = Target(self.rt("configmaps"), namespace, name, None, {})
        raw = orjson.dumps(body)
        if name is None:
            asyncio.run(self.endpoint.create(t, raw, "application/json"))
        else:
            asyncio.run(self.endpoint.update(t, raw, "application/json"))


def configmap(name: str, tier: str, namespace: str = "apps") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace, "labels": {"tier": tier, "n": name[-2:]}},
            "data": {"k": "v" * len(name), "note": "caf\u00e9 \u2603 \"q\" <t>"}}


@pytest.fixture
def world(tmp_path: Any) -> Iterator[World]:
    registry = builtin_registry()
    store = EmbeddedStore(StoreOptions(str(tmp_path)))
    endpoint = Endpoint(store, registry)
    w = World(endpoint, registry)

    async def seed() -> None:
        for ns in ("apps", "other"):
            await endpoint.create(Target(w.rt("namespaces"), "", None, None, {}),
                                  orjson.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
                                  "application/json")
        for i in range(10):
            for ns in ("apps", "other"):
                body = configmap(f"cm-{i:02d}", ("gold", "silver", "bronze")[i % 3], ns)
                await endpoint.create(Target(w.rt("configmaps"), ns, None, None, {}), orjson.dumps(body),
                                      "application/json")

    asyncio.run(seed())
    yield w
    asyncio.run(store.close())


def same_second(make: Any) -> tuple[bytes, bytes]:
    """Two bodies made within one wall-clock second, so that their ages agree (bounded retries)."""
    for _ in range(20):
        second = int(time.time())
        first, again = make()
        if int(time.time()) == second:
            return first, again
    raise AssertionError("no two bodies made within one second")


def pages(world: World, namespace: str, query: dict[str, str], shape: Shape) -> list[tuple[bytes, bytes]]:
    """Each page's (assembled, made anew) bodies, following continue tokens."""
    out: list[tuple[bytes, bytes]] = []
    query = dict(query)
    for _ in range(20):
        t = world.target(namespace, query)
        listing = world.endpoint.select(t)
        rt = t.rt

        def both() -> tuple[bytes, bytes]:
            return (shape.list_body(rt, world.endpoint.select(t)),
                    shape.list_body(rt, dataclasses.replace(listing, pieces=None)))

        out.append(same_second(both))
        if listing.continue_token is None:
            return out
        query["continue"] = listing.continue_token
    raise AssertionError("more than 20 pages")


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("shape_name", list(SHAPES))
def test_assembled_list_equals_one_made_anew(world: World, shape_name: str, view: str) -> None:
    shape = SHAPES[shape_name]
    for namespace in ("apps", ""):
        first = pages(world, namespace, VIEWS[view], shape)
        assert all(kept == fresh for kept, fresh in first)
        again = pages(world, namespace, VIEWS[view], shape)
        assert [kept for kept, _ in again] == [kept for kept, _ in first] or shape_name.startswith("table")
        assert all(kept == fresh for kept, fresh in again)


def test_a_write_is_seen_by_the_next_list(world: World) -> None:
    gold = world.target("apps", {"labelSelector": "tier=gold"})
    before = orjson.loads(JSON_SHAPE.list_body(gold.rt, world.endpoint.select(gold)))
    names = [item["metadata"]["name"] for item in before["items"]]
    assert names == ["cm-00", "cm-03", "cm-06", "cm-09"]
    assert world.endpoint.select(gold).pieces is world.endpoint.select(gold).pieces  # kept, not made again

    world.write("apps", configmap("cm-01", "gold"), name="cm-01")  # silver becomes gold
    world.write("apps", configmap("cm-99", "gold"))
    after = world.endpoint.select(gold)
    body = JSON_SHAPE.list_body(gold.rt, after)
    assert body == JSON_SHAPE.list_body(gold.rt, dataclasses.replace(after, pieces=None))
    assert [item["metadata"]["name"] for item in orjson.loads(body)["items"]] == [
        "cm-00", "cm-01", "cm-03", "cm-06", "cm-09", "cm-99"]
    # A write in another namespace of the same resource is seen too.
    everything = world.target("", {})
    count = len(world.endpoint.select(everything).items)
    world.write("other", configmap("cm-77", "bronze", "other"))
    assert len(world.endpoint.select(everything).items) == count + 1


def test_older_versions_leave_when_the_resource_is_listed_again(world: World) -> None:
    cache = world.endpoint.assembled
    for query in VIEWS.values():
        world.endpoint.select(world.target("apps", query))
    assert len(cache) == len(VIEWS)
    held = cache.size
    assert held > 0 and metrics.ASSEMBLED_BYTES._value.get() == held  # type: ignore[attr-defined]
    world.write("apps", configmap("cm-50", "gold"))
    world.endpoint.select(world.target("apps", {}))
    assert len(cache) == 1


def test_memory_is_bounded_least_recently_used_first() -> None:
    cache = AssemblyCache(limit_bytes=10_000, max_entries=3)
    item = [(("configmaps", "ns", "a"), StoredObject(1, b"{}"))]
    first = cache.remember("configmaps", "first", 7, item, None, None)
    first.put("plain", b"x" * 4_000)
    second = cache.remember("configmaps", "second", 7, item, None, None)
    second.put("plain", b"y" * 4_000)
    assert cache.lookup("first", 7) is first  # now the most recently used
    third = cache.remember("configmaps", "third", 7, item, None, None)
    third.put("plain", b"z" * 4_000)  # over 10,000 bytes: the least recently used goes
    assert cache.lookup("second", 7) is None
    assert cache.lookup("first", 7) is first and cache.lookup("third", 7) is third
    assert cache.size <= cache.limit_bytes
    assert cache.lookup("first", 8) is None  # another version of the resource is never served from it
    for name in ("a", "b", "c", "d"):
        cache.remember("secrets", name, 1, item, None, None)
    assert len(cache) == 3


def test_table_rows_are_reused_within_a_second_only_when_every_age_holds_for_it() -> None:
    printer = printer_for("", "ConfigMap")
    row_variant = variant(printer, "None")
    now = 1_800_000_000.25

    def steady(created: str) -> bool:
        obj = configmap("cm-00", "gold")
        obj["metadata"]["creationTimestamp"] = created
        data = orjson.dumps(obj)
        template = compile_rows(printer, row_variant, [data, data], lambda data: b"null")
        # The template renders what rendering each row does.
        out: list[bytes] = []
        render_rows(out, printer, row_variant, [data, data], lambda data: b"null", now)
        assert template.render(now) == b"".join(out)
        return template.steady(now)

    assert steady("2027-01-15T08:00:00Z")  # whole seconds, in the past
    assert not steady("2027-01-15T08:00:00.5Z")  # a fraction of a second: the age turns mid-second
    assert not steady("2030-01-01T00:00:00Z")  # in the future: Go's truncation is not a floor there


def test_selector_lists_over_http_follow_writes_and_report_the_cache(server: ServerProcess) -> None:
    base = "/api/v1/namespaces/default/configmaps"
    for i in range(6):
        status, _ = server.json("POST", base, configmap(f"cm-{i:02d}", "gold" if i % 2 else "silver", "default"))
        assert status == 201
    path = base + "?labelSelector=tier%3Dgold"
    _, first = server.json("GET", path)
    _, second = server.json("GET", path)
    assert [i["metadata"]["name"] for i in second["items"]] == ["cm-01", "cm-03", "cm-05"]
    assert second["items"] == first["items"]
    status, _ = server.json("PATCH", base + "/cm-00", {"metadata": {"labels": {"tier": "gold"}}},
                            content_type="application/merge-patch+json")
    assert status == 200
    _, third = server.json("GET", path)
    assert [i["metadata"]["name"] for i in third["items"]] == ["cm-00", "cm-01", "cm-03", "cm-05"]
    assert int(third["metadata"]["resourceVersion"]) > int(second["metadata"]["resourceVersion"])
    status, raw = server.request("GET", "/metrics")
    assert status == 200
    exposed = {line.split(" ")[0]: float(line.split(" ")[1]) for line in raw.decode().splitlines()
               if line.startswith("apiserver_list_assembled")}
    assert exposed['apiserver_list_assembled_hits_total{part="selection"}'] >= 1
    assert exposed["apiserver_list_assembled_bytes"] > 0
    assert exposed["apiserver_list_assembled_entries"] >= 1


@pytest.mark.parametrize("resource,kind", [("pods", "Pod"), ("jobs.batch", "Job"), ("events", "Event"),
                                           ("deployments.apps", "Deployment")])
def test_a_rows_template_renders_what_rendering_each_row_does(resource: str, kind: str) -> None:
    """Kinds with several request-time cells a row (restarts "N (5m ago)", durations, ages)."""
    with open(os.path.join(GOLDEN, "kube-1.36.2", "table", f"{resource}.list.includeObject-Object.json")) as f:
        objects = [orjson.dumps(row["object"]) for row in json.load(f)["rows"]]
    assert objects
    group = resource.split(".", 1)[1] if "." in resource else ""
    printer = printer_for(group, kind)
    row_variant = variant(printer, "Object")
    template = compile_rows(printer, row_variant, objects, lambda data: data)
    assert len(template.ages) >= len(objects)
    for now in (1_700_000_000.0, 1_800_000_000.5, 2_000_000_000.999):
        out: list[bytes] = []
        render_rows(out, printer, row_variant, objects, lambda data: data, now)
        assert template.render(now) == b"".join(out)


def test_a_repeated_list_is_answered_with_the_same_bytes_until_its_metadata_changes(world: World) -> None:
    gold = world.target("apps", {"labelSelector": "tier=gold"})
    first = JSON_SHAPE.list_parts(gold.rt, world.endpoint.select(gold))
    again = JSON_SHAPE.list_parts(gold.rt, world.endpoint.select(gold))
    assert len(first) == 1 and again[0] is first[0]  # joined once, neither assembled nor copied again
    # A write to another resource moves the revision every list reports, not these items.
    asyncio.run(world.endpoint.create(Target(world.rt("secrets"), "apps", None, None, {}), orjson.dumps(
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "apps"}}), "application/json"))
    listing = world.endpoint.select(gold)
    later = JSON_SHAPE.list_parts(gold.rt, listing)
    assert later[0] != first[0]
    assert orjson.loads(later[0])["metadata"]["resourceVersion"] == str(listing.revision)
    assert later[0] == JSON_SHAPE.list_body(gold.rt, dataclasses.replace(listing, pieces=None))


WATCH_LIST = {"watch": "1", "sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan",
              "allowWatchBookmarks": "true"}


def watch_start(world: World, namespace: str, query: dict[str, str], shape: Shape) -> list[bytes]:
    """The chunks a watch-list sends up to and including its initial-events-end bookmark."""
    async def read() -> list[bytes]:
        reply = world.endpoint.watch(world.target(namespace, {**query, **WATCH_LIST}), shape)
        chunks: list[bytes] = []
        try:
            async for chunk in reply.chunks:
                chunks.append(chunk)
                if b"k8s.io/initial-events-end" in chunk or len(chunks) > 1_000:
                    return chunks
        finally:
            await reply.chunks.aclose()  # type: ignore[attr-defined]
        raise AssertionError("the watch ended before its initial events did")
    return asyncio.run(read())


def selection_counts() -> tuple[float, float]:
    return (metrics.ASSEMBLED_HITS.labels("selection").value,
            metrics.ASSEMBLED_MISSES.labels("selection").value)


@pytest.mark.parametrize("view", [name for name, query in VIEWS.items() if "limit" not in query])
@pytest.mark.parametrize("shape_name", list(SHAPES))
def test_watch_initial_events_are_one_chunk_from_the_lists_pieces(world: World, shape_name: str, view: str) -> None:
    shape = SHAPES[shape_name]
    for namespace in ("apps", ""):
        t = world.target(namespace, VIEWS[view])

        def both() -> tuple[bytes, bytes]:
            chunks = watch_start(world, namespace, VIEWS[view], shape)
            assert len(chunks) == 2 and b'"BOOKMARK"' in chunks[1]  # every initial event in one chunk
            listing = world.endpoint.select(t)
            one_by_one = b"".join(event_line("ADDED", shape.event_object(t.rt, obj, index == 0))
                                  for index, (_, obj) in enumerate(listing.items))
            return chunks[0], one_by_one

        world.endpoint.select(t)  # a list of the view: the watches below select nothing anew
        hits, misses = selection_counts()
        block, one_by_one = same_second(both)
        assert block == one_by_one
        assert block.count(b'{"type":"ADDED","object":') == len(world.endpoint.select(t).items) > 0
        assert selection_counts()[1] == misses and selection_counts()[0] > hits


def test_a_watch_of_an_empty_view_sends_only_its_end_bookmark(world: World) -> None:
    chunks = watch_start(world, "apps", {"labelSelector": "tier=none"}, JSON_SHAPE)
    assert len(chunks) == 1 and orjson.loads(chunks[0])["type"] == "BOOKMARK"


def test_a_write_between_two_watch_starts_gives_the_second_the_new_state(world: World) -> None:
    gold = {"labelSelector": "tier=gold"}
    before = watch_start(world, "apps", gold, JSON_SHAPE)[0]
    assert watch_start(world, "apps", gold, JSON_SHAPE)[0] is before  # the same bytes, joined once
    world.write("apps", configmap("cm-01", "gold"), name="cm-01")  # silver becomes gold
    after = watch_start(world, "apps", gold, JSON_SHAPE)[0]
    names = [orjson.loads(line)["object"]["metadata"]["name"] for line in after.splitlines()]
    assert names == ["cm-00", "cm-01", "cm-03", "cm-06", "cm-09"]
    listing = world.endpoint.select(world.target("apps", gold))
    assert [orjson.loads(line)["object"]["metadata"]["resourceVersion"] for line in after.splitlines()] == \
        [str(obj.rv) for _, obj in listing.items]
