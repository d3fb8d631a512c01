"""Per-object cost of the list shapes over 1,000 ConfigMaps and 1,000 Pods, beside the plain spliced list.

Objects are the golden answers' ConfigMaps and Pods (as a real kube-apiserver served them), copied
to 1,000 distinct names and versions. "cold" forgets every cached row and metadata cut before each
round (the first list after the objects were written); "warm" lists the same unchanged objects again.
Divide a mean by 1,000 for the cost per object.

    python -m pytest benches/micro/test_shapes_bench.py --benchmark-columns=mean,stddev,rounds
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from apiserver.kinds.resources import ResourceType, builtin_registry
from apiserver.shapes.metadata_shape import MetadataShape
from apiserver.shapes.shape import JSON_SHAPE, Listing, Shape
from apiserver.shapes.table_shape import TableShape
from apiserver.storage.interface import StoredObject
from tables import metadata, rows

COUNT = 1_000
SHARED = os.environ.get("FASTKUBE_SHARED") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "..", "shared")
TABLES = os.path.join(SHARED, "golden", "kube-1.36.2", "table")
KINDS = {"configmaps": "configmaps.list.includeObject-Object.json", "pods": "pods.list.includeObject-Object.json"}


def listing(resource: str) -> tuple[ResourceType, Listing]:
    with open(os.path.join(TABLES, KINDS[resource])) as f:
        templates: list[dict[str, Any]] = [row["object"] for row in json.load(f)["rows"]]
    items = []
    for i in range(COUNT):
        obj = json.loads(json.dumps(templates[i % len(templates)]))
        meta = obj["metadata"]
        meta["name"] = f"{meta['name']}-{i:04d}"
        meta["uid"] = f"00000000-0000-0000-0000-{i:012d}"
        meta["resourceVersion"] = str(1000 + i)
        items.append(((resource, meta["namespace"], meta["name"]), StoredObject(1000 + i, orjson.dumps(obj))))
    items.sort(key=lambda item: item[0])
    rt = builtin_registry().lookup("", "v1", resource)
    assert rt is not None
    return rt, Listing(1000 + COUNT, items)


LISTINGS = {resource: listing(resource) for resource in KINDS}


def forget() -> None:
    rows.clear_cache()
    metadata.clear_cache()


SHAPES: dict[str, Shape] = {
    "plain": JSON_SHAPE,
    "table": TableShape("meta.k8s.io/v1", "Metadata"),
    "table-none": TableShape("meta.k8s.io/v1", "None"),
    "metadata": MetadataShape("meta.k8s.io/v1", as_list=True),
}


def run(benchmark: Any, resource: str, shape: Shape, setup: Callable[[], None] | None) -> None:
    rt, items = LISTINGS[resource]
    assert orjson.loads(shape.list_body(rt, items))["metadata"]["resourceVersion"] == str(1000 + COUNT)
    benchmark.extra_info["objects"] = COUNT
    if setup is None:
        benchmark.pedantic(shape.list_body, args=(rt, items), rounds=30, warmup_rounds=1)
    else:
        benchmark.pedantic(shape.list_body, args=(rt, items), setup=setup, rounds=15)


@pytest.mark.parametrize("resource", list(KINDS))
@pytest.mark.parametrize("name", list(SHAPES))
def test_warm(benchmark: Any, resource: str, name: str) -> None:
    benchmark.group = f"{resource} x{COUNT}"
    run(benchmark, resource, SHAPES[name], None)


@pytest.mark.parametrize("resource", list(KINDS))
@pytest.mark.parametrize("name", ["table", "metadata"])
def test_cold(benchmark: Any, resource: str, name: str) -> None:
    benchmark.group = f"{resource} x{COUNT}"
    run(benchmark, resource, SHAPES[name], forget)
