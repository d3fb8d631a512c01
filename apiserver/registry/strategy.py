"""The seam between the generic write path and a kind's own rules: one Strategy per kind.

The write path (`kinds/objects.py`, `http/endpoint.py`) asks `strategy_for(rt)` and calls the hooks
below in upstream's order, without knowing which kind it holds. Each API group's package
(`registry/<group>/`) declares its kinds' strategies next to their defaulting and validation, as
upstream's `pkg/registry/<group>/<kind>/strategy.go` calls `pkg/apis/<group>/v1/defaults.go` and
`pkg/apis/<group>/validation/validation.go`; a kind without rules of its own gets `NO_RULES`, and
custom resources keep their own path (`ResourceType.custom`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol

from apiserver.errors import FieldError

Obj = dict[str, Any]
Change = Callable[[Obj], None]
UpdateChange = Callable[[Obj, Obj], None]
StatusChange = Callable[[Obj, Obj, str], None]


class Strategy(Protocol):
    """What the write path asks of a kind, hook by hook, in the order it asks.

    Hooks change the decoded object in place; `validate*` return every FieldError in upstream's order."""

    # Facts the generic path reads (upstream: the strategy's methods of the same meaning).
    keeps_status_on_create: bool  # a create may set status (a Node's); else status is /status's to write
    status_keeps_labels: bool  # /status resets metadata.labels too (GetResetFields)
    generation_field: str  # what a change of bumps metadata.generation
    returns_deleted_object: bool  # DELETE answers with the object rather than a Status

    @property
    def decode(self) -> Change:
        """What decoding a body does before defaulting (conversion: a Secret's stringData)."""

    @property
    def default(self) -> Change:
        """SetDefaults_* (v1/defaults.go): on every write, as upstream decodes every body through them."""

    @property
    def own_on_create(self) -> Change:
        """Create-time fields set before managed fields are taken, so the creator owns them."""

    @property
    def prepare_for_create(self) -> Change:
        """PrepareForCreate and the admission plugins that read nothing else: after managed fields."""

    @property
    def keep_on_update(self) -> UpdateChange:
        """What an update of the main resource cannot change, restored from old before anything else."""

    @property
    def prepare_for_update(self) -> UpdateChange:
        """PrepareForUpdate: after managed fields, before validation."""

    @property
    def prepare_for_status_update(self) -> StatusChange:
        """The status strategy's PrepareForUpdate, before managed fields (new, old, now)."""

    @property
    def after_status_update(self) -> StatusChange:
        """What the status strategy and the next decode add after managed fields (new, old, now)."""

    @property
    def validate(self) -> Callable[[Obj], list[FieldError]]:
        """Validate: what is wrong with an object being created (its metadata aside)."""

    @property
    def validate_update(self) -> Callable[[Obj, Obj], list[FieldError]]:
        """ValidateUpdate (new, old): the object's own rules and the update's."""


def _nothing(obj: Obj) -> None:
    return None


def _nothing_on_update(new: Obj, old: Obj) -> None:
    return None


def _nothing_on_status(new: Obj, old: Obj, now: str) -> None:
    return None


def _no_errors(obj: Obj) -> list[FieldError]:
    return []


def _as_created(new: Obj, old: Obj) -> list[FieldError]:
    """Stands for "judge the new object as `validate` does"; replaced by that when the strategy is made."""
    raise AssertionError("replaced in KindStrategy.__post_init__")


@dataclass(frozen=True)
class KindStrategy:
    """A built-in kind's rules, declared once in its group's `strategies.py`; what it leaves out does nothing.

    Without `validate_update`, an update is judged as `validate` judges the new object."""

    decode: Change = _nothing
    default: Change = _nothing
    own_on_create: Change = _nothing
    prepare_for_create: Change = _nothing
    keep_on_update: UpdateChange = _nothing_on_update
    prepare_for_update: UpdateChange = _nothing_on_update
    prepare_for_status_update: StatusChange = _nothing_on_status
    after_status_update: StatusChange = _nothing_on_status
    validate: Callable[[Obj], list[FieldError]] = _no_errors
    validate_update: Callable[[Obj, Obj], list[FieldError]] = _as_created
    keeps_status_on_create: bool = False
    status_keeps_labels: bool = False
    generation_field: str = "spec"
    returns_deleted_object: bool = False

    def __post_init__(self) -> None:
        if self.validate_update is _as_created:
            validate = self.validate
            object.__setattr__(self, "validate_update", lambda new, old: validate(new))


NO_RULES = KindStrategy()
