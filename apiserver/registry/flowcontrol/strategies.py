"""flowcontrol.apiserver.k8s.io/v1's strategies: pkg/registry/flowcontrol/<kind>/strategy.go."""

from __future__ import annotations

from apiserver.registry.flowcontrol import dangling, defaults
from apiserver.registry.meta import path_segment
from apiserver.registry.strategy import KindStrategy, Strategy

STRATEGIES: dict[str, Strategy] = {
    "FlowSchema": KindStrategy(default=defaults.flow_schema, decorate=dangling.decorate_flow_schema,
                               name_rule=path_segment),
    "PriorityLevelConfiguration": KindStrategy(default=defaults.priority_level_configuration,
                                               after_create=dangling.level_created,
                                               after_delete=dangling.level_deleted, name_rule=path_segment),
}
