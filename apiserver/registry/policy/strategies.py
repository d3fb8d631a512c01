"""policy/v1's strategies: pkg/registry/policy/poddisruptionbudget/strategy.go."""

from __future__ import annotations

from apiserver.registry.meta import path_segment
from apiserver.registry.policy import validation
from apiserver.registry.strategy import KindStrategy, Strategy

STRATEGIES: dict[str, Strategy] = {
    # Only the generic store judges its metadata: apimachinery's rules, a name that is a path segment.
    "PodDisruptionBudget": KindStrategy(validate=validation.pod_disruption_budget, kube_finalizers=False,
                                        name_rule=path_segment,
                                        validate_subresource_update=validation.pod_disruption_budget_status_update),
}
