from __future__ import annotations

import pytest
from columns_golden import GoldenRow, column_definitions, printed, rows

from columns.pods import PODS


@pytest.mark.parametrize("golden", rows("pods"), ids=str)
def test_pod_rows_match_upstream(golden: GoldenRow) -> None:
    assert printed(PODS, golden) == (golden.cells, golden.conditions)


def test_pod_columns_match_upstream() -> None:
    assert PODS.definitions == column_definitions("pods")
