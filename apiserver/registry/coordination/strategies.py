"""The coordination group's strategies: no rules of its own are ported yet (upstream: pkg/registry/coordination/)."""

from __future__ import annotations

from apiserver.registry.strategy import NO_RULES, Strategy

STRATEGIES: dict[str, Strategy] = {"Lease": NO_RULES}
