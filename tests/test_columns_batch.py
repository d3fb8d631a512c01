"""The batch printers against the cells a real kube-apiserver 1.36.2 printed for the same objects."""

from __future__ import annotations

import pytest

from columns_golden import GoldenRow, column_definitions, printed, rows
from columns import batch
from columns.base import Printer

PRINTERS: dict[str, Printer] = {
    "jobs.batch": batch.JOBS,
    "cronjobs.batch": batch.CRON_JOBS,
}


@pytest.mark.parametrize("golden", [g for resource in PRINTERS for g in rows(resource)], ids=str)
def test_rows_match_upstream(golden: GoldenRow) -> None:
    resource = golden.resource.removesuffix("(get)")
    assert printed(PRINTERS[resource], golden) == (golden.cells, golden.conditions)


@pytest.mark.parametrize("resource", PRINTERS)
def test_columns_match_upstream(resource: str) -> None:
    assert PRINTERS[resource].definitions == column_definitions(resource)
