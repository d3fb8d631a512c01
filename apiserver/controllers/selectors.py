"""LabelSelector and NodeSelector objects (the structured kind, in specs) matched against labels."""

from __future__ import annotations

from typing import Any, Mapping


def _expression_matches(expression: Mapping[str, Any], value: str | None) -> bool:
    operator = expression.get("operator")
    values = expression.get("values") or []
    if operator == "In":
        return value is not None and value in values
    if operator == "NotIn":
        return value is None or value not in values
    if operator == "Exists":
        return value is not None
    if operator == "DoesNotExist":
        return value is None
    if operator in ("Gt", "Lt") and value is not None and values:
        try:
            have, want = int(value), int(values[0])
        except ValueError:
            return False
        return have > want if operator == "Gt" else have < want
    return False


def label_selector_matches(selector: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    """metav1.LabelSelector: matchLabels and matchExpressions all hold. An empty selector matches everything;
    a missing one (None) nothing, as upstream's LabelSelectorAsSelector treats nil."""
    if selector is None:
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    return all(_expression_matches(e, labels.get(e.get("key", ""))) for e in selector.get("matchExpressions") or ())


def node_selector_term_matches(term: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    labels = node["metadata"].get("labels") or {}
    expressions = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not expressions and not fields:
        return False  # an empty term matches no objects
    return (all(_expression_matches(e, labels.get(e.get("key", ""))) for e in expressions)
            and all(_expression_matches(f, node["metadata"]["name"] if f.get("key") == "metadata.name" else None)
                    for f in fields))


def labels_of(obj: Mapping[str, Any]) -> Mapping[str, str]:
    return obj["metadata"].get("labels") or {}
