"""Deletion propagation: the finalizers a delete leaves for the garbage collector, as upstream's registry does.

`Orphan` (or `orphanDependents: true`) holds the object with the `orphan` finalizer until the
collector has taken its ownerReferences off the dependents; `Foreground` holds it with
`foregroundDeletion` until the dependents that block their owner's deletion are gone; `Background`
(the default of every served group) deletes at once and leaves the dependents to the collector.
"""

from __future__ import annotations

from typing import Any


from apiserver import errors
from apiserver.registry import options_validation

ORPHAN = "orphan"
FOREGROUND = "foregroundDeletion"
_POLICIES = ("Foreground", "Background", "Orphan")


def check_options(options: dict[str, Any]) -> None:
    """ValidateDeleteOptions' rules on propagation and dry-run."""
    policy = options.get("propagationPolicy")
    problems: list[errors.FieldError] = []
    if policy is not None and options.get("orphanDependents") is not None:
        problems.append(errors.FieldError("FieldValueInvalid", "propagationPolicy",
                                          f'Invalid value: "{policy}": orphanDependents and deletionPropagation '
                                          f"cannot be both set"))
    if policy is not None and policy not in _POLICIES:
        supported = ", ".join(f'"{p}"' for p in (*_POLICIES, "nil"))
        problems.append(errors.FieldError("FieldValueNotSupported", "propagationPolicy",
                                          f'Unsupported value: "{policy}": supported values: {supported}'))
    problems += options_validation.dry_run(options.get("dryRun") or [])
    if problems:
        raise errors.invalid("DeleteOptions", "meta.k8s.io", "", problems)


def finalizers_after_delete(meta: dict[str, Any], options: dict[str, Any],
                            orphans_by_default: bool = False) -> list[str] | None:
    """The object's finalizers as the delete leaves them, or None when they stay as they are.

    With neither options nor finalizers saying, the kind's default decides (a batch/v1 Job orphans)."""
    current: list[str] = list(meta.get("finalizers") or ())
    policy = options.get("propagationPolicy")
    orphan_flag = options.get("orphanDependents")
    if policy is not None:
        orphan, foreground = policy == "Orphan", policy == "Foreground"
    elif orphan_flag is not None:
        orphan, foreground = bool(orphan_flag), False
    else:
        orphan = ORPHAN in current or (orphans_by_default and FOREGROUND not in current)
        foreground = not orphan and FOREGROUND in current
    return _with_propagation(current, orphan, foreground)


def namespace_finalizers_after_delete(meta: dict[str, Any], options: dict[str, Any]) -> list[str] | None:
    """The namespace storage's own rule (shouldHaveOrphanFinalizer, shouldHaveDeleteDependentsFinalizer):
    orphanDependents decides before propagationPolicy, and without either the finalizers stay."""
    current: list[str] = list(meta.get("finalizers") or ())
    orphan_flag, policy = options.get("orphanDependents"), options.get("propagationPolicy")
    if orphan_flag is not None:
        orphan, foreground = bool(orphan_flag), not orphan_flag
    elif policy is not None:
        orphan, foreground = policy == "Orphan", policy == "Foreground"
    else:
        return None
    return _with_propagation(current, orphan, foreground)


def _with_propagation(current: list[str], orphan: bool, foreground: bool) -> list[str] | None:
    """The finalizers with the orphan and foreground ones as decided; None when that changes nothing."""
    wanted = [f for f in current if f not in (ORPHAN, FOREGROUND)]
    if orphan:
        wanted.append(ORPHAN)
    if foreground:
        wanted.append(FOREGROUND)
    return None if set(wanted) == set(current) else wanted
