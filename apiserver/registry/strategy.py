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
from apiserver.registry.hooks import (
    AfterWrite,
    BeginCreate,
    BeginUpdate,
    Cluster,
    Decorate,
    JudgeInCluster,
    Request,
    UpdateWrite,
)
from apiserver.registry.meta import NameRule, subdomain_name

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
    status_keeps_metadata: bool  # /status resets all of metadata (an APIService's)
    generation_field: str  # what a change of bumps metadata.generation
    returns_deleted_object: bool  # DELETE answers with the object rather than a Status
    allocation_attempts: int  # tries of a create that allocates from ranges other servers share
    creates_on_update: bool  # a PUT of a missing object creates it (AllowCreateOnUpdate)
    creates_binding: bool  # a create binds the pod it names (upstream's LegacyBindingREST)
    deletes_contents: bool  # deleting it deletes what it holds, at once (the namespace controller's part)
    # Its spec holds finalizers of its own (a Namespace's): deleting, it goes on an update only once they
    # are gone too (ShouldDeleteNamespaceDuringUpdate).
    spec_finalizers: bool
    scale_selector_is_map: bool  # the selector /scale reports is a plain label map (core/v1's)
    kube_finalizers: bool  # a bare finalizer name must be a standard one (core's ValidateObjectMeta)
    checks_generate_name: bool  # generateName is judged too (not under ValidateObjectMetaWithOpts)
    suffixes_generated_names: bool  # generateName gets 5 random characters (IPAddresses' generator adds none)
    orphans_by_default: bool  # a delete naming no propagation orphans dependents (DefaultGarbageCollectionPolicy)
    invalid_group: str | None  # the group a 422 names when not the URL's: the internal type's (events.k8s.io's core)

    @property
    def name_rule(self) -> NameRule:
        """The ValidateNameFunc its metadata.name (and generateName) is held to."""

    @property
    def name_rule_of(self) -> Callable[[Obj], NameRule] | None:
        """A name rule that reads the object (an APIService is named `version.group`); None: `name_rule`."""

    @property
    def reset_fields(self) -> tuple[tuple[str | None, tuple[tuple[str, ...], ...]], ...]:
        """GetResetFields where it is not the usual (status; /status: spec): (subresource, None for the
        main resource; the managedFields paths a write there never owns)."""

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
    def validate_subresource_update(self) -> Callable[[str, Obj, Obj], list[FieldError]]:
        """The /status (or /approval) strategy's ValidateUpdate (subresource, new, old), after its prepare."""

    @property
    def validate_subresource_in_cluster(self) -> JudgeInCluster:
        """The rules of the subresource strategy's ValidateUpdate that read other objects or ask the
        authorizer (subresource, the prepared new object, old, request, cluster): found before the rest
        and answered with them in one 422."""

    @property
    def deletion_grace(self) -> Callable[[Obj, int | None], int] | None:
        """CheckGracefulDelete: seconds a deletion waits (obj, the grace period asked for); None where the
        kind's strategy is no RESTGracefulDeleteStrategy (its deletions are never graceful)."""

    @property
    def marks_on_delete(self) -> Callable[[Obj, str], None] | None:
        """A storage's own Delete whose first request only marks the object (obj, now: a CRD's deletion
        timestamp, cleanup finalizer and Terminating condition), leaving the rest to a controller; None:
        the generic delete."""

    # The storage hooks (see `hooks.py`), which read and write other objects through a Cluster.
    @property
    def begin_create(self) -> BeginCreate:
        """Before admission; returns the revision what it read was read at (None: read nothing)."""

    @property
    def begin_update(self) -> BeginUpdate:
        """Before the update strategy, on the main resource: what the storage keeps from old or allocates."""

    @property
    def decorate(self) -> Decorate:
        """What the server's own controllers write at once into a created or updated object's status."""

    @property
    def before_create_write(self) -> AfterWrite:
        """Writes other objects the created one needs first (not on a dry run)."""

    @property
    def before_update_write(self) -> UpdateWrite:
        """Writes (and removes) other objects an updated one needs first (new, old; not on a dry run)."""

    @property
    def after_create(self) -> AfterWrite:
        """AfterCreate: what follows the object's creation in other objects."""

    @property
    def after_delete(self) -> AfterWrite:
        """AfterDelete: what follows the object's removal in other objects."""

    @property
    def validate(self) -> Callable[[Obj], list[FieldError]]:
        """Validate: what is wrong with an object being created (its metadata aside)."""

    @property
    def validate_in_cluster(self) -> Callable[[Obj, Cluster], list[FieldError]]:
        """The rules of Validate that read other objects (upstream's strategies that hold a client), found
        before the rest and answered with them in one 422."""

    @property
    def authorize_valid(self) -> Callable[[Obj, Obj | None, Request, Cluster], list[FieldError]]:
        """What a write of an otherwise valid object (new, old or None on a create) must also pass that asks
        the authorizer (upstream's admission-policy strategies), found only when nothing else is wrong."""

    @property
    def validate_update(self) -> Callable[[Obj, Obj], list[FieldError]]:
        """ValidateUpdate (new, old): the object's own rules and the update's."""

    @property
    def warnings_on_prepare_create(self) -> Callable[[Obj], list[str]]:
        """What PrepareForCreate warns of itself, from the object before it is prepared."""

    @property
    def warnings_on_create(self) -> Callable[[Obj], list[str]]:
        """WarningsOnCreate: what a valid object is told about itself (the texts of 299 Warning headers)."""

    @property
    def warnings_on_update(self) -> Callable[[Obj, Obj], list[str]]:
        """WarningsOnUpdate (new, old)."""

    @property
    def warnings_on_subresource_update(self) -> Callable[[str, Obj, Obj], list[str]]:
        """The /status (or other subresource) strategy's WarningsOnUpdate (subresource, new, old)."""

    @property
    def warnings_on_delete(self) -> Callable[[Obj], list[str]]:
        """What the kind's storage warns of a delete, from its DeleteOptions (found or not)."""

    @property
    def refuses_delete(self) -> Callable[[str], str | None]:
        """The kind's storage refusing to delete an object by its name (found or not): why, or None."""


