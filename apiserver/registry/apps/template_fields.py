"""pkg/api/pod's DropDisabledTemplateFields as the workload strategies call it: the pod template of a
Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or CronJob loses the fields of features off at 1.36
in PrepareForCreate, and in PrepareForUpdate unless the old template used them. It runs before the
update's generation compare, so a dropped field is no change of the spec."""

from __future__ import annotations

from typing import Any

from apiserver.registry.core import pod_fields

Obj = dict[str, Any]


def _template_spec(obj: Obj | None, path: tuple[str, ...]) -> Any:
    node: Any = obj
    for key in (*path, "spec"):
        node = node.get(key) if isinstance(node, dict) else None
    return node


def drop_on_create(obj: Obj, path: tuple[str, ...]) -> None:
    """DropDisabledTemplateFields(template at `path`, nil)."""
    pod_fields.drop_disabled_pod_fields(_template_spec(obj, path))


def drop_on_update(new: Obj, old: Obj, path: tuple[str, ...]) -> None:
    """DropDisabledTemplateFields(new's template at `path`, old's)."""
    pod_fields.drop_disabled_pod_fields(_template_spec(new, path), _template_spec(old, path))
