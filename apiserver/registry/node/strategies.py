"""The node group's strategies: no rules of its own are ported yet (upstream: pkg/registry/node/)."""

from __future__ import annotations

from apiserver.registry.strategy import KindStrategy, Strategy

# The reference takes a bare finalizer name on a RuntimeClass: its metadata is judged by apimachinery alone.
STRATEGIES: dict[str, Strategy] = {"RuntimeClass": KindStrategy(kube_finalizers=False)}
