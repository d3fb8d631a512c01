"""Rows per second from stored bytes: the lazy Struct reader against the full-parse reference.

Run: python -m pytest benches/micro/test_rows_bench.py --benchmark-only
Each round prints 1,000 stored objects of one kind, built from the golden objects (managedFields and
last-applied annotations included, as a real server stores them) with distinct names and uids.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest

from columns.declare import BuiltinPrinter
from columns.decode import full_parse_reader, struct_reader
from columns.registry import printer_for

TABLES = Path(__file__).resolve().parents[3] / "shared" / "golden" / "kube-1.36.2" / "table"
SURFACE = TABLES.parent / "surface" / "table"
KINDS = {
    "pods": ("", "Pod"),
    "deployments.apps": ("apps", "Deployment"),
    "services": ("", "Service"),
    "events": ("", "Event"),
    "nodes": ("", "Node"),
    "jobs.batch": ("batch", "Job"),
    # From the surface set: v1 HPAs decode their metrics annotations on every row.
    "horizontalpodautoscalers.v1.autoscaling": ("autoscaling", "HorizontalPodAutoscaler"),
    "clusterrolebindings.rbac.authorization.k8s.io": ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    "flowschemas.flowcontrol.apiserver.k8s.io": ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
}
COUNT = 1000


def stored_objects(resource: str) -> list[bytes]:
    answer = f"{resource}.list.includeObject-Object.json"
    table = json.loads((TABLES / answer if (TABLES / answer).exists() else SURFACE / answer).read_text())
    templates: list[dict[str, Any]] = [row["object"] for row in table["rows"]]
    objects = []
    for i in range(COUNT):
        obj = json.loads(json.dumps(templates[i % len(templates)]))
        obj["metadata"]["name"] = f"{obj['metadata']['name']}-{i}"
        obj["metadata"]["uid"] = str(uuid.UUID(int=i))
        objects.append(orjson.dumps(obj))
    return objects


@pytest.mark.parametrize("reader", [struct_reader, full_parse_reader], ids=["struct", "full-parse"])
@pytest.mark.parametrize("resource", KINDS)
def test_rows(benchmark: Any, resource: str, reader: Any) -> None:
    printer = printer_for(*KINDS[resource])
    assert isinstance(printer, BuiltinPrinter)
    chosen = dataclasses.replace(printer, reader=reader)
    objects = stored_objects(resource)
    benchmark.group = resource
    rows = benchmark(lambda: [chosen.row(data) for data in objects])
    assert rows == [printer.row(data) for data in objects]
