"""The apps printers against the cells a real kube-apiserver 1.36.2 printed for the same objects."""

from __future__ import annotations

from columns_golden import cells

from columns import apps


def test_deployment_selector_is_empty_when_unset_and_invalid_when_wrong() -> None:
    assert apps.DEPLOYMENTS.row(b"{}").cells[7] == ""
    bad = b'{"spec":{"selector":{"matchExpressions":[{"key":"a","operator":"Nope"}]}}}'
    assert apps.DEPLOYMENTS.row(bad).cells[7] == "<invalid>"
    assert apps.REPLICA_SETS.row(bad).cells[7] == "<error>"


def test_controller_revision_names_its_controlling_owner() -> None:
    def controller(owners: list[dict[str, object]]) -> object:
        return cells(apps.CONTROLLER_REVISIONS, {"metadata": {"ownerReferences": owners}})[1]

    pod = {"apiVersion": "v1", "kind": "Pod", "name": "p", "controller": True}
    assert controller([pod]) == "pod/p"
    assert controller([{**pod, "controller": False}]) == "<none>"
    assert controller([{"apiVersion": "example.com/v1", "kind": "Widget", "name": "w", "controller": True}]) == \
        "widget.example.com/w"
