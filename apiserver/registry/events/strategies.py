"""The events group's strategy: pkg/registry/core/event/strategy.go, which serves events.k8s.io/v1 too.

Events are stored as core/v1 Events; a write through events.k8s.io/v1 is judged by the strict rules
of that version (see validation.py)."""

from __future__ import annotations

from apiserver.registry.events import validation
from apiserver.registry.strategy import KindStrategy, Strategy

# Upstream names the internal type in a 422: core's Event, not events.k8s.io's.
STRATEGIES: dict[str, Strategy] = {
    "Event": KindStrategy(validate=validation.validate_create, validate_update=validation.validate_update,
                          invalid_group="", creates_on_update=True),
}
