"""The PodDisruptionBudget printer's budget cells."""

from __future__ import annotations

from columns_golden import cells

from columns import policy


def test_budget_percentages_print_as_given() -> None:
    assert cells(policy.POD_DISRUPTION_BUDGETS, {"spec": {"maxUnavailable": "25%"}})[1:4] == ["N/A", "25%", 0]
