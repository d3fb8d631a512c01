"""policy/v1's strategies: pkg/registry/policy/poddisruptionbudget/strategy.go."""

from __future__ import annotations

from apiserver.registry.policy import validation
from apiserver.registry.strategy import KindStrategy, Strategy

STRATEGIES: dict[str, Strategy] = {
    "PodDisruptionBudget": KindStrategy(validate=validation.pod_disruption_budget, kube_finalizers=False),
}
