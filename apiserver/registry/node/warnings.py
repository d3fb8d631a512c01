"""Deprecated node labels, and the warnings for selectors that use them: pkg/api/node/util.go."""

from __future__ import annotations

from typing import Any

_DEPRECATED_NODE_LABELS = {
    "beta.kubernetes.io/arch": 'deprecated since v1.14; use "kubernetes.io/arch" instead',
    "beta.kubernetes.io/os": 'deprecated since v1.14; use "kubernetes.io/os" instead',
    "failure-domain.beta.kubernetes.io/region": 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
    "failure-domain.beta.kubernetes.io/zone": 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
    "beta.kubernetes.io/instance-type": 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
    "app.kubernetes.io/created-by": "deprecated since v1.9",
    "scheduler.alpha.kubernetes.io/preferAvoidPods": "deprecated since v1.22; use Taints and Tolerations instead",
    "node-role.kubernetes.io/master": 'use "node-role.kubernetes.io/control-plane" instead',
}


def deprecated_label_message(key: Any) -> str | None:
    """GetNodeLabelDeprecatedMessage."""
    return _DEPRECATED_NODE_LABELS.get(key) if isinstance(key, str) else None


def runtime_class(obj: dict[str, Any]) -> list[str]:
    """GetWarningsForRuntimeClass: deprecated labels in scheduling.nodeSelector."""
    scheduling = obj.get("scheduling")
    selector = scheduling.get("nodeSelector") if isinstance(scheduling, dict) else None
    return [f"scheduling.nodeSelector: {message}" for key in (selector or {})
            if (message := deprecated_label_message(key)) is not None]


def node_selector(selector: Any, path: str) -> list[str]:
    """GetWarningsForNodeSelector: deprecated labels in a label selector's expressions and labels."""
    if not isinstance(selector, dict):
        return []
    warnings = []
    for i, expression in enumerate(selector.get("matchExpressions") or ()):
        key = expression.get("key") if isinstance(expression, dict) else None
        message = deprecated_label_message(key)
        if message is not None:
            warnings.append(f"{path}.matchExpressions[{i}].key: {key} is {message}")
    for label in selector.get("matchLabels") or {}:
        message = deprecated_label_message(label)
        if message is not None:
            warnings.append(f"{path}.matchLabels.{label}: {message}")
    return warnings
