"""The FlowSchema and PriorityLevelConfiguration printers for objects the bootstrap set does not show."""

from __future__ import annotations

from columns_golden import cells

from columns import flowcontrol


def test_flow_schema_before_the_server_judges_its_priority_level() -> None:
    schema = {"spec": {"priorityLevelConfiguration": {"name": "workload-low"}, "matchingPrecedence": 9000}}
    assert cells(flowcontrol.FLOW_SCHEMAS, schema)[1:4] + cells(flowcontrol.FLOW_SCHEMAS, schema)[5:] == \
        ["workload-low", 9000, "<none>", "?"]


def test_priority_levels_without_queuing_show_shares_only() -> None:
    rejecting = {"spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 5,
                                                         "limitResponse": {"type": "Reject"}}}}
    assert cells(flowcontrol.PRIORITY_LEVEL_CONFIGURATIONS, rejecting)[1:6] == \
        ["Limited", 5, "<none>", "<none>", "<none>"]
    # The internal type holds the shares as a plain number, so unset reads as 0.
    assert cells(flowcontrol.PRIORITY_LEVEL_CONFIGURATIONS, {"spec": {"limited": {}}})[2] == 0
