"""Which parser reads the columns: msgspec views vs pysimdjson's lazy parser vs a full parse.

Run: python -m pytest benches/micro/test_parsers_bench.py --benchmark-only --benchmark-columns=min,median,rounds
Each round reads 1,000 stored objects built from the golden answers (managedFields included, as a
real server stores them) with distinct names. Two groups:

- pod rows: the Pod printer's row from its msgspec view (the reader in use), from the same view
  filled by pysimdjson (parse, then convert only the keys the view declares), and from a full
  orjson parse converted into the view (the reference).
- crd columns: a custom resource's printer columns (JSONPath) from the pruned msgspec reader (the
  reader in use: a Struct of only the keys the paths start with), from pysimdjson (parse, then
  convert only those keys) and from a full orjson parse (the reference).

Every candidate is checked to give the reference's rows before it is timed. On a shared machine
read the minimum: it is the figure other processes disturb least.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest
import simdjson
import yaml

from columns.base import render_cells
from columns.crd import DEFAULT_COLUMNS, CrdPrinter
from columns.declare import BuiltinPrinter
from columns.decode import Tree, full_parse_reader, struct_reader
from columns.registry import printer_for

SHARED = Path(__file__).resolve().parents[3] / "shared"
TABLES = SHARED / "golden" / "kube-1.36.2" / "table"
CRDS = SHARED / "golden" / "fixtures" / "01-crds.yaml"
COUNT = 1000


def stored_objects(capture: str) -> list[bytes]:
    table = json.loads((TABLES / f"{capture}.list.includeObject-Object.json").read_text())
    templates: list[dict[str, Any]] = [row["object"] for row in table["rows"]]
    objects = []
    for i in range(COUNT):
        obj = json.loads(json.dumps(templates[i % len(templates)]))
        obj["metadata"]["name"] = f"{obj['metadata']['name']}-{i}"
        objects.append(orjson.dumps(obj))
    return objects


_PARSER = simdjson.Parser()


def _simdjson_subtrees(data: bytes, tree: Tree) -> dict[str, Any]:
    """pysimdjson's lazy document, converted to Python only under the keys of `tree`."""
    doc = _PARSER.parse(data)
    return _convert(doc, tree)


def _convert(node: Any, tree: Tree) -> Any:
    if not isinstance(node, simdjson.Object):
        return node.as_list() if isinstance(node, simdjson.Array) else node
    out: dict[str, Any] = {}
    for key, below in tree.items():
        value = node.get(key, _ABSENT)
        if value is _ABSENT:
            continue
        if below is None:
            out[key] = (value.as_dict() if isinstance(value, simdjson.Object)
                        else value.as_list() if isinstance(value, simdjson.Array) else value)
        else:
            out[key] = _convert(value, below)
    return out


_ABSENT = object()


def _view_tree(view: type[msgspec.Struct]) -> Tree:
    """The keys a view declares, one level into `metadata` (spec and status are read nearly whole)."""
    tree: Tree = {}
    for field in msgspec.structs.fields(view):
        if field.name == "metadata":
            tree["metadata"] = {f.name: None for f in msgspec.structs.fields(field.type)}
        else:
            tree[field.name] = None
    return tree


def _simdjson_reader(view: type[msgspec.Struct]) -> Callable[[bytes], Any]:
    tree = _view_tree(view)

    def read(data: bytes) -> Any:
        return msgspec.convert(_simdjson_subtrees(data, tree), view)

    return read


POD_READERS: dict[str, Any] = {
    "msgspec-view": struct_reader,
    "pysimdjson-lazy": lambda view: _simdjson_reader(view),
    "full-parse": full_parse_reader,
}


@pytest.mark.parametrize("reader", list(POD_READERS))
def test_pod_rows(benchmark: Any, reader: str) -> None:
    printer = printer_for("", "Pod")
    assert isinstance(printer, BuiltinPrinter)
    chosen = dataclasses.replace(printer, reader=POD_READERS[reader])
    reference = dataclasses.replace(printer, reader=full_parse_reader)
    objects = stored_objects("pods")
    assert [chosen.row(d) for d in objects] == [reference.row(d) for d in objects]
    benchmark.group = f"pod rows x{COUNT}"
    benchmark(lambda: [chosen.row(data) for data in objects])


def _crd_columns(name: str) -> list[dict[str, Any]]:
    with open(CRDS) as f:
        for crd in yaml.safe_load_all(f):
            if crd["metadata"]["name"] == name:
                version = crd["spec"]["versions"][0]
                return version.get("additionalPrinterColumns") or list(DEFAULT_COLUMNS)  # type: ignore[no-any-return]
    raise LookupError(name)


class _SimdjsonCrdPrinter(CrdPrinter):
    """The same columns, the object read by pysimdjson under the keys the paths start with."""

    def __init__(self, columns: list[dict[str, Any]], tree: Tree) -> None:
        super().__init__(columns)
        self._read = lambda data: _simdjson_subtrees(data, tree)


@pytest.mark.parametrize("crd", ["widgets.example.com", "gadgets.example.com"])
@pytest.mark.parametrize("reader", ["msgspec-pruned", "pysimdjson-lazy", "full-parse"])
def test_crd_columns(benchmark: Any, crd: str, reader: str) -> None:
    columns = _crd_columns(crd)
    reference = CrdPrinter(columns, full_parse=True)
    pruned = CrdPrinter(columns)
    assert pruned.key_tree is not None
    chosen = {"msgspec-pruned": pruned, "pysimdjson-lazy": _SimdjsonCrdPrinter(columns, pruned.key_tree),
              "full-parse": reference}[reader]
    objects = stored_objects(crd)
    assert [render_cells(chosen.row(d), 1e9) for d in objects] == [render_cells(reference.row(d), 1e9)
                                                                   for d in objects]
    benchmark.group = f"{crd} columns x{COUNT}"
    benchmark(lambda: [chosen.row(data) for data in objects])
