"""autoscaling/v2 defaulting (pkg/apis/autoscaling/v2/defaults.go), applied to the stored form that
both autoscaling/v1 and v2 are served from."""

from __future__ import annotations

import copy
from typing import Any

Obj = dict[str, Any]

_SCALE_UP: Obj = {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
    {"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}]}
# No scale-down window: the controller's --horizontal-pod-autoscaler-downscale-stabilization applies.
_SCALE_DOWN: Obj = {"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}
_DEFAULT_METRIC: Obj = {"type": "Resource", "resource": {
    "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}


def _scaling_rules(rules: Any, defaults: Obj) -> Obj:
    """copyHPAScalingRules: what the rules set (a given empty policy list too) over the defaults."""
    out = copy.deepcopy(defaults)
    if isinstance(rules, dict):
        for key in ("selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance"):
            if rules.get(key) is not None:
                out[key] = rules[key]
    return out


def horizontal_pod_autoscaler(obj: Obj) -> None:
    if not isinstance(obj.get("spec"), dict):
        obj["spec"] = {}  # a struct in Go: a null spec is an empty one, and is defaulted
    spec = obj["spec"]
    if spec.get("minReplicas") is None:
        spec["minReplicas"] = 1
    if not spec.get("metrics"):
        spec["metrics"] = [copy.deepcopy(_DEFAULT_METRIC)]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        behavior["scaleUp"] = _scaling_rules(behavior.get("scaleUp"), _SCALE_UP)
        behavior["scaleDown"] = _scaling_rules(behavior.get("scaleDown"), _SCALE_DOWN)
