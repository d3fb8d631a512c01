"""apiextensions.k8s.io/v1's strategy for CustomResourceDefinitions
(staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition/strategy.go)."""

from __future__ import annotations

import copy
from typing import Any

from apiserver.registry.apiextensions import defaults, deletion, validation
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]


def _storage_version(crd: Obj) -> str | None:
    """The first version marked as storage (validation refuses a CRD with more or fewer)."""
    return next(
        (
            v.get("name") or ""
            for v in (crd.get("spec") or {}).get("versions") or ()
            if isinstance(v, dict) and v.get("storage")
        ),
        None,
    )


def _record_stored_versions(crd: Obj) -> None:
    # The CRD strategy records the storage version; the names and conditions are the controller's.
    storage = _storage_version(crd)
    crd["status"] = {"storedVersions": [storage] if storage is not None else []}


def _add_stored_version(new: Obj, old: Obj) -> None:
    """PrepareForUpdate: the status is the old one, with a new storage version added to storedVersions."""
    status = copy.deepcopy(old.get("status") or {})
    storage = _storage_version(new)
    stored = status.setdefault("storedVersions", [])
    if storage is not None and storage not in stored:
        stored.append(storage)
    new["status"] = status


def _named_by_validate(name: str, prefix: bool) -> list[str]:
    """A CRD's name rule reads its spec, so `validation.name_rule` applies it."""
    return []


STRATEGIES: dict[str, Strategy] = {
    "CustomResourceDefinition": KindStrategy(
        decode=defaults.default_crd,
        prepare_for_create=_record_stored_versions,
        prepare_for_update=_add_stored_version,
        validate=validation.validate_crd,
        validate_update=validation.validate_crd_update,
        returns_deleted_object=True,
        marks_on_delete=deletion.mark_for_cleanup,
        name_rule=_named_by_validate,
        kube_finalizers=False,
    ),
}
