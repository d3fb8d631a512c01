"""The node group's strategies: no rules of its own are ported yet (upstream: pkg/registry/node/)."""

from __future__ import annotations

from apiserver.registry.strategy import NO_RULES, Strategy

STRATEGIES: dict[str, Strategy] = {"RuntimeClass": NO_RULES}
