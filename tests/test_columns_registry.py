"""printer_for: every served kind's printer, events.k8s.io fed stored core/v1 bytes, and the default."""

from __future__ import annotations

import orjson
import pytest
from columns_golden import GoldenRow, column_definitions, printed, rows

from apiserver.kinds.conversion import events_v1_to_core_event
from apiserver.kinds.resources import BUILTIN
from columns.base import render_cells
from columns.registry import DEFAULT, PRINTERS, printer_for

CRDS = "customresourcedefinitions.apiextensions.k8s.io"


def test_every_printer_is_for_a_served_kind() -> None:
    # Which served kinds have their own printer is the printers' golden tests' to check.
    served = {(rt.group, rt.kind) for rt in BUILTIN}
    assert ("apiextensions.k8s.io", "CustomResourceDefinition") not in PRINTERS
    assert set(PRINTERS) <= served


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
