"""Every built-in printer against the cells a real kube-apiserver 1.36.2 printed for the same objects."""

from __future__ import annotations

import pytest
from columns_golden import RESOURCES, SURFACE, SURFACE_RESOURCES, GoldenRow, column_definitions, printed, rows

from columns.registry import printer_for


@pytest.mark.parametrize("golden", [g for resource in RESOURCES for g in rows(resource)], ids=str)
def test_rows_match_upstream(golden: GoldenRow) -> None:
    assert printed(printer_for(*RESOURCES[golden.resource]), golden) == (golden.cells, golden.conditions)


@pytest.mark.parametrize("resource", RESOURCES)
def test_columns_match_upstream(resource: str) -> None:
    assert printer_for(*RESOURCES[resource]).definitions == column_definitions(resource)


@pytest.mark.parametrize("golden", [g for resource in SURFACE_RESOURCES for g in rows(resource, SURFACE)], ids=str)
def test_surface_rows_match_upstream(golden: GoldenRow) -> None:
    assert printed(printer_for(*SURFACE_RESOURCES[golden.resource]), golden) == (golden.cells, golden.conditions)


@pytest.mark.parametrize("resource", SURFACE_RESOURCES)
def test_surface_columns_match_upstream(resource: str) -> None:
    assert printer_for(*SURFACE_RESOURCES[resource]).definitions == column_definitions(resource, SURFACE)


def test_every_surface_resource_is_covered() -> None:
    captured = {p.name.split(".list.")[0].split(".get.")[0] for p in SURFACE.glob("*.json")}
    assert captured == set(SURFACE_RESOURCES)
