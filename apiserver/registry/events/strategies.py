"""The events group's strategy: pkg/registry/core/event/strategy.go, which serves events.k8s.io/v1 too.

Events are stored as core/v1 Events; a write through events.k8s.io/v1 is judged by the strict rules
of that version (see validation.py)."""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry.events import validation
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]


def _validate(obj: Obj) -> list[FieldError]:
    return validation.validate_create(obj, validation.EVENTS_V1)


def _validate_update(new: Obj, old: Obj) -> list[FieldError]:
    return validation.validate_update(new, old, validation.EVENTS_V1)


# Upstream names the internal type in a 422: core's Event, not events.k8s.io's.
STRATEGIES: dict[str, Strategy] = {
    "Event": KindStrategy(validate=_validate, validate_update=_validate_update, invalid_group="",
                          creates_on_update=True),
}
