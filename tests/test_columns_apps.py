"""The apps printers against the cells a real kube-apiserver 1.36.2 printed for the same objects."""

from __future__ import annotations

import pytest
from columns_golden import GoldenRow, column_definitions, printed, rows

from columns import apps
from columns.base import Printer

PRINTERS: dict[str, Printer] = {
    "deployments.apps": apps.DEPLOYMENTS,
    "replicasets.apps": apps.REPLICA_SETS,
    "statefulsets.apps": apps.STATEFUL_SETS,
    "daemonsets.apps": apps.DAEMON_SETS,
}


@pytest.mark.parametrize("golden", [g for resource in PRINTERS for g in rows(resource)], ids=str)
def test_rows_match_upstream(golden: GoldenRow) -> None:
    assert printed(PRINTERS[golden.resource], golden) == (golden.cells, golden.conditions)


@pytest.mark.parametrize("resource", PRINTERS)
def test_columns_match_upstream(resource: str) -> None:
    assert PRINTERS[resource].definitions == column_definitions(resource)


def test_deployment_selector_is_empty_when_unset_and_invalid_when_wrong() -> None:
    assert apps.DEPLOYMENTS.row(b"{}").cells[7] == ""
    bad = b'{"spec":{"selector":{"matchExpressions":[{"key":"a","operator":"Nope"}]}}}'
    assert apps.DEPLOYMENTS.row(bad).cells[7] == "<invalid>"
    assert apps.REPLICA_SETS.row(bad).cells[7] == "<error>"
