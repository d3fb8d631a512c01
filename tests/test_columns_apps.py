"""The apps printers against the cells a real kube-apiserver 1.36.2 printed for the same objects."""

from __future__ import annotations

from columns import apps


def test_deployment_selector_is_empty_when_unset_and_invalid_when_wrong() -> None:
    assert apps.DEPLOYMENTS.row(b"{}").cells[7] == ""
    bad = b'{"spec":{"selector":{"matchExpressions":[{"key":"a","operator":"Nope"}]}}}'
    assert apps.DEPLOYMENTS.row(bad).cells[7] == "<invalid>"
    assert apps.REPLICA_SETS.row(bad).cells[7] == "<error>"
