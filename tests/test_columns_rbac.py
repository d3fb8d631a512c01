"""The binding printers' wide subject columns."""

from __future__ import annotations

from columns_golden import cells

from columns import rbac


def test_binding_subjects_by_kind() -> None:
    binding = {"roleRef": {"kind": "ClusterRole", "name": "view"},
               "subjects": [{"kind": "User", "name": "a"}, {"kind": "ServiceAccount", "name": "sa", "namespace": "ns"},
                            {"kind": "User", "name": "b"}, {"kind": "Robot", "name": "r"}]}
    for printer in (rbac.ROLE_BINDINGS, rbac.CLUSTER_ROLE_BINDINGS):
        assert cells(printer, binding)[1:2] + cells(printer, binding)[3:] == ["ClusterRole/view", "a, b", "", "ns/sa"]

