"""Compiled rows against the plain rendering (fast path proven equal), and row reuse across versions."""

from __future__ import annotations

import json

import orjson
import pytest

from apiserver.kinds.resources import builtin_registry
from apiserver.shapes.shape import Listing
from apiserver.shapes.table_shape import TableShape
from apiserver.storage.interface import StoredObject
from columns.base import ColumnDefinition, Row, Since, render_cells
from tables.rows import Ages, CompiledRow, compile_row, render_rows, variant
from tables.wire import go_json


def age(seconds: float | None) -> str:
    return "<unknown>" if seconds is None else f"{int(seconds)}s"


ROWS = [
    Row(["plain", 3, True, None, 1.5]),
    Row([Since(100.0, age), "mid", Since(None, age)]),
    Row(["<none>", Since(50.0, age)], [{"type": "Completed", "status": "True", "reason": "Succeeded",
                                        "message": "a & b"}]),
    Row([Since(10.0, age)]),
    Row([Since(10.0, age), Since(20.0, age), "x", Since(None, age)]),
    Row(["a", "b", Since(30.0, age), Since(40.0, age)]),
    Row([]),
]


def rendered(row: CompiledRow, now: float, ages: Ages | None = None) -> bytes:
    out: list[bytes] = []
    row.render(out, now, {} if ages is None else ages)
    return b"".join(out)


@pytest.mark.parametrize("row", ROWS)
def test_compiled_row_equals_the_rendered_cells(row: Row) -> None:
    now = 160.0
    expected: dict[str, object] = {"cells": render_cells(row, now)}
    if row.conditions:
        expected["conditions"] = row.conditions
    expected["object"] = None
    assert rendered(compile_row(row, b"null"), now) == go_json(expected)


def test_ages_are_rendered_per_request() -> None:
    compiled = compile_row(ROWS[1], b"null")
    assert json.loads(rendered(compiled, 110.0))["cells"] == ["10s", "mid", "<unknown>"]
    assert json.loads(rendered(compiled, 170.0))["cells"] == ["70s", "mid", "<unknown>"]


def test_ages_are_rendered_once_per_creation_second_in_a_request() -> None:
    calls: list[float | None] = []

    def counted(seconds: float | None) -> str:
        calls.append(seconds)
        return age(seconds)

    rows = [compile_row(Row([name, Since(100.0, counted)]), b"null") for name in ("a", "b", "c")]
    ages: Ages = {}
    assert [json.loads(rendered(r, 130.0, ages))["cells"] for r in rows] == [[n, "30s"] for n in ("a", "b", "c")]
    assert calls == [30.0]


def test_go_escapes_html_characters_as_upstream_does() -> None:
    assert rendered(compile_row(Row(["<none>", "a&b"]), b"null"), 0) == \
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


def null(data: bytes) -> bytes:
    return b"null"


def rows_json(printer: CountingPrinter, kind: str, *objects: bytes) -> bytes:
    out: list[bytes] = []
    render_rows(out, printer, kind, objects, null, 0.0)
    return b"".join(out)


def test_a_row_is_computed_once_per_stored_version() -> None:
    printer = CountingPrinter()
    kind = variant(printer, "None")
    v1 = b'{"metadata":{"name":"a","uid":"u","resourceVersion":"5"}}'
    v2 = b'{"metadata":{"name":"a","uid":"u","resourceVersion":"6"}}'
    assert rows_json(printer, kind, v1) == rows_json(printer, kind, v1) == b'{"cells":["a"],"object":null}'
    assert rows_json(printer, kind, bytes(bytearray(v1))) == rows_json(printer, kind, v1)  # equal bytes
    assert printer.calls == 1
    assert rows_json(printer, kind, v1, v2) == b'{"cells":["a"],"object":null},{"cells":["a"],"object":null}'
    assert printer.calls == 2
    other = CountingPrinter()
    rows_json(other, variant(other, "None"), v1)
    assert other.calls == 1  # another printer computes its own row


def test_list_metadata_is_carried_into_the_table() -> None:
    rt = builtin_registry().lookup("", "v1", "configmaps")
    assert rt is not None
    data = b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"7"}}'
    listing = Listing(9, [(("configmaps", "ns", "a"), StoredObject(7, data))], "token", 4)
    table = json.loads(TableShape("meta.k8s.io/v1", "None").list_body(rt, listing))
    assert table["metadata"] == {"resourceVersion": "9", "continue": "token", "remainingItemCount": 4}
    (row,) = table["rows"]
    assert row["cells"][0] == "a" and row["object"] is None
