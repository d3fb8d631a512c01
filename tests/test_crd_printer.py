"""CRD printer columns against kube-apiserver's Tables for the golden widgets and gadgets."""

from __future__ import annotations

import email.utils
import json
import os
from typing import Any

import orjson
import pytest
import yaml
from support import FIXTURES, GOLDEN

from columns.base import Since, render_cells
from columns.crd import CrdPrinter, crd_printer
from columns.decode import key_tree, pruned_reader

TABLES = os.path.join(GOLDEN, "kube-1.36.2", "table")


def _crd_version(name: str) -> dict[str, Any]:
    with open(os.path.join(FIXTURES, "01-crds.yaml")) as f:
        for crd in yaml.safe_load_all(f):
            if crd["metadata"]["name"] == name:
                return crd["spec"]["versions"][0]  # type: ignore[no-any-return]
    raise LookupError(name)


def _golden(capture: str) -> tuple[dict[str, Any], float]:
    """The Table answer and the server time it was answered at (from its Date header)."""
    with open(os.path.join(TABLES, capture + ".json")) as f:
        table = json.load(f)
    with open(os.path.join(TABLES, capture + ".headers.txt")) as f:
        date = next(line.split(":", 1)[1].strip() for line in f if line.lower().startswith("date:"))
    return table, email.utils.parsedate_to_datetime(date).timestamp()


@pytest.mark.parametrize("crd,capture", [
    ("widgets.example.com", "widgets.example.com.list.includeObject-Object"),
    ("gadgets.example.com", "gadgets.example.com.list.includeObject-Object"),
])
def test_rows_match_kube_apiserver(crd: str, capture: str) -> None:
    # Only includeObject=Object rows embed the whole object a row is computed from.
    printer = crd_printer(_crd_version(crd))
    table, now = _golden(capture)
    assert printer.definitions == table["columnDefinitions"]
    assert table["rows"]
    for golden_row in table["rows"]:
        row = printer.row(orjson.dumps(golden_row["object"]))
        assert render_cells(row, now) == golden_row["cells"]
        assert row.conditions is None


def _cells(column: dict[str, Any], obj: dict[str, Any]) -> list[Any]:
    printer = crd_printer({"name": "v1", "additionalPrinterColumns": [column]})
    return render_cells(printer.row(orjson.dumps(obj)), 0.0)


@pytest.mark.parametrize("kind,value,expected", [
    ("integer", 3, 3), ("integer", 2.9, 2), ("integer", -2.9, -2), ("integer", "3", None), ("integer", True, None),
    ("number", 2, 2), ("number", 0.25, 0.25), ("number", 9.0, 9), ("number", "1", None), ("number", False, None),
    ("boolean", True, True), ("boolean", "true", None), ("boolean", 1, None),
    ("string", "x", "x"), ("string", 3, "3"), ("string", 1e6, "1e+06"), ("string", 2.5, "2.5"),
    ("string", True, "true"), ("string", {"b": [1, 2.0], "a": "<&>"}, '{"a":"\\u003c\\u0026\\u003e","b":[1,2]}'),
    ("string", [], "[]"), ("string", None, "<no value>"), ("integer", None, None), ("date", None, None),
    ("date", "not a date", "<invalid>"), ("date", "2026-11-30", "<invalid>"), ("date", "", "<unknown>"),
    ("date", 5, None),
])
def test_cell_types(kind: str, value: Any, expected: Any) -> None:
    assert _cells({"name": "C", "type": kind, "jsonPath": ".spec.v"}, {"metadata": {"name": "n"},
                                                                       "spec": {"v": value}}) == ["n", expected]


def test_missing_values_are_null_whatever_the_type() -> None:
    for kind in ("string", "integer", "number", "boolean", "date"):
        assert _cells({"name": "C", "type": kind, "jsonPath": ".spec.v"}, {"metadata": {"name": "n"}}) == ["n", None]


def test_dates_are_ages_at_request_time() -> None:
    printer = crd_printer({"name": "v1", "additionalPrinterColumns": [
        {"name": "Seen", "type": "date", "jsonPath": ".status.seen"}]})
    row = printer.row(b'{"metadata":{"name":"n"},"status":{"seen":"2026-11-30T00:00:00.5+01:00"}}')
    cell = row.cells[1]
    assert isinstance(cell, Since)
    epoch = cell.epoch
    assert epoch is not None
    assert render_cells(row, epoch + 7) == ["n", "7s"]
    assert render_cells(row, epoch + 3 * 3600 + 25 * 60) == ["n", "3h25m"]
    assert render_cells(row, epoch + 3 * 86400) == ["n", "3d"]
    assert render_cells(row, epoch - 10) == ["n", "<invalid>"]


