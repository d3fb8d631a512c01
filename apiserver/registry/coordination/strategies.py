"""The coordination group's strategies: no rules of its own are ported yet (upstream: pkg/registry/coordination/)."""

from __future__ import annotations

from apiserver.registry.strategy import KindStrategy, Strategy

# Metadata is judged by apimachinery's ValidateObjectMeta, without core's finalizer-name rule.
STRATEGIES: dict[str, Strategy] = {"Lease": KindStrategy(kube_finalizers=False)}
