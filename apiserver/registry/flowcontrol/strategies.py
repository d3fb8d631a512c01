"""flowcontrol.apiserver.k8s.io/v1's strategies: pkg/registry/flowcontrol/<kind>/strategy.go."""

from __future__ import annotations

from apiserver.registry.flowcontrol import dangling, defaults, validation
from apiserver.registry.strategy import KindStrategy, Strategy

STRATEGIES: dict[str, Strategy] = {
    "FlowSchema": KindStrategy(default=defaults.flow_schema, decorate=dangling.decorate_flow_schema,
                               validate=validation.flow_schema, validate_update=validation.flow_schema_update,
                               validate_subresource_update=validation.status_update),
    "PriorityLevelConfiguration": KindStrategy(default=defaults.priority_level_configuration,
                                               after_create=dangling.level_created,
                                               after_delete=dangling.level_deleted,
                                               validate=validation.priority_level_configuration,
                                               validate_update=validation.priority_level_configuration_update,
                                               validate_subresource_update=validation.status_update),
}
