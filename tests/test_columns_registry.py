"""printer_for: every served kind's printer, events.k8s.io fed stored core/v1 bytes, and the default."""

from __future__ import annotations

import orjson
import pytest
from columns_golden import RESOURCES, SURFACE_RESOURCES, GoldenRow, column_definitions, printed, rows

from apiserver.kinds.conversion import events_v1_to_core_event
from apiserver.kinds.resources import BUILTIN
from columns.base import Row, render_cells
from columns.declare import Named, name_column, printer
from columns.registry import DEFAULT, PRINTERS, printer_for

CRDS = "customresourcedefinitions.apiextensions.k8s.io"


# The kinds kube-apiserver 1.36 prints with the default Name and Created At.
WITHOUT_PRINTER = {("apiextensions.k8s.io", "CustomResourceDefinition"), ("rbac.authorization.k8s.io", "Role"),
                   ("rbac.authorization.k8s.io", "ClusterRole"), ("", "LimitRange"),
                   ("storage.k8s.io", "CSIStorageCapacity")}


def test_every_served_kind_has_its_own_printer_unless_upstream_has_none() -> None:
    # Create-only kinds (reviews, bindings) are never read, so never printed.
    served = {(rt.group, rt.kind) for rt in BUILTIN if {"get", "list"} & set(rt.verbs)}
    assert served - set(PRINTERS) == WITHOUT_PRINTER & served
    assert not WITHOUT_PRINTER & set(PRINTERS)


def test_every_printer_is_for_a_kind_served_or_captured() -> None:
    # Printers may land before the server serves their kinds; the goldens still print them.
    known = {(rt.group, rt.kind) for rt in BUILTIN} | set(RESOURCES.values()) | set(SURFACE_RESOURCES.values())
    assert set(PRINTERS) <= known


def test_kinds_without_a_printer_get_the_default() -> None:
    assert printer_for("apiextensions.k8s.io", "CustomResourceDefinition") is DEFAULT
    assert printer_for("example.com", "Gadget") is DEFAULT


@pytest.mark.parametrize("golden", rows(CRDS), ids=str)
def test_default_printer_rows_match_upstream(golden: GoldenRow) -> None:
    assert printed(DEFAULT, golden) == (golden.cells, golden.conditions)


def test_default_printer_columns_match_upstream() -> None:
    assert DEFAULT.definitions == column_definitions(CRDS)


def test_default_printer_shows_go_zero_time_without_a_creation_timestamp() -> None:
    assert DEFAULT.row(b'{"metadata":{"name":"x"}}').cells == ["x", "0001-01-01T00:00:00Z"]


EVENTS_V1 = "events.events.k8s.io"


@pytest.mark.parametrize("golden", rows(EVENTS_V1), ids=str)
def test_events_k8s_io_rows_are_printed_from_the_stored_core_event(golden: GoldenRow) -> None:
    stored = orjson.dumps(events_v1_to_core_event(orjson.loads(golden.data)))
    row = printer_for("events.k8s.io", "Event").row(stored)
    assert (render_cells(row, golden.captured), row.conditions) == (golden.cells, golden.conditions)


def test_events_k8s_io_columns_match_upstream() -> None:
    assert printer_for("events.k8s.io", "Event").definitions == column_definitions(EVENTS_V1)


def test_a_declaration_must_name_the_cells_past_its_columns() -> None:
    def two_cells(obj: Named) -> Row:
        return Row([obj.metadata.name, "extra"])

    columns = [name_column()]
    with pytest.raises(TypeError, match="gives 2 cells for 1 columns and 0 undeclared"):
        printer(columns, Named, two_cells)
    assert printer(columns, Named, two_cells, undeclared=1).row(b'{"metadata":{"name":"a"}}').cells == ["a", "extra"]
