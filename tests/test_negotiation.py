"""Accept negotiation: clause parsing and choice (pure), and every golden negotiation error over HTTP."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest
import yaml
from fetch import (
    KUBECTL_ACCEPT,
    METADATA_CLIENT_ACCEPT,
    POM,
    POML,
    TABLE,
    fetch,
    load_golden_config,
    load_golden_custom,
)
from support import GOLDEN, ServerProcess

from apiserver.http.negotiation import Choice, choose, parse_accept

ERRORS = os.path.join(GOLDEN, "kube-1.36.2", "errors")
CONFIGMAPS = "/api/v1/namespaces/golden/configmaps"


def test_parse_accept_orders_by_q_then_specificity_and_keeps_params() -> None:
    clauses = parse_accept("*/*;q=0.5, application/*;q=0.9 ,application/json;as=Table;g=meta.k8s.io;v=v1, text/plain")
    assert [(c.type, c.subtype, c.q) for c in clauses] == [
        ("application", "json", 1.0), ("text", "plain", 1.0), ("application", "*", 0.9), ("*", "*", 0.5)]
    assert clauses[0].params == {"as": "Table", "g": "meta.k8s.io", "v": "v1"}


def test_parse_accept_puts_a_concrete_type_before_a_wildcard_whatever_its_q() -> None:
    # goautoneg's ordering, which kube-apiserver inherits.
    assert [(c.type, c.subtype) for c in parse_accept("*/*, application/yaml;q=0.1")] == [
        ("application", "yaml"), ("*", "*")]
    assert choose("*/*, application/yaml;q=0.1") == Choice("application/yaml")


def test_parse_accept_skips_malformed_ranges_and_reads_bare_star() -> None:
    assert [(c.type, c.subtype) for c in parse_accept("json, a/b/c, *")] == [("*", "*")]
    assert parse_accept("application/json;q=x")[0].q == 0.0


@pytest.mark.parametrize(("accept", "expected"), [
    ("", Choice("application/json")),
    ("*/*", Choice("application/json")),
    ("application/*", Choice("application/json")),
    ("application/yaml", Choice("application/yaml")),
    (TABLE, Choice("application/json", "Table", "v1")),
    (KUBECTL_ACCEPT, Choice("application/json", "Table", "v1")),
    ("application/json;as=Table;v=v1beta1;g=meta.k8s.io", Choice("application/json", "Table", "v1beta1")),
    ("application/yaml;as=Table;v=v1;g=meta.k8s.io", Choice("application/yaml", "Table", "v1")),
    (METADATA_CLIENT_ACCEPT, Choice("application/json", "PartialObjectMetadataList", "v1")),
    (POM, Choice("application/json", "PartialObjectMetadata", "v1")),
    (POM + ";managedFields=omit", Choice("application/json", "PartialObjectMetadata", "v1", managed_fields=False)),
    # Skipped clauses fall through to the next one.
    ("application/json;as=Foo;v=v1;g=meta.k8s.io, application/json", Choice("application/json")),
    ("application/vnd.kubernetes.protobuf, application/json;q=0.5", Choice("application/json")),
    ("application/json;as=Table;v=v2;g=meta.k8s.io,application/yaml", Choice("application/yaml")),
    ("application/json;stream=watch", Choice("application/json")),
])
def test_choose_takes_the_first_clause_it_can_write(accept: str, expected: Choice) -> None:
    assert choose(accept) == expected


@pytest.mark.parametrize("accept", [
    "application/json;as=Foo;v=v1;g=meta.k8s.io",
    "application/json;as=Table;v=v1",  # no g=
    "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io",
    "application/vnd.kubernetes.protobuf",
    "text/html",
    "application/yaml;stream=watch",
    "application/json;sv=v1",
    " ",
])
def test_choose_finds_nothing_usable(accept: str) -> None:
    assert choose(accept) is None


def test_errors_are_negotiated_without_transforms() -> None:
    assert choose(KUBECTL_ACCEPT, transforms=False) == Choice("application/json")
    assert choose(TABLE, transforms=False) is None


@pytest.fixture(scope="module")
def golden_server(shared_server: ServerProcess) -> Iterator[ServerProcess]:
    load_golden_config(shared_server)
    yield shared_server


# Golden error name -> (Accept, path) as capture_goldens.sh requested them.
GOLDEN_ERRORS = {
    "as-Foo.list": ("application/json;as=Foo;v=v1;g=meta.k8s.io", CONFIGMAPS),
    "table-missing-g.list": ("application/json;as=Table;v=v1", CONFIGMAPS),
    "table-protobuf.list": ("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io", CONFIGMAPS),
    "partialobjectmetadata-on-list.list": (POM, CONFIGMAPS),
    "partialobjectmetadatalist-on-get.get": (POML, CONFIGMAPS + "/app-config"),
    "invalid-includeObject.list": (TABLE, CONFIGMAPS + "?includeObject=Bogus"),
    "table-nonexistent-object.get": (TABLE, CONFIGMAPS + "/doesnotexist"),
    "pom-nonexistent-object.get": (POM, CONFIGMAPS + "/doesnotexist"),
    "table-nonexistent-resource.list": (TABLE, "/api/v1/namespaces/golden/doesnotexist"),
}


def golden_answer(name: str) -> tuple[int, str, bytes]:
    with open(os.path.join(ERRORS, name + ".headers.txt")) as f:
        lines = f.read().splitlines()
    status = int(lines[0].split()[1])
    content_type = next(line.split(":", 1)[1].strip() for line in lines if line.lower().startswith("content-type:"))
    with open(os.path.join(ERRORS, name + ".json"), "rb") as f:
        return status, content_type, f.read()


@pytest.mark.parametrize("name", sorted(GOLDEN_ERRORS))
def test_golden_error_answers_byte_for_byte(golden_server: ServerProcess, name: str) -> None:
    accept, path = GOLDEN_ERRORS[name]
    status, headers, body = fetch(golden_server, path, accept)
    assert (status, headers["content-type"], body) == golden_answer(name)


def test_bad_token_with_a_table_accept(golden_server: ServerProcess) -> None:
    status, headers, body = fetch(golden_server, CONFIGMAPS, TABLE, token="wrong-token")
    assert (status, headers["content-type"], body) == golden_answer("bad-token.table.list")


def test_errors_with_a_plain_json_clause_are_compact_with_a_newline(golden_server: ServerProcess) -> None:
    status, headers, body = fetch(golden_server, CONFIGMAPS + "/doesnotexist", KUBECTL_ACCEPT)
    assert status == 404 and headers["content-type"] == "application/json"
    assert body == (b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":'
                    b'"configmaps \\"doesnotexist\\" not found","reason":"NotFound","details":{"name":'
                    b'"doesnotexist","kind":"configmaps"},"code":404}\n')


def test_errors_in_yaml_when_yaml_is_asked_for(golden_server: ServerProcess) -> None:
    status, headers, body = fetch(golden_server, CONFIGMAPS + "/doesnotexist", "application/yaml")
    assert status == 404 and headers["content-type"] == "application/yaml"
    assert body.startswith(b"apiVersion: v1\ncode: 404\ndetails:\n  kind: configmaps\n")


def test_yaml_table_is_served(golden_server: ServerProcess) -> None:
    golden_status, golden_type, _ = golden_answer("table-yaml.list")
    status, headers, body = fetch(golden_server, CONFIGMAPS, "application/yaml;as=Table;v=v1;g=meta.k8s.io")
    assert (status, headers["content-type"]) == (golden_status, golden_type)
    assert body.startswith(b"apiVersion: meta.k8s.io/v1\ncolumnDefinitions:\n- description: ")


def test_v1beta1_table_carries_the_requested_version(golden_server: ServerProcess) -> None:
    golden_status, golden_type, _ = golden_answer("table-v1beta1.list")
    status, headers, body = fetch(golden_server, CONFIGMAPS, "application/json;as=Table;v=v1beta1;g=meta.k8s.io")
    assert (status, headers["content-type"]) == (golden_status, golden_type)
    assert body.startswith(b'{"kind":"Table","apiVersion":"meta.k8s.io/v1beta1","metadata":{"resourceVersion":')


@pytest.mark.parametrize(("accept", "content_type", "message"), [
    (POML, "application/json", "you requested PartialObjectMetadataList, but a watch sends single objects"),
    # YAML has no watch encoding; the error itself is still written in YAML.
    ("application/yaml", "application/yaml",
     "application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"),
    ("application/vnd.kubernetes.protobuf", "application/json",
     "application/json, application/yaml, application/vnd.kubernetes"),
])
def test_unwatchable_accepts_get_406_before_streaming(golden_server: ServerProcess, accept: str, content_type: str,
                                                      message: str) -> None:
    status, headers, body = fetch(golden_server, CONFIGMAPS + "?watch=1&timeoutSeconds=1", accept)
    assert status == 406 and headers["content-type"] == content_type
    assert message in yaml.safe_load(body)["message"]


def test_the_wrong_metadata_kind_on_a_custom_resource_names_upstreams_unstructured_type(
        golden_server: ServerProcess) -> None:
    load_golden_custom(golden_server)
    status, _, body = fetch(golden_server, "/apis/example.com/v1/namespaces/golden/widgets", POM)
    assert status == 406 and json.loads(body)["message"] == (
        "you requested PartialObjectMetadata, but the requested object is a list (*unstructured.UnstructuredList)")
