"""apps/v1 validation: pkg/apis/apps/validation/validation.go, for the rules ported so far.

Deployments, ReplicaSets, StatefulSets and DaemonSets: a selector that picks the template's pods,
and (but for StatefulSets) one that never changes.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.core.pod_validation import pod_spec

Obj = dict[str, Any]


def workload(obj: Obj) -> list[FieldError]:
    spec = obj.get("spec") or {}
    found: list[FieldError] = []
    replicas = spec.get("replicas")
    if isinstance(replicas, int) and replicas < 0:
        found.append(field.invalid("spec.replicas", replicas, "must be greater than or equal to 0"))
    selector = spec.get("selector")
    template = spec.get("template") or {}
    labels = (template.get("metadata") or {}).get("labels") or {}
    if not selector:
        found.append(field.required("spec.selector"))
    else:
        match = selector.get("matchLabels") or {}
        if any(labels.get(k) != v for k, v in match.items()):
            found.append(field.invalid_shown("spec.template.metadata.labels", field.go_map(labels),
                                             "`selector` does not match template `labels`"))
    found.extend(pod_spec(template.get("spec"), "spec.template.spec"))
    return found


def immutable_selector(new: Obj, old: Obj) -> list[FieldError]:
    """apps/v1 and batch/v1 selectors are fixed once set: the objects they pick already exist."""
    selector = (new.get("spec") or {}).get("selector")
    if selector == (old.get("spec") or {}).get("selector"):
        return []
    return [field.invalid_shown("spec.selector", field.go_selector(selector), "field is immutable")]


def workload_update(new: Obj, old: Obj) -> list[FieldError]:
    return workload(new) + immutable_selector(new, old)
