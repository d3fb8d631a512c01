"""apiextensions.k8s.io/v1's strategy for CustomResourceDefinitions
(staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition/strategy.go)."""

from __future__ import annotations

from typing import Any

from apiserver.registry.apiextensions import defaults, validation
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]


def _record_stored_versions(crd: Obj) -> None:
    # The CRD strategy records the storage version; the names and conditions are the controller's.
    stored = [v.get("name") or "" for v in (crd.get("spec") or {}).get("versions") or () if v.get("storage")]
    crd["status"] = {"storedVersions": stored}


STRATEGIES: dict[str, Strategy] = {
    "CustomResourceDefinition": KindStrategy(decode=defaults.default_crd, prepare_for_create=_record_stored_versions,
                                             validate=validation.validate_crd,
                                             validate_update=validation.validate_crd_update,
                                             returns_deleted_object=True,
                                             kube_finalizers=False),
}
