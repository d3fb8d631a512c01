"""The admission policy printers' PARAMKIND and PARAMREF cells, beyond what the goldens show."""

from __future__ import annotations

from typing import Any

import pytest
from columns_golden import cells

from columns import admissionregistration as admission

SELECTOR = {"matchLabels": {"tier": "gold", "app": "web"},
            "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "qa"]}]}


@pytest.mark.parametrize(("param_ref", "shown"), [
    (None, "<unset>"),
    ({}, "<unset>"),
    ({"name": "limits", "namespace": "team"}, "team/limits"),
    # Without a namespace the param may be cluster-scoped or in any namespace.
    ({"name": "limits"}, "*/limits"),
    ({"selector": SELECTOR},
     "&LabelSelector{MatchLabels:map[string]string{app: web,tier: gold,},MatchExpressions:"
     "[]LabelSelectorRequirement{LabelSelectorRequirement{Key:env,Operator:In,Values:[prod qa],},},}"),
    ({"selector": {}}, "&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}"),
], ids=str)
def test_binding_param_ref(param_ref: dict[str, Any] | None, shown: str) -> None:
    binding = {"metadata": {"name": "b"}, "spec": {"policyName": "p", "paramRef": param_ref}}
    for printer in (admission.VALIDATING_ADMISSION_POLICY_BINDINGS, admission.MUTATING_ADMISSION_POLICY_BINDINGS):
        assert cells(printer, binding)[1:3] == ["p", shown]


def test_policies_count_their_rules() -> None:
    policy = {"spec": {"paramKind": {"apiVersion": "example.com/v1", "kind": "Limits"},
                       "validations": [{"expression": "true"}] * 3, "mutations": [{"patchType": "ApplyConfiguration"}]}}
    assert cells(admission.VALIDATING_ADMISSION_POLICIES, policy)[1:3] == [3, "example.com/v1/Limits"]
    assert cells(admission.MUTATING_ADMISSION_POLICIES, policy)[1:3] == [1, "example.com/v1/Limits"]
    assert cells(admission.VALIDATING_WEBHOOK_CONFIGURATIONS, {})[1] == 0
