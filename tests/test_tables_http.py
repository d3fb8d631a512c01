"""Tables over HTTP from a real server: lists, gets, includeObject, and watch streams of one-row Tables.

Our server does not yet default objects as upstream does, and kinds gain their own printers in
columns/, so the goldens are compared in structure; cells are checked where they do not depend on
either (the name column).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fetch import (
    KUBECTL_ACCEPT,
    TABLE,
    TABLE_V1BETA1,
    fetch,
    golden_normalized,
    golden_watch,
    load_golden_config,
    load_golden_custom,
    normalized,
    watch_demo,
)
from support import GOLDEN, ServerProcess, kubectl_path, run_kubectl

from columns.registry import printer_for

TABLES = os.path.join(GOLDEN, "kube-1.36.2", "table")
CONFIGMAPS = "/api/v1/namespaces/golden/configmaps"
NAMES = ["app-config", "binary-config", "empty-config"]


def golden(name: str) -> Any:
    with open(os.path.join(TABLES, name)) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    load_golden_config(shared_server)
    load_golden_custom(shared_server)
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
    # Items of a typed list carry no kind/apiVersion upstream; a Table row's embedded object does.
    objects = [{"kind": "ConfigMap", "apiVersion": "v1", **item} for item in plain["items"]]
    expected = {"None": [None] * 3, "Metadata": [pom(item) for item in plain["items"]], "Object": objects}
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


@pytest.mark.parametrize(("reference", "query", "count"), [
    ("configmaps.watch.table.from-rv.jsonl", "resourceVersion=now", 3),
    ("configmaps.watch.table-includeObject-None.from-rv.jsonl", "resourceVersion=now&includeObject=None", 3),
    ("configmaps.watch.table-includeObject-Object.from-rv.jsonl", "resourceVersion=now&includeObject=Object", 3),
    ("configmaps.watch.table.no-rv.jsonl", "", 6),
])
def test_watch_streams_equal_the_goldens(server: ServerProcess, reference: str, query: str, count: int) -> None:
    events = watch_demo(server, query, TABLE, count)
    # One-row Tables; the column definitions in the first event only.
    assert [e["object"]["columnDefinitions"] is None for e in events] == [False] + [True] * (count - 1)
    assert [normalized(json.dumps(e).encode()) for e in events] == golden_watch(reference)


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


SECRETS = "/api/v1/namespaces/golden/secrets"
YAML_TABLE = "application/yaml;as=Table;v=v1;g=meta.k8s.io"


@pytest.mark.parametrize(("reference", "path", "accept"), [
    ("table/configmaps.list.default.json", CONFIGMAPS, TABLE),
    ("table/configmaps.list.includeObject-None.json", CONFIGMAPS + "?includeObject=None", TABLE),
    ("table/configmaps.list.includeObject-Metadata.json", CONFIGMAPS + "?includeObject=Metadata", TABLE),
    ("table/configmaps.list.includeObject-Object.json", CONFIGMAPS + "?includeObject=Object", TABLE),
    ("table/configmaps.get.default.json", CONFIGMAPS + "/app-config", TABLE),
    ("table/secrets.list.default.json", SECRETS, TABLE),
    ("table/secrets.get.default.json", SECRETS + "/app-secret", TABLE),
    ("errors/table-v1beta1.list.json", CONFIGMAPS, TABLE_V1BETA1),
    *[(f"table/{plural}.example.com.list.{variant}.json", f"/apis/example.com/v1/namespaces/golden/{plural}{query}",
       TABLE) for plural in ("widgets", "gadgets")
      for variant, query in (("default", ""), ("includeObject-None", "?includeObject=None"),
                             ("includeObject-Metadata", "?includeObject=Metadata"),
                             ("includeObject-Object", "?includeObject=Object"))],
    ("table/widgets.example.com.get.default.json", "/apis/example.com/v1/namespaces/golden/widgets/widget-alpha",
     TABLE),
    ("table/gadgets.example.com.get.default.json", "/apis/example.com/v1/namespaces/golden/gadgets/gadget-one",
     TABLE),
    ("errors/table-yaml.list.json", CONFIGMAPS, YAML_TABLE),
], ids=lambda value: value if value.endswith(".json") else "")
def test_answers_equal_the_goldens_once_normalized(server: ServerProcess, reference: str, path: str,
                                                   accept: str) -> None:
    status, _, body = fetch(server, path, accept)
    assert status == 200
    assert normalized(body) == golden_normalized(reference)


def test_kubectl_get_watch_prints_rows_from_the_table_watch(server: ServerProcess) -> None:
    proc = subprocess.Popen([kubectl_path(), "--kubeconfig", server.kubeconfig, "get", "configmaps", "-n", "golden",
                             "-w"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "KUBECACHEDIR": os.path.join(server.data_dir, "kubecache")})
    stdout = proc.stdout
    assert stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(text) for text in stdout], daemon=True).start()

    def line() -> list[str]:
        return lines.get(timeout=15).split()

    try:
        assert line()[0] == "NAME"
        assert [line()[0] for _ in NAMES] == NAMES
        # kubectl lists first and then watches from the list's version: only new changes follow.
        status, _ = server.json("POST", CONFIGMAPS, {"apiVersion": "v1", "kind": "ConfigMap",
                                                     "metadata": {"name": "watched"}, "data": {"k": "v"}})
        assert status == 201
        assert server.json("DELETE", CONFIGMAPS + "/watched")[0] == 200
        assert [line()[0] for _ in range(2)] == ["watched", "watched"]
    finally:
        proc.terminate()
        proc.wait(10)