def test_format_and_priority_pass_through_and_description_defaults() -> None:
    printer = crd_printer({"name": "v1", "additionalPrinterColumns": [
        {"name": "Host", "type": "string", "format": "hostname", "priority": 1, "jsonPath": ".spec.host"}]})
    assert printer.definitions[1] == {"name": "Host", "type": "string", "format": "hostname", "priority": 1,
                                      "description": "Custom resource definition column (in JSONPath format): "
                                                     ".spec.host"}


SERVERS = {"metadata": {"name": "blah"},
           "spec": {"servers": [{"hosts": ["foo"]}, {"hosts": ["bar", "baz"]}],
                    "foo": [{"bar": [1]}, {"bar": [2, 3]}]}}


@pytest.mark.parametrize("kind,path,expected", [
    # Facts from upstream's table convertor: a string column prints the first match, arrays as JSON.
    ("string", ".spec.servers[0].hosts[0]", "foo"),
    ("string", ".spec.servers[0].hosts", '["foo"]'),
    ("string", ".spec.servers[1].hosts", '["bar","baz"]'),
    ("string", ".spec.servers[*].hosts", '["foo"]'),
    ("string", ".spec.foo[0].bar[0]", "1"),
    ("string", ".spec.foo[1].bar", "[2,3]"),
    ("string", '.spec.servers[*].hosts[?(@ == "baz")]', "baz"),
    # An integer column given an array is empty, not an error.
    ("integer", ".spec.foo[0].bar[0]", 1),
    ("integer", ".spec.foo[0].bar", None),
    ("integer", ".spec.foo[*].bar", None),
])
def test_upstream_convertor_facts(kind: str, path: str, expected: Any) -> None:
    assert _cells({"name": "C", "type": kind, "jsonPath": path}, SERVERS) == ["blah", expected]


# Objects and paths where reading only the keys a path starts with could go wrong: missing and null
# parents, wrong types on the way, filters and wildcards below a key, recursive descent, keys that
# share a prefix, and a path that needs the whole object.
_LAZY_OBJECTS: list[dict[str, Any]] = [
    {"apiVersion": "example.com/v1", "kind": "Widget",
     "metadata": {"name": "a", "creationTimestamp": "2026-11-30T10:00:00Z", "labels": {"app.kubernetes.io/name": "w"},
                  "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}]},
     "spec": {"size": 3, "items": [{"name": "x"}, {"name": "y"}], "flag": True, "ratio": 0.5, "nested": {"deep": None}},
     "status": {"conditions": [{"type": "Ready", "status": "True"}, {"type": "Synced", "status": "False"}]}},
    {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "b"}, "spec": None, "status": "broken"},
    {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "c"}, "spec": [1, 2, 3],
     "status": {"conditions": "not-a-list"}},
    {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "d"}},
]
_LAZY_PATHS = [".spec.size", ".spec.items[0].name", ".spec.items[*].name", ".spec.items[-1:].name",
               '.status.conditions[?(@.type=="Ready")].status', ".spec.nested.deep", ".spec.nested",
               ".metadata.labels['app.kubernetes.io/name']", ".metadata.creationTimestamp", ".spec", "..name",
               ".spec.flag", ".spec.ratio", ".status", ".spec[1]", ".missing.entirely"]


@pytest.mark.parametrize("kind", ["string", "integer", "number", "boolean", "date"])
def test_the_pruned_reader_gives_the_rows_of_a_full_parse(kind: str) -> None:
    columns = [{"name": f"c{i}", "type": kind, "jsonPath": path} for i, path in enumerate(_LAZY_PATHS)]
    lazy = crd_printer({"name": "v1", "additionalPrinterColumns": columns})
    full = CrdPrinter(columns, full_parse=True)
    for obj in _LAZY_OBJECTS:
        data = orjson.dumps(obj)
        assert render_cells(lazy.row(data), 1e9) == render_cells(full.row(data), 1e9)
    for path in _LAZY_PATHS:  # each path alone: its own pruning, not the union of all of them
        one = [{"name": "c", "type": kind, "jsonPath": path}]
        for obj in _LAZY_OBJECTS:
            data = orjson.dumps(obj)
            assert (render_cells(crd_printer({"name": "v1", "additionalPrinterColumns": one}).row(data), 1e9)
                    == render_cells(CrdPrinter(one, full_parse=True).row(data), 1e9))


def test_the_pruned_reader_skips_what_no_column_names() -> None:
    read = pruned_reader(key_tree([("metadata", "name"), ("spec", "size"), ("status",)]))
    assert read(orjson.dumps(_LAZY_OBJECTS[0])) == {
        "metadata": {"name": "a"}, "spec": {"size": 3}, "status": _LAZY_OBJECTS[0]["status"]}
    assert key_tree([("spec", "size"), ("spec",), ("spec", "items")]) == {"spec": None}
    assert key_tree([("spec", "size"), ()]) is None
