"""What a metav1.LabelSelector means to the workload validations: whether it converts to a labels.Selector
(metav1.LabelSelectorAsSelector, with labels.NewRequirement's checks) and which pods it picks.

Ports staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go and pkg/labels/selector.go: a nil
selector picks nothing, an empty one everything.
"""

from __future__ import annotations

from typing import Any

from apiserver.kinds.validation import label_value, qualified_name

_OPERATOR_VALUES = {"In": True, "NotIn": True, "Exists": False, "DoesNotExist": False}


def is_empty(selector: Any) -> bool:
    """No matchLabels and no matchExpressions (a nil selector is not empty: it picks nothing)."""
    return isinstance(selector, dict) and not selector.get("matchLabels") and not selector.get("matchExpressions")


def parses(selector: Any) -> bool:
    """Whether LabelSelectorAsSelector accepts it: known operators, qualified keys, label values, and
    values given exactly where the operator takes them."""
    if not isinstance(selector, dict) or is_empty(selector):
        return True
    for key, value in (selector.get("matchLabels") or {}).items():
        if qualified_name(str(key)) or not isinstance(value, str) or label_value(value):
            return False
    for expression in selector.get("matchExpressions") or ():
        expression = expression if isinstance(expression, dict) else {}
        takes_values = _OPERATOR_VALUES.get(str(expression.get("operator") or ""))
        values = expression.get("values") or []
        if takes_values is None or qualified_name(str(expression.get("key") or "")):
            return False
        if takes_values != bool(values):
            return False
        if any(not isinstance(v, str) or label_value(v) for v in values):
            return False
    return True


def matches(selector: Any, labels: Any) -> bool:
    """Whether the selector picks an object with these labels."""
    if not isinstance(selector, dict):
        return False
    labels = labels if isinstance(labels, dict) else {}
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for expression in selector.get("matchExpressions") or ():
        key, operator = expression.get("key"), expression.get("operator")
        values = expression.get("values") or []
        present = key in labels
        if operator == "In" and (not present or labels[key] not in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if (operator == "Exists" and not present) or (operator == "DoesNotExist" and present):
            return False
    return True
