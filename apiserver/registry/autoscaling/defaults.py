"""autoscaling/v2 defaulting (pkg/apis/autoscaling/v2/defaults.go), applied to the stored form that
both autoscaling/v1 and v2 are served from."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]


def _scaling_rules(rules: Any, window: int, policies: list[Obj]) -> Obj:
    out: Obj = dict(rules) if isinstance(rules, dict) else {}
    out.setdefault("stabilizationWindowSeconds", window)
    out.setdefault("selectPolicy", "Max")
    if not out.get("policies"):
        out["policies"] = policies
    return {k: out[k] for k in ("stabilizationWindowSeconds", "selectPolicy", "policies", "tolerance") if k in out}


def horizontal_pod_autoscaler(obj: Obj) -> None:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    spec.setdefault("minReplicas", 1)
    if not spec.get("metrics"):
        spec["metrics"] = [{"type": "Resource", "resource": {
            "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        behavior["scaleUp"] = _scaling_rules(behavior.get("scaleUp"), 0, [
            {"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}])
        behavior["scaleDown"] = _scaling_rules(behavior.get("scaleDown"), 300, [
            {"type": "Percent", "value": 100, "periodSeconds": 15}])
