"""The events group's strategies: no rules of its own are ported yet (upstream: pkg/registry/events/)."""

from __future__ import annotations

from apiserver.registry.strategy import NO_RULES, Strategy

STRATEGIES: dict[str, Strategy] = {"Event": NO_RULES}
