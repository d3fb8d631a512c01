"""autoscaling's strategies: pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go.

Its dropDisabledFields drops nothing in 1.36: HPAConfigurableTolerance is on by default."""

from __future__ import annotations

from apiserver.registry.autoscaling import defaults, validation
from apiserver.registry.strategy import KindStrategy, Strategy

STRATEGIES: dict[str, Strategy] = {
    "HorizontalPodAutoscaler": KindStrategy(default=defaults.horizontal_pod_autoscaler,
                                            validate=validation.horizontal_pod_autoscaler,
                                            validate_update=validation.horizontal_pod_autoscaler_update,
                                            validate_subresource_update=validation.horizontal_pod_autoscaler_status_update),
}
