"""Per-object cost of the read path against decoding every object: selector matching and list splicing.

Run: python -m pytest benches/micro -q --benchmark-columns=mean,stddev,rounds
Each pair works on the same 1,000 stored pods (about 3 KiB each, managedFields included).
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from apiserver.kinds.resources import builtin_registry
from apiserver.query.labels import parse_label_selector
from apiserver.query.selection import selection_for
from apiserver.shapes.shape import JSON_SHAPE, Listing
from apiserver.storage.interface import Key, StoredObject

RT = builtin_registry().lookup("", "v1", "pods")
SELECTOR = "app in (web,api),tier!=bronze"


def _pod(i: int) -> dict[str, Any]:
    labels = {"app": ("web", "api", "db")[i % 3], "tier": ("gold", "silver", "bronze")[i % 3 - 1], "idx": str(i)}
    return {
        "kind": "Pod", "apiVersion": "v1",
        "metadata": {
            "name": f"pod-{i:04d}", "namespace": "bench", "uid": f"00000000-0000-0000-0000-{i:012d}",
            "resourceVersion": str(i + 10), "creationTimestamp": "2026-11-30T00:00:00Z", "labels": labels,
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": json.dumps({"spec": {"x": "y" * 600}})},
            "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": "v1",
                               "fieldsType": "FieldsV1",
                               "fieldsV1": {f"f:field{j}": {".": {}, "f:sub": {}} for j in range(20)}}],
        },
        "spec": {"nodeName": f"node-{i % 7}", "containers": [
            {"name": "app", "image": "registry.example/app:1.2.3", "ports": [{"containerPort": 8080}],
             "env": [{"name": f"VAR_{j}", "value": "v" * 20} for j in range(10)]}]},
        "status": {"phase": "Running", "podIPs": [{"ip": f"10.0.{i // 250}.{i % 250}"}]},
    }


@pytest.fixture(scope="module")
def stored() -> list[tuple[Key, StoredObject]]:
    return [(("pods", "bench", f"pod-{i:04d}"), StoredObject(i + 10, orjson.dumps(_pod(i)))) for i in range(1000)]


@pytest.mark.benchmark(group="label selector, 1000 objects")
def test_match_decoding_only_labels(benchmark: Any, stored: list[tuple[Key, StoredObject]]) -> None:
    assert RT is not None
    selection = selection_for(RT, "bench", SELECTOR, "")
    matched = benchmark(lambda: sum(1 for key, obj in stored if selection.matches(key, obj.data)))
    assert matched == 333


@pytest.mark.benchmark(group="label selector, 1000 objects")
def test_match_after_full_json_loads(benchmark: Any, stored: list[tuple[Key, StoredObject]]) -> None:
    labels = parse_label_selector(SELECTOR)
    matched = benchmark(lambda: sum(1 for _, obj in stored if labels.matches(json.loads(obj.data)["metadata"]["labels"])))
    assert matched == 333


@pytest.mark.benchmark(group="list body, 1000 objects")
def test_list_spliced_from_stored_bytes(benchmark: Any, stored: list[tuple[Key, StoredObject]]) -> None:
    assert RT is not None
    listing = Listing(2000, stored)
    body = benchmark(lambda: JSON_SHAPE.list_body(RT, listing))
    assert len(orjson.loads(body)["items"]) == 1000


@pytest.mark.benchmark(group="list body, 1000 objects")
def test_list_decoded_and_reserialized(benchmark: Any, stored: list[tuple[Key, StoredObject]]) -> None:
    def reserialize() -> bytes:
        items = [json.loads(obj.data) for _, obj in stored]
        return json.dumps({"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "2000"},
                           "items": items}).encode()

    body = benchmark(reserialize)
    assert len(json.loads(body)["items"]) == 1000
