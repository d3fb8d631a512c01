"""apiextensions.k8s.io/v1's strategy for CustomResourceDefinitions
(staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition/strategy.go)."""

from __future__ import annotations

from typing import Any

from apiserver import errors
from apiserver.registry.apiextensions import GROUP, defaults, validation
from apiserver.registry.meta import path_segment
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]


def _record_stored_versions(crd: Obj) -> None:
    # The CRD strategy records the storage version; the names and conditions are the controller's.
    stored = [v["name"] for v in (crd.get("spec") or {}).get("versions") or () if v.get("storage")]
    crd["status"] = {"storedVersions": stored}


def _refuse_immutable_changes(new: Obj, old: Obj) -> None:
    """Refused before anything else is judged: where the CRD's objects live cannot move under them."""
    immutable = validation.immutable_changes(new, old)
    if immutable:
        raise errors.invalid("CustomResourceDefinition", GROUP, new["metadata"].get("name", ""), immutable)


STRATEGIES: dict[str, Strategy] = {
    "CustomResourceDefinition": KindStrategy(decode=defaults.default_crd, keep_on_update=_refuse_immutable_changes,
                                             prepare_for_create=_record_stored_versions,
                                             validate=validation.validate_crd, returns_deleted_object=True,
                                             name_rule=path_segment, kube_finalizers=False),
}
