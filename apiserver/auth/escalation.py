"""Escalation prevention: nobody grants through RBAC what they do not hold, as upstream's RBAC storage checks.

A Role or ClusterRole may be written by system:masters, by whoever may `escalate` it, or by whoever
already holds every rule it states in its namespace (a ClusterRole's at the cluster scope; using an
aggregationRule asks for everything). A binding may be written by system:masters, by whoever may
`bind` the role it references, or by whoever holds every rule of that role in the binding's namespace.
"""

from __future__ import annotations

from typing import Any, Callable

from apiserver import errors
from apiserver.auth import rbac
from apiserver.auth.access import ADMIN_GROUP, Attributes, Authorizer
from apiserver.auth.tokens import User

RBAC_GROUP = "rbac.authorization.k8s.io"
_ROLES = frozenset({"roles", "clusterroles"})
_BINDINGS = frozenset({"rolebindings", "clusterrolebindings"})
_FULL_AUTHORITY = [rbac.Rule(("*",), ("*",), ("*",)), rbac.Rule(("*",), urls=("*",))]

Admit = Callable[[dict[str, Any]], None]


def guard(authorizer: Authorizer, user: User, group: str, resource: str, namespace: str,
          name: str) -> Admit | None:
    """The check a write of this resource must pass with the object it is about to store; None when
    the resource is not an RBAC role or binding, or the user may grant anything."""
    if group != RBAC_GROUP or (resource not in _ROLES and resource not in _BINDINGS) or ADMIN_GROUP in user.groups:
        return None

    def admit(obj: dict[str, Any]) -> None:
        object_name = str((obj.get("metadata") or {}).get("name", name))
        if resource in _ROLES:
            _admit_role(authorizer, user, resource, namespace, name, object_name, obj)
        else:
            _admit_binding(authorizer, user, resource, namespace, object_name, obj)

    return admit


def _refuse(user: User, resource: str, name: str, detail: str) -> errors.ApiError:
    groups = "[" + " ".join(rbac.go_quote(g) for g in user.groups) + "]"
    message = (f"user {rbac.go_quote(user.name)} (groups={groups}) is attempting to grant RBAC permissions "
               f"not currently held:\n{detail}")
    return errors.forbidden_object(resource, RBAC_GROUP, name, message)


def _confirm(authorizer: Authorizer, user: User, resource: str, namespace: str, name: str,
             wanted: list[rbac.Rule]) -> None:
    held = authorizer.policy.rules_for(user, namespace)
    missing = rbac.missing_rules(held, wanted)
    if missing:
        raise _refuse(user, resource, name, "\n".join(missing))


def _admit_role(authorizer: Authorizer, user: User, resource: str, namespace: str, request_name: str,
                name: str, obj: dict[str, Any]) -> None:
    # The escalate check names what the request path named: nothing on a create.
    if authorizer.allowed(user, Attributes("escalate", RBAC_GROUP, resource, None, namespace, request_name)):
        return
    _confirm(authorizer, user, resource, namespace, name, rbac.rules_of(obj))
    if resource == "clusterroles" and isinstance(obj.get("aggregationRule"), dict):
        held = authorizer.policy.rules_for(user, "")
        if rbac.missing_rules(held, _FULL_AUTHORITY):
            raise errors.forbidden_object(resource, RBAC_GROUP, name,
                                          "must have cluster-admin privileges to use the aggregationRule")


def _admit_binding(authorizer: Authorizer, user: User, resource: str, namespace: str, name: str,
                   obj: dict[str, Any]) -> None:
    ref = obj.get("roleRef") or {}
    kind, role = str(ref.get("kind", "")), str(ref.get("name", ""))
    plural = {"ClusterRole": "clusterroles", "Role": "roles"}.get(kind)
    if plural is not None and authorizer.allowed(user, Attributes("bind", str(ref.get("apiGroup", "")), plural,
                                                                  None, namespace, role)):
        return
    rules = authorizer.policy.role_rules(kind, role, namespace)
    if rules is None:
        # Read through the registry, so named by the plural, unlike the authorizer's cache-based reason.
        what = "clusterroles" if kind == "ClusterRole" else "roles"
        raise errors.forbidden_object(resource, RBAC_GROUP, name, f'{what}.{RBAC_GROUP} "{role}" not found')
    _confirm(authorizer, user, resource, namespace, name, rules)
