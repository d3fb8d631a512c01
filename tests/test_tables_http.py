"""Tables over HTTP from a real server: lists, gets, includeObject, and watch streams of one-row Tables.

Our server does not yet default objects as upstream does, and kinds gain their own printers in
columns/, so the goldens are compared in structure; cells are checked where they do not depend on
either (the name column).
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterator

import pytest
from fetch import KUBECTL_ACCEPT, TABLE, TABLE_V1BETA1, Watch, configmap, create, fetch, load_golden_namespace
from support import GOLDEN, ServerProcess, run_kubectl

from columns.registry import printer_for

TABLES = os.path.join(GOLDEN, "kube-1.36.2", "table")
WATCHES = os.path.join(GOLDEN, "kube-1.36.2", "watch")
CONFIGMAPS = "/api/v1/namespaces/golden/configmaps"
NAMES = ["app-config", "binary-config", "empty-config"]


def golden(name: str) -> Any:
    with open(os.path.join(TABLES, name)) as f:
        return json.load(f)


def golden_watch(name: str) -> list[Any]:
    with open(os.path.join(WATCHES, name)) as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    load_golden_namespace(shared_server)
    yield shared_server


def get_json(server: ServerProcess, path: str, accept: str | None = TABLE) -> Any:
    status, headers, body = fetch(server, path, accept)
    assert status == 200, body
    assert headers["content-type"] == "application/json"
    return json.loads(body)


def pom(obj: dict[str, Any], version: str = "v1") -> dict[str, Any]:
    return {"kind": "PartialObjectMetadata", "apiVersion": f"meta.k8s.io/{version}", "metadata": obj["metadata"]}


def configmap_definitions() -> Any:
    return json.loads(json.dumps(printer_for("", "ConfigMap").definitions))


def test_list_is_a_table_shaped_like_upstreams(server: ServerProcess) -> None:
    plain = get_json(server, CONFIGMAPS, "application/json")
    table = get_json(server, CONFIGMAPS)
    reference = golden("configmaps.list.default.json")
    assert list(table) == list(reference) == ["kind", "apiVersion", "metadata", "columnDefinitions", "rows"]
    assert (table["kind"], table["apiVersion"]) == ("Table", "meta.k8s.io/v1")
    assert table["metadata"] == {"resourceVersion": plain["metadata"]["resourceVersion"]}
    assert table["columnDefinitions"] == configmap_definitions()
    assert {tuple(d) for d in table["columnDefinitions"]} == {tuple(d) for d in reference["columnDefinitions"]}
    assert [row["cells"][0] for row in table["rows"]] == [row["cells"][0] for row in reference["rows"]] == NAMES
    assert [list(row) for row in table["rows"]] == [list(row) for row in reference["rows"]]
    assert [row["object"] for row in table["rows"]] == [pom(item) for item in plain["items"]]
    assert all(len(row["cells"]) == len(table["columnDefinitions"]) for row in table["rows"])


def test_kubectls_accept_gets_the_same_table(server: ServerProcess) -> None:
    assert get_json(server, CONFIGMAPS + "?limit=500", KUBECTL_ACCEPT)["rows"] == get_json(server, CONFIGMAPS)["rows"]


@pytest.mark.parametrize("include", ["None", "Metadata", "Object"])
def test_include_object(server: ServerProcess, include: str) -> None:
    plain = get_json(server, CONFIGMAPS, "application/json")
    table = get_json(server, f"{CONFIGMAPS}?includeObject={include}")
    reference = golden(f"configmaps.list.includeObject-{include}.json")
    expected = {"None": [None] * 3, "Metadata": [pom(item) for item in plain["items"]], "Object": plain["items"]}
    assert [row["object"] for row in table["rows"]] == expected[include]
    assert [type(row["object"]) for row in table["rows"]] == [type(row["object"]) for row in reference["rows"]]


def test_get_is_a_one_row_table_at_the_objects_version(server: ServerProcess) -> None:
    plain = get_json(server, CONFIGMAPS + "/app-config", "application/json")
    table = get_json(server, CONFIGMAPS + "/app-config")
    reference = golden("configmaps.get.default.json")
    assert list(table) == list(reference)
    assert table["metadata"] == {"resourceVersion": plain["metadata"]["resourceVersion"]}
    assert table["columnDefinitions"] == configmap_definitions()
    assert len(table["rows"]) == 1 and table["rows"][0]["cells"][0] == "app-config"
    assert table["rows"][0]["object"] == pom(plain)


def test_v1beta1_table_embeds_v1beta1_metadata(server: ServerProcess) -> None:
    table = get_json(server, CONFIGMAPS, TABLE_V1BETA1)
    assert table["apiVersion"] == "meta.k8s.io/v1beta1"
    assert {row["object"]["apiVersion"] for row in table["rows"]} == {"meta.k8s.io/v1beta1"}


def test_empty_list_has_empty_rows(server: ServerProcess) -> None:
    table = get_json(server, "/api/v1/namespaces/nosuchns/configmaps")
    assert table["rows"] == [] and table["columnDefinitions"] == configmap_definitions()


def test_yaml_table_is_the_json_table_in_yaml(server: ServerProcess) -> None:
    import yaml

    status, headers, body = fetch(server, CONFIGMAPS + "?includeObject=None",
                                  "application/yaml;as=Table;v=v1;g=meta.k8s.io")
    assert status == 200 and headers["content-type"] == "application/yaml"
    as_json = get_json(server, CONFIGMAPS + "?includeObject=None")
    assert {**yaml.safe_load(body), "rows": None} == {**as_json, "rows": None}
    assert [row["cells"][0] for row in yaml.safe_load(body)["rows"]] == NAMES


def test_synthetic_apiservices_are_tables_too(server: ServerProcess) -> None:
    table = get_json(server, "/apis/apiregistration.k8s.io/v1/apiservices/v1.apps")
    assert table["rows"][0]["cells"][0] == "v1.apps"
    assert table["rows"][0]["object"]["metadata"]["name"] == "v1.apps"


def test_watch_from_a_version_sends_one_row_tables_with_definitions_first(server: ServerProcess) -> None:
    create(server, "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "watching"}})
    base = "/api/v1/namespaces/watching/configmaps"
    rv = get_json(server, base, "application/json")["metadata"]["resourceVersion"]
    watch = Watch(server, f"{base}?watch=1&resourceVersion={rv}&timeoutSeconds=10", TABLE)
    try:
        assert watch.status == 200 and watch.headers["content-type"] == "application/json"
        create(server, base, configmap("watch-demo", "watching", {"k": "v"}, {"demo": "watch"}))
        status, _ = server.json("PATCH", base + "/watch-demo", {"data": {"k": "v2", "k2": "x"}},
                                content_type="application/merge-patch+json")
        assert status == 200
        assert server.json("DELETE", base + "/watch-demo")[0] == 200
        events = [watch.next_event() for _ in range(3)]
    finally:
        watch.close()
    reference = golden_watch("configmaps.watch.table.from-rv.jsonl")
    assert [e["type"] for e in events] == [e["type"] for e in reference] == ["ADDED", "MODIFIED", "DELETED"]
    assert [list(e["object"]) for e in events] == [list(e["object"]) for e in reference]
    assert events[0]["object"]["columnDefinitions"] == configmap_definitions()
    assert [e["object"]["columnDefinitions"] for e in events[1:]] == [None, None]
    for event in events:
        (row,) = event["object"]["rows"]
        assert row["cells"][0] == "watch-demo"
        assert row["object"]["kind"] == "PartialObjectMetadata"
        assert event["object"]["metadata"] == {"resourceVersion": row["object"]["metadata"]["resourceVersion"]}


@pytest.mark.parametrize("include", ["None", "Object"])
def test_watch_without_a_version_starts_with_the_existing_objects(server: ServerProcess, include: str) -> None:
    watch = Watch(server, f"{CONFIGMAPS}?watch=1&timeoutSeconds=1&includeObject={include}", TABLE)
    try:
        events = list(watch.events())
    finally:
        watch.close()
    assert [e["type"] for e in events] == ["ADDED"] * 3
    assert [e["object"]["rows"][0]["cells"][0] for e in events] == NAMES
    assert events[0]["object"]["columnDefinitions"] == configmap_definitions()
    assert [e["object"]["columnDefinitions"] for e in events[1:]] == [None, None]
    objects = [e["object"]["rows"][0]["object"] for e in events]
    if include == "None":
        assert objects == [None] * 3
    else:
        assert [o["kind"] for o in objects] == ["ConfigMap"] * 3


def test_bad_include_object_on_a_watch_is_refused_before_streaming(server: ServerProcess) -> None:
    status, _, body = fetch(server, CONFIGMAPS + "?watch=1&includeObject=Bogus", TABLE)
    assert status == 400 and b"includeObject" in body


def test_kubectl_get_prints_the_servers_table(server: ServerProcess) -> None:
    out = run_kubectl(server, "get", "configmaps", "-n", "golden", "--show-labels").stdout.splitlines()
    header = out[0].split()
    assert header[0] == "NAME" and header[-1] == "LABELS"
    assert [line.split()[0] for line in out[1:]] == NAMES
    # The labels come from each row's embedded PartialObjectMetadata.
    assert [line.split()[-1] for line in out[1:]] == ["app=web,tier=gold", "app=tools", "<none>"]
