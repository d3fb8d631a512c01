"""Contract: the lazy Struct reader and the full-parse reader give identical rows for every golden object."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from columns_golden import RESOURCES, SURFACE, SURFACE_RESOURCES, TABLES, GoldenRow, rows

from columns.base import render_cells
from columns.declare import BuiltinPrinter
from columns.decode import full_parse_reader
from columns.registry import DEFAULT, printer_for

KINDS = RESOURCES | SURFACE_RESOURCES


def each_object_once(resource: str, tables: Path) -> list[GoldenRow]:
    """The first row fed each distinct object (IPAddresses have no Object list, so any answer counts)."""
    found: dict[bytes, GoldenRow] = {}
    for golden in rows(resource, tables):
        found.setdefault(golden.data, golden)
    return list(found.values())


EVERY_OBJECT = ([g for resource in RESOURCES for g in each_object_once(resource, TABLES)]
                + [g for resource in SURFACE_RESOURCES for g in each_object_once(resource, SURFACE)])


def test_every_golden_list_is_covered() -> None:
    listed = {p.name.split(".list.")[0] for p in TABLES.glob("*.list.includeObject-Object.json")}
    # The CRD objects go to the default printer; events.k8s.io and the custom resources are tested elsewhere.
    assert listed - set(RESOURCES) == {"customresourcedefinitions.apiextensions.k8s.io", "events.events.k8s.io",
                                       "gadgets.example.com", "widgets.example.com"}


@pytest.mark.parametrize("golden", EVERY_OBJECT, ids=str)
def test_struct_reader_equals_full_parse(golden: GoldenRow) -> None:
    for printer in (printer_for(*KINDS[golden.resource]), DEFAULT):
        assert isinstance(printer, BuiltinPrinter)
        reference = dataclasses.replace(printer, reader=full_parse_reader)
        fast, full = printer.row(golden.data), reference.row(golden.data)
        assert fast == full
        assert render_cells(fast, golden.captured) == render_cells(full, golden.captured)