def _nothing(obj: Obj) -> None:
    return None


def _nothing_on_update(new: Obj, old: Obj) -> None:
    return None


def _nothing_on_status(new: Obj, old: Obj, now: str) -> None:
    return None


def _begin_nothing(obj: Obj, request: Request, cluster: Cluster) -> int | None:
    return None


def _begin_update_nothing(new: Obj, old: Obj, request: Request, cluster: Cluster) -> None:
    return None


def _decorate_nothing(obj: Obj, old: Obj | None, cluster: Cluster, now: str) -> None:
    return None


async def _write_nothing(obj: Obj, cluster: Cluster, now: str) -> None:
    return None


async def _update_write_nothing(new: Obj, old: Obj, cluster: Cluster, now: str) -> None:
    return None


def _no_errors(obj: Obj) -> list[FieldError]:
    return []


def _no_errors_in_cluster(obj: Obj, cluster: Cluster) -> list[FieldError]:
    return []


def _nothing_to_authorize(new: Obj, old: Obj | None, request: Request, cluster: Cluster) -> list[FieldError]:
    return []


def _no_warnings(obj: Obj) -> list[str]:
    return []


def _deletable(name: str) -> str | None:
    return None


def _no_update_warnings(new: Obj, old: Obj) -> list[str]:
    return []


def _no_subresource_warnings(subresource: str, new: Obj, old: Obj) -> list[str]:
    return []


def _no_subresource_errors(subresource: str, new: Obj, old: Obj) -> list[FieldError]:
    return []


def _no_subresource_errors_in_cluster(subresource: str, new: Obj, old: Obj, request: Request,
                                      cluster: Cluster) -> list[FieldError]:
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
    deletion_grace: Callable[[Obj, int | None], int] | None = None
    marks_on_delete: Callable[[Obj, str], None] | None = None
    begin_create: BeginCreate = _begin_nothing
    begin_update: BeginUpdate = _begin_update_nothing
    decorate: Decorate = _decorate_nothing
    before_create_write: AfterWrite = _write_nothing
    before_update_write: UpdateWrite = _update_write_nothing
    after_create: AfterWrite = _write_nothing
    after_delete: AfterWrite = _write_nothing
    validate: Callable[[Obj], list[FieldError]] = _no_errors
    validate_in_cluster: Callable[[Obj, Cluster], list[FieldError]] = _no_errors_in_cluster
    authorize_valid: Callable[[Obj, Obj | None, Request, Cluster], list[FieldError]] = _nothing_to_authorize
    validate_update: Callable[[Obj, Obj], list[FieldError]] = _as_created
    warnings_on_prepare_create: Callable[[Obj], list[str]] = _no_warnings
    warnings_on_create: Callable[[Obj], list[str]] = _no_warnings
    warnings_on_update: Callable[[Obj, Obj], list[str]] = _no_update_warnings
    warnings_on_subresource_update: Callable[[str, Obj, Obj], list[str]] = _no_subresource_warnings
    warnings_on_delete: Callable[[Obj], list[str]] = _no_warnings
    refuses_delete: Callable[[str], str | None] = _deletable
    validate_subresource_update: Callable[[str, Obj, Obj], list[FieldError]] = _no_subresource_errors
    validate_subresource_in_cluster: JudgeInCluster = _no_subresource_errors_in_cluster
    keeps_status_on_create: bool = False
    status_keeps_labels: bool = False
    status_keeps_metadata: bool = False
    generation_field: str = "spec"
    returns_deleted_object: bool = False
    allocation_attempts: int = 1
    creates_on_update: bool = False
    creates_binding: bool = False
    deletes_contents: bool = False
    spec_finalizers: bool = False
    scale_selector_is_map: bool = False
    kube_finalizers: bool = True
    checks_generate_name: bool = True
    suffixes_generated_names: bool = True
    orphans_by_default: bool = False
    invalid_group: str | None = None
    name_rule: NameRule = subdomain_name
    name_rule_of: Callable[[Obj], NameRule] | None = None
    reset_fields: tuple[tuple[str | None, tuple[tuple[str, ...], ...]], ...] = ()

    def __post_init__(self) -> None:
        if self.validate_update is _as_created:
            validate = self.validate
            object.__setattr__(self, "validate_update", lambda new, old: validate(new))


NO_RULES = KindStrategy()
