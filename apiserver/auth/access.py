"""What a user may do: two roles, given by group, checked once per resource request.

admin (group `system:masters`, kube-apiserver's superuser group) may do everything. view (group
`fastkube:view`) may get, list and watch what RBAC's `view` ClusterRole lets it read: the workload
and configuration resources of namespaces, but not Secrets (they would hand out the service
account tokens they hold) nor cluster-wide objects such as nodes, persistent volumes or storage
classes. Discovery and /version are open to
every authenticated user, as RBAC's `system:discovery` role; /metrics to admins only, as upstream
gives it to no default role but the superuser's.
"""

from __future__ import annotations

from dataclasses import dataclass

from apiserver import errors
from apiserver.auth.tokens import User

ADMIN_GROUP = "system:masters"
VIEW_GROUP = "fastkube:view"
ROLE_GROUPS = {"admin": (ADMIN_GROUP,), "view": (VIEW_GROUP,)}

# The user of the loopback-only plain HTTP mode, named as kube-apiserver's old insecure port did.
UNSECURED = User("system:unsecured", "", (ADMIN_GROUP, "system:authenticated"))

_READ_VERBS = frozenset({"get", "list", "watch"})
# RBAC's `view` ClusterRole (bootstrap policy), as (API group, resource or resource/subresource),
# restricted to the resources served here.
_VIEWABLE = frozenset({
    ("", "configmaps"), ("", "endpoints"), ("", "persistentvolumeclaims"), ("", "persistentvolumeclaims/status"),
    ("", "pods"), ("", "pods/log"), ("", "pods/status"), ("", "serviceaccounts"), ("", "services"), ("", "services/status"),
    ("", "events"), ("", "namespaces"), ("", "namespaces/status"),
    ("apps", "daemonsets"), ("apps", "daemonsets/status"), ("apps", "deployments"), ("apps", "deployments/scale"),
    ("apps", "deployments/status"), ("apps", "replicasets"), ("apps", "replicasets/scale"),
    ("apps", "replicasets/status"), ("apps", "statefulsets"), ("apps", "statefulsets/scale"),
    ("apps", "statefulsets/status"),
    ("batch", "cronjobs"), ("batch", "cronjobs/status"), ("batch", "jobs"), ("batch", "jobs/status"),
    ("networking.k8s.io", "ingresses"), ("networking.k8s.io", "ingresses/status"),
    ("discovery.k8s.io", "endpointslices"),
    ("policy", "poddisruptionbudgets"), ("policy", "poddisruptionbudgets/status"),
})


@dataclass(frozen=True)
class Attributes:
    """One resource request as the authorizer sees it."""

    verb: str
    group: str
    resource: str
    subresource: str | None
    namespace: str
    name: str


def allowed(user: User, attrs: Attributes) -> bool:
    if ADMIN_GROUP in user.groups:
        return True
    if VIEW_GROUP in user.groups:
        resource = attrs.resource if attrs.subresource is None else f"{attrs.resource}/{attrs.subresource}"
        return attrs.verb in _READ_VERBS and (attrs.group, resource) in _VIEWABLE
    return False


def authorize_path(user: User, verb: str, path: str) -> None:
    """Raises 403 Forbidden when the user may not reach a path that names no resource (/metrics)."""
    if ADMIN_GROUP not in user.groups:
        raise errors.forbidden_path(user.name, verb, path)


def authorize(user: User, attrs: Attributes) -> None:
    """Raises 403 Forbidden, worded as kube-apiserver's, when the user may not do this."""
    if not allowed(user, attrs):
        raise errors.forbidden(user.name, attrs.verb, attrs.group, attrs.resource, attrs.subresource,
                               attrs.namespace, attrs.name)
