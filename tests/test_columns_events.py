"""The Event printer against the cells a real kube-apiserver 1.36.2 printed (events.k8s.io: see registry)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
import pytest
from columns_golden import GoldenRow, column_definitions, printed, rows

from columns import events
from columns.base import Printer, RenderedCell, render_cells

PRINTERS: dict[str, Printer] = {
    "events": events.EVENTS,
}


@pytest.mark.parametrize("golden", [g for resource in PRINTERS for g in rows(resource)], ids=str)
def test_rows_match_upstream(golden: GoldenRow) -> None:
    assert printed(PRINTERS[golden.resource], golden) == (golden.cells, golden.conditions)


@pytest.mark.parametrize("resource", PRINTERS)
def test_columns_match_upstream(resource: str) -> None:
    assert PRINTERS[resource].definitions == column_definitions(resource)


NOW = 2_000_000_000.0  # 2033-05-18T03:33:20Z


def cells(printer: Printer, obj: Mapping[str, Any]) -> list[RenderedCell]:
    return render_cells(printer.row(orjson.dumps(obj)), NOW)


def test_events_of_the_new_api() -> None:
    event = {"metadata": {"name": "e"}, "involvedObject": {"kind": "Node"}, "message": " msg \n",
             "eventTime": "2033-05-18T03:03:20.000000Z", "reportingComponent": "ctrl",
             "series": {"count": 7, "lastObservedTime": "2033-05-18T03:32:20.000000Z"}}
    assert cells(events.EVENTS, event) == ["60s", "", "", "node", "", "ctrl", "msg", "30m", 7, "e"]
    singleton = {"metadata": {"name": "e"}, "involvedObject": {"kind": "Pod", "name": "p"}}
    assert cells(events.EVENTS, singleton) == ["<unknown>", "", "", "pod/p", "", "", "", "<unknown>", 1, "e"]
