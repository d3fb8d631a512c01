"""The default admission plugins whose effect depends on other stored objects: DefaultIngressClass and
DefaultStorageClass (Priority is on the admission chain: admissionplugins/priority.py).

On create only. When the client named no class, an Ingress gets the
IngressClass annotated `ingressclass.kubernetes.io/is-default-class: "true"` and a PersistentVolumeClaim
the StorageClass annotated `storageclass.kubernetes.io/is-default-class` (or its beta spelling) "true";
with several defaults the newest wins, a tie going to the first name, as upstream's getDefaultClass
sorts them. The plugins that need nothing but the object itself are in defaults.admit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

Obj = dict[str, Any]
# Decoded objects stored under a storage key ("networking.k8s.io/ingressclasses"); None when this server
# does not serve that resource.
Lister = Callable[[str], Iterable[Obj] | None]

_DEFAULT_INGRESS_CLASS = "ingressclass.kubernetes.io/is-default-class"
_LEGACY_INGRESS_CLASS = "kubernetes.io/ingress.class"
_DEFAULT_STORAGE_CLASS = ("storageclass.kubernetes.io/is-default-class",
                          "storageclass.beta.kubernetes.io/is-default-class")
_BETA_CLAIM_CLASS = "volume.beta.kubernetes.io/storage-class"


def admit_create(kind: str, obj: Obj, stored: Lister) -> None:
    if kind == "Ingress":
        _default_ingress_class(obj, stored)
    elif kind == "PersistentVolumeClaim":
        _default_storage_class(obj, stored)


def _default_ingress_class(ingress: Obj, stored: Lister) -> None:
    spec = ingress.setdefault("spec", {})
    annotations = ingress["metadata"].get("annotations") or {}
    if spec.get("ingressClassName") is not None or _LEGACY_INGRESS_CLASS in annotations:
        return
    chosen = _newest(c for c in stored("networking.k8s.io/ingressclasses") or ()
                     if (c["metadata"].get("annotations") or {}).get(_DEFAULT_INGRESS_CLASS) == "true")
    if chosen is not None:
        spec["ingressClassName"] = chosen


def _default_storage_class(claim: Obj, stored: Lister) -> None:
    spec = claim.setdefault("spec", {})
    # An explicit "" asks for no class at all, so it counts as a choice.
    if spec.get("storageClassName") is not None or _BETA_CLAIM_CLASS in (claim["metadata"].get("annotations") or {}):
        return
    chosen = _newest(c for c in stored("storage.k8s.io/storageclasses") or ()
                     if any((c["metadata"].get("annotations") or {}).get(a) == "true" for a in _DEFAULT_STORAGE_CLASS))
    if chosen is not None:
        spec["storageClassName"] = chosen


def _newest(classes: Iterable[Obj]) -> str | None:
    """The name of the newest class, the first name among those created in the same second."""
    by_name = sorted(((c["metadata"].get("creationTimestamp") or "", c["metadata"]["name"]) for c in classes),
                     key=lambda created_name: created_name[1])
    # RFC 3339 in UTC with second precision sorts as text in time order; the sort is stable, names stay ordered.
    ranked = sorted(by_name, key=lambda created_name: created_name[0], reverse=True)
    return ranked[0][1] if ranked else None
