"""Printers for rbac.authorization.k8s.io/v1 RoleBindings and ClusterRoleBindings.

Roles and ClusterRoles have no printer upstream: they get the default Name and Created At.
The wide columns list a binding's subjects by kind, service accounts as namespace/name; subjects
of any other kind are not shown.
"""

from __future__ import annotations

import msgspec

from columns.base import ColumnDefinition, Row
from columns.declare import Meta, age_column, column, name_column, printer
from columns.format import since


class RoleRef(msgspec.Struct):
    kind: str = ""
    name: str = ""


class Subject(msgspec.Struct):
    kind: str = ""
    name: str = ""
    namespace: str = ""


class Binding(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    roleRef: RoleRef = msgspec.field(default_factory=RoleRef)
    subjects: list[Subject] = []


def binding_row(binding: Binding) -> Row:
    users = [s.name for s in binding.subjects if s.kind == "User"]
    groups = [s.name for s in binding.subjects if s.kind == "Group"]
    accounts = [f"{s.namespace}/{s.name}" for s in binding.subjects if s.kind == "ServiceAccount"]
    return Row([binding.metadata.name, f"{binding.roleRef.kind}/{binding.roleRef.name}",
                since(binding.metadata.creationTimestamp), ", ".join(users), ", ".join(groups),
                ", ".join(accounts)])


def binding_columns(role_description: str, noun: str) -> list[ColumnDefinition]:
    return [name_column(), column("Role", role_description), age_column(),
            column("Users", f"Users in the {noun}", priority=1),
            column("Groups", f"Groups in the {noun}", priority=1),
            column("ServiceAccounts", f"ServiceAccounts in the {noun}", priority=1)]


ROLE_BINDINGS = printer(
    binding_columns("RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
                    "namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.",
                    "roleBinding"),
    Binding,
    binding_row,
)

CLUSTER_ROLE_BINDINGS = printer(
    binding_columns("RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be "
                    "resolved, the Authorizer must return an error.", "clusterRoleBinding"),
    Binding,
    binding_row,
)
