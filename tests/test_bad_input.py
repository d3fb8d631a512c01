"""The bad inputs the generated cases found, and the ones kube-apiserver itself gets wrong, pinned down."""

from __future__ import annotations

import json

import pytest

from columns.registry import printer_for
from keepalive import Connection
from support import ServerProcess

CM_PATH = "/api/v1/namespaces/default/configmaps"


@pytest.fixture(scope="module")
def conn(shared_server: ServerProcess) -> Connection:
    return Connection(shared_server)


def revision(conn: Connection) -> str:
    return str(conn.json("GET", CM_PATH)[1]["metadata"]["resourceVersion"])


def test_watch_from_a_resource_version_that_is_no_number_is_400(conn: Connection) -> None:
    status, answer = conn.json("GET", CM_PATH + "?watch=1&resourceVersion=abc")
    assert status == 400
    assert answer["reason"] == "BadRequest"
    assert answer["message"] == 'resourceVersion: Invalid value: "abc": must be an integer'


@pytest.mark.parametrize("document, stored", [
    ("metadata: {name: keys}\ndata: {1: one, null: none}\n", {"1": "one", "null": "none"}),
    ("metadata: {name: dates, labels: {day: 2001-12-14}}\ndata: {at: 2001-12-14t21:59:43.10-05:00}\n",
     {"at": "2001-12-14t21:59:43.10-05:00"}),
])
def test_yaml_is_read_as_json_would_hold_it(conn: Connection, document: str,
                                            stored: dict[str, object]) -> None:
    status, _, body = conn.request("POST", CM_PATH, document.encode(), {"Content-Type": "application/yaml"})
    assert status == 201, body
    assert json.loads(body)["data"] == stored


def test_a_yaml_integer_past_64_bits_is_read_as_a_float(conn: Connection) -> None:
    # As a JSON decoder reads it: here a float where ConfigMap data holds strings, so a 400 naming it.
    document = "metadata: {name: big}\ndata: {big: 123456789012345678901234567890}\n"
    status, _, body = conn.request("POST", CM_PATH, document.encode(), {"Content-Type": "application/yaml"})
    assert status == 400, body
    assert "cannot unmarshal number 1.2345678901234568e+29 into Go struct field" in json.loads(body)["message"]


BILLION_LAUGHS = "".join(
    f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]\n"
    for previous, name in zip("abcdefgh", "bcdefghi"))


@pytest.mark.parametrize("document, message", [
    ("data: {n: .nan}\n", "error converting YAML to JSON: nan is not a JSON number"),
    ("data: {b: !!binary aGVsbG8=}\n", "error converting YAML to JSON: a bytes value has no JSON form"),
    ("data: {s: !!set {a, b}}\n", "error converting YAML to JSON: a set value has no JSON form"),
    ("data: {t: !!timestamp 2001-12-14}\n", "error converting YAML to JSON: a date value has no JSON form"),
    ("a: &a [x, x, x, x, x, x, x, x, x]\n" + BILLION_LAUGHS,
     "error converting YAML to JSON: the document contains excessive aliasing"),
    ("data: " + "[" * 3000 + "]" * 3000 + "\n",
     "error converting YAML to JSON: the document is nested too deeply"),
    ("metadata: {name: deep}\nspec: " + "[" * 600 + "]" * 600 + "\n", None),
])
def test_yaml_json_cannot_hold_is_400(conn: Connection, document: str, message: str | None) -> None:
    before = revision(conn)
    status, _, body = conn.request("POST", CM_PATH, document.encode(), {"Content-Type": "application/yaml"})
    answer = json.loads(body)
    assert (status, answer["reason"]) == (400, "BadRequest"), answer
    if message is not None:
        assert answer["message"] == message
    assert revision(conn) == before


@pytest.mark.parametrize("metadata, message", [
    ({"generateName": {}},
     "cannot unmarshal object into Go struct field ObjectMeta.metadata.generateName of type string"),
    ({"name": 5}, "cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"),
    ({"name": "x", "labels": ["a"]},
     "cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"),
    ({"name": "x", "labels": {"a": 1}},
     "cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"),
    ({"name": "x", "finalizers": [True]},
     "cannot unmarshal bool into Go struct field ObjectMeta.metadata.finalizers of type string"),
    ({"name": "x", "generation": "1"},
     "cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64"),
])
def test_metadata_of_the_wrong_type_is_400_like_upstream(conn: Connection, metadata: dict[str, object],
                                                         message: str) -> None:
    before = revision(conn)
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata}
    status, answer = conn.json("POST", CM_PATH, body)
    assert (status, answer["reason"]) == (400, "BadRequest")
    assert answer["message"] == 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: ' + message
    assert revision(conn) == before


def test_json_nested_deeper_than_can_be_stored_is_400(conn: Connection) -> None:
    before = revision(conn)
    body = b'{"metadata":{"name":"deep"},"data":' + b"[" * 300 + b"]" * 300 + b"}"
    status, _, answer = conn.request("POST", CM_PATH, body)
    assert (status, json.loads(answer)["reason"]) == (400, "BadRequest")
    assert revision(conn) == before


def test_a_field_of_the_wrong_type_is_400_and_writes_nothing(conn: Connection) -> None:
    before = revision(conn)
    status, answer = conn.json("POST", CM_PATH, {"metadata": {"name": "odd-binary"}, "binaryData": {"x": True}})
    assert (status, answer["reason"]) == (400, "BadRequest")
    assert "cannot unmarshal bool into Go struct field" in answer["message"]
    assert revision(conn) == before


def test_a_stored_field_of_the_wrong_type_does_not_fail_its_row() -> None:
    # Data written before field types were checked on write must not fail every Table list of its
    # resource: the row names the object and keeps the empty object's placeholders.
    printer = printer_for("", "ConfigMap")
    row = printer.row(b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"odd-binary"},'
                      b'"binaryData":{"x":true}}')
    assert row.cells[0] == "odd-binary"
    assert len(row.cells) == len(printer.definitions)
