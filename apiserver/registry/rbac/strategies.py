"""rbac.authorization.k8s.io/v1's strategies: pkg/registry/rbac/<kind>/strategy.go."""

from __future__ import annotations

from apiserver.registry.meta import path_segment
from apiserver.registry.rbac import defaults, validation
from apiserver.registry.strategy import KindStrategy, Strategy

STRATEGIES: dict[str, Strategy] = {
    "Role": KindStrategy(validate=validation.role, name_rule=path_segment, kube_finalizers=False),
    "ClusterRole": KindStrategy(validate=validation.cluster_role, name_rule=path_segment, kube_finalizers=False),
    "RoleBinding": KindStrategy(default=defaults.subjects, validate=validation.role_binding,
                                validate_update=validation.role_binding_update, name_rule=path_segment, kube_finalizers=False),
    "ClusterRoleBinding": KindStrategy(default=defaults.subjects, validate=validation.cluster_role_binding,
                                       validate_update=validation.cluster_role_binding_update,
                                       name_rule=path_segment, kube_finalizers=False),
}
