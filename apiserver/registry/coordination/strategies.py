"""coordination.k8s.io's strategies: pkg/registry/coordination/lease/strategy.go."""

from __future__ import annotations

from typing import Any

from apiserver.registry.coordination import validation
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]

# The CoordinatedLeaderElection feature gate, off by default in 1.36 (beta).
_COORDINATED_LEADER_ELECTION = False
_GATED = ("strategy", "preferredHolder")


def _drop_disabled_fields(new: Obj, old: Obj | None = None) -> None:
    """Behind their gate, a lease's strategy and preferred holder are kept only where it had them."""
    spec = new.get("spec")
    if _COORDINATED_LEADER_ELECTION or not isinstance(spec, dict):
        return
    old_spec = (old or {}).get("spec") or {}
    for key in _GATED:
        if old_spec.get(key) is None:
            spec.pop(key, None)


# Metadata is judged by apimachinery's ValidateObjectMeta, without core's finalizer-name rule.
STRATEGIES: dict[str, Strategy] = {
    "Lease": KindStrategy(kube_finalizers=False, creates_on_update=True, prepare_for_create=_drop_disabled_fields,
                          prepare_for_update=_drop_disabled_fields, validate=validation.lease),
}
