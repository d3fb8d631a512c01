"""Compiled rows against the plain rendering (fast path proven equal), and row reuse across versions."""

from __future__ import annotations

import json

import orjson
import pytest

from apiserver.resources import builtin_registry
from apiserver.shape import Listing
from apiserver.storage.interface import StoredObject
from apiserver.table_shape import TableShape
from columns.base import ColumnDefinition, Row, Since, render_cells
from tables.default import DEFAULT_PRINTER
from tables.rows import compile_row, row_json, row_of
from tables.wire import go_json


def age(seconds: float | None) -> str:
    return "<unknown>" if seconds is None else f"{int(seconds)}s"


ROWS = [
    Row(["plain", 3, True, None, 1.5]),
    Row([Since(100.0, age), "mid", Since(None, age)]),
    Row(["<none>", Since(50.0, age)], [{"type": "Completed", "status": "True", "reason": "Succeeded",
                                        "message": "a & b"}]),
    Row([Since(10.0, age)]),
    Row([]),
]


@pytest.mark.parametrize("row", ROWS)
def test_compiled_row_equals_the_rendered_cells(row: Row) -> None:
    now = 160.0
    expected: dict[str, object] = {"cells": render_cells(row, now)}
    if row.conditions:
        expected["conditions"] = row.conditions
    expected["object"] = None
    assert row_json(compile_row(row), now, b"null") == go_json(expected)


def test_ages_are_rendered_per_request() -> None:
    compiled = compile_row(ROWS[1])
    assert json.loads(row_json(compiled, 110.0, b"null"))["cells"] == ["10s", "mid", "<unknown>"]
    assert json.loads(row_json(compiled, 170.0, b"null"))["cells"] == ["70s", "mid", "<unknown>"]


def test_go_escapes_html_characters_as_upstream_does() -> None:
    assert row_json(compile_row(Row(["<none>", "a&b"])), 0, b"null") == \
        b'{"cells":["\\u003cnone\\u003e","a\\u0026b"],"object":null}'


class CountingPrinter:
    """A real printer (name and a fixed column) that counts how often it computes a row."""

    def __init__(self) -> None:
        self.calls = 0
        self.definitions: list[ColumnDefinition] = [
            {"name": "Name", "type": "string", "format": "name", "description": "", "priority": 0}]

    def row(self, data: bytes) -> Row:
        self.calls += 1
        return Row([orjson.loads(data)["metadata"]["name"]])


def test_a_row_is_computed_once_per_stored_version() -> None:
    printer = CountingPrinter()
    v1 = b'{"metadata":{"name":"a","uid":"u","resourceVersion":"5"}}'
    v2 = b'{"metadata":{"name":"a","uid":"u","resourceVersion":"6"}}'
    assert row_of(printer, v1) is row_of(printer, v1)
    assert row_of(printer, bytes(bytearray(v1))) is row_of(printer, v1)  # equal bytes, same version
    assert printer.calls == 1
    row_of(printer, v2)
    assert printer.calls == 2
    assert row_of(CountingPrinter(), v1) is not row_of(printer, v1)  # another printer, its own row


def test_list_metadata_is_carried_into_the_table() -> None:
    rt = builtin_registry().lookup("", "v1", "configmaps")
    assert rt is not None
    data = b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"7"}}'
    listing = Listing(9, [(("configmaps", "ns", "a"), StoredObject(7, data))], "token", 4)
    table = json.loads(TableShape("meta.k8s.io/v1", "None").list_body(rt, listing))
    assert table["metadata"] == {"resourceVersion": "9", "continue": "token", "remainingItemCount": 4}
    assert table["rows"] == [{"cells": ["a", "0001-01-01T00:00:00Z"], "object": None}]


def test_default_printer_gives_name_and_creation_time() -> None:
    data = b'{"metadata":{"name":"v1.apps","creationTimestamp":"2026-11-30T04:33:41Z"}}'
    assert DEFAULT_PRINTER.row(data) == Row(["v1.apps", "2026-11-30T04:33:41Z"])
    assert [c["name"] for c in DEFAULT_PRINTER.definitions] == ["Name", "Created At"]
