"""rbac.authorization.k8s.io/v1's strategies: pkg/registry/rbac/<kind>/strategy.go."""

from __future__ import annotations

from apiserver.registry.meta import path_segment
from apiserver.registry.rbac import defaults, validation
from apiserver.registry.strategy import KindStrategy, Strategy

STRATEGIES: dict[str, Strategy] = {
    "Role": KindStrategy(validate=validation.role, validate_update=validation.role_update, name_rule=path_segment,
                         creates_on_update=True),
    "ClusterRole": KindStrategy(validate=validation.cluster_role, validate_update=validation.cluster_role_update,
                                name_rule=path_segment, creates_on_update=True),
    "RoleBinding": KindStrategy(default=defaults.binding, validate=validation.role_binding,
                                validate_update=validation.role_binding_update, name_rule=path_segment,
                                creates_on_update=True),
    "ClusterRoleBinding": KindStrategy(default=defaults.binding, validate=validation.cluster_role_binding,
                                       validate_update=validation.cluster_role_binding_update,
                                       name_rule=path_segment, creates_on_update=True),
}
