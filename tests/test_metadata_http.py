"""PartialObjectMetadata(List) over HTTP from a real server: the stored metadata bytes, spliced."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from fetch import (
    METADATA_CLIENT_ACCEPT,
    POM,
    POML,
    configmap,
    create,
    fetch,
    golden_normalized,
    golden_watch,
    load_golden_config,
    load_golden_custom,
    normalized,
    watch_demo,
)
from support import GOLDEN, ServerProcess

METADATA = os.path.join(GOLDEN, "kube-1.36.2", "metadata")
CONFIGMAPS = "/api/v1/namespaces/golden/configmaps"
POM_PREFIX = b'{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":'


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    load_golden_config(shared_server)
    load_golden_custom(shared_server)
    yield shared_server


def golden(name: str) -> Any:
    with open(os.path.join(METADATA, name)) as f:
        return json.load(f)


def stored_metadata(obj: dict[str, Any]) -> bytes:
    """An object's metadata as the store holds it: compact JSON in the order it was written."""
    return orjson.dumps(obj["metadata"])


def plain_list(server: ServerProcess) -> Any:
    status, body = server.json("GET", CONFIGMAPS)
    assert status == 200
    return body


def test_list_splices_each_objects_stored_metadata(server: ServerProcess) -> None:
    plain = plain_list(server)
    status, headers, body = fetch(server, CONFIGMAPS, POML)
    assert status == 200 and headers["content-type"] == "application/json"
    head = orjson.dumps({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
                         "metadata": plain["metadata"]})
    items = [POM_PREFIX + stored_metadata(item) + b"}" for item in plain["items"]]
    assert body == head[:-1] + b',"items":[' + b",".join(items) + b"]}"
    reference = golden("configmaps.list.json")
    answer = json.loads(body)
    assert list(answer) == list(reference)
    assert [list(item) for item in answer["items"]] == [list(item) for item in reference["items"]]
    assert [i["metadata"]["name"] for i in answer["items"]] == [i["metadata"]["name"] for i in reference["items"]]


def test_get_is_the_objects_metadata(server: ServerProcess) -> None:
    status, plain = server.json("GET", CONFIGMAPS + "/app-config")
    assert status == 200
    status, headers, body = fetch(server, CONFIGMAPS + "/app-config", POM)
    assert status == 200 and headers["content-type"] == "application/json"
    assert body == POM_PREFIX + stored_metadata(plain) + b"}"
    assert list(json.loads(body)) == list(golden("configmaps.get.json"))


def test_the_metadata_clients_accept_gets_json(server: ServerProcess) -> None:
    status, headers, body = fetch(server, CONFIGMAPS, METADATA_CLIENT_ACCEPT)
    assert status == 200 and headers["content-type"] == "application/json"
    assert json.loads(body)["kind"] == "PartialObjectMetadataList"


def test_v1beta1(server: ServerProcess) -> None:
    status, _, body = fetch(server, CONFIGMAPS, "application/json;as=PartialObjectMetadataList;v=v1beta1;g=meta.k8s.io")
    answer = json.loads(body)
    assert status == 200 and answer["apiVersion"] == "meta.k8s.io/v1beta1"
    assert {item["apiVersion"] for item in answer["items"]} == {"meta.k8s.io/v1beta1"}


MANAGED_FIELDS = [{"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "v1",
                   "time": "2026-11-30T04:33:41Z", "fieldsType": "FieldsV1",
                   "fieldsV1": {"f:data": {".": {}, "f:k": {}}}}]


def test_managed_fields_can_be_left_out(server: ServerProcess) -> None:
    create(server, "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "managed"}})
    base = "/api/v1/namespaces/managed/configmaps"
    for name in ("with-fields", "without-fields"):
        create(server, base, configmap(name, "managed", {"k": "v"}, {"app": "x"}))
    # A create drops client-sent managedFields; an update keeps them.
    current = server.json("GET", base + "/with-fields")[1]
    current["metadata"]["managedFields"] = MANAGED_FIELDS
    assert server.json("PUT", base + "/with-fields", current)[0] == 200
    plain = server.json("GET", base)[1]
    assert plain["items"][0]["metadata"]["name"] == "with-fields" and plain["items"][0]["metadata"]["managedFields"]
    expected = [{k: v for k, v in item["metadata"].items() if k != "managedFields"} for item in plain["items"]]
    status, _, body = fetch(server, base, POML + ";managedFields=omit")
    assert status == 200
    assert [item["metadata"] for item in json.loads(body)["items"]] == expected
    status, _, body = fetch(server, base + "?includeObject=Metadata",
                            "application/json;as=Table;v=v1;g=meta.k8s.io;managedFields=omit")
    assert [row["object"]["metadata"] for row in json.loads(body)["rows"]] == expected
    status, _, body = fetch(server, base, POML)
    assert [item["metadata"] for item in json.loads(body)["items"]] == [item["metadata"] for item in plain["items"]]


def test_yaml(server: ServerProcess) -> None:
    import yaml

    status, headers, body = fetch(server, CONFIGMAPS + "/app-config",
                                  "application/yaml;as=PartialObjectMetadata;v=v1;g=meta.k8s.io")
    assert status == 200 and headers["content-type"] == "application/yaml"
    assert yaml.safe_load(body) == json.loads(fetch(server, CONFIGMAPS + "/app-config", POM)[2])


@pytest.mark.parametrize(("reference", "path", "accept"), [
    ("metadata/configmaps.list.json", CONFIGMAPS, POML),
    ("metadata/configmaps.get.json", CONFIGMAPS + "/app-config", POM),
    ("metadata/secrets.list.json", "/api/v1/namespaces/golden/secrets", POML),
    ("metadata/secrets.get.json", "/api/v1/namespaces/golden/secrets/app-secret", POM),
    ("metadata/widgets.example.com.list.json", "/apis/example.com/v1/namespaces/golden/widgets", POML),
    ("metadata/widgets.example.com.get.json", "/apis/example.com/v1/namespaces/golden/widgets/widget-alpha", POM),
    ("metadata/gadgets.example.com.list.json", "/apis/example.com/v1/namespaces/golden/gadgets", POML),
    ("metadata/gadgets.example.com.get.json", "/apis/example.com/v1/namespaces/golden/gadgets/gadget-one", POM),
], ids=lambda value: value if value.endswith(".json") else "")
def test_answers_equal_the_goldens_once_normalized(server: ServerProcess, reference: str, path: str,
                                                   accept: str) -> None:
    status, _, body = fetch(server, path, accept)
    assert status == 200
    assert normalized(body) == golden_normalized(reference)


@pytest.mark.parametrize(("reference", "query", "count"), [
    ("configmaps.watch.partialobjectmetadata.from-rv.jsonl", "resourceVersion=now", 3),
    ("configmaps.watch.partialobjectmetadata.no-rv.jsonl", "", 6),
])
def test_watch_streams_equal_the_goldens(server: ServerProcess, reference: str, query: str, count: int) -> None:
    events = watch_demo(server, query, POM, count)
    assert {e["object"]["kind"] for e in events} == {"PartialObjectMetadata"}
    assert [normalized(json.dumps(e).encode()) for e in events] == golden_watch(reference)
