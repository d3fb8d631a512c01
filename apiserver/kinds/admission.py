"""The default admission plugins whose effect depends on other stored objects: Priority,
DefaultIngressClass and DefaultStorageClass.

On create only. A pod's priority comes from the PriorityClass it names (403 if there is none), else from
the class marked globalDefault (the lowest value if several), else 0; a priority or preemption policy
the pod states itself must agree with it. When the client named no class, an Ingress gets the
IngressClass annotated `ingressclass.kubernetes.io/is-default-class: "true"` and a PersistentVolumeClaim
the StorageClass annotated `storageclass.kubernetes.io/is-default-class` (or its beta spelling) "true";
with several defaults the newest wins, a tie going to the first name, as upstream's getDefaultClass
sorts them. The plugins that need nothing but the object itself are in defaults.admit.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from apiserver.errors import ApiError

Obj = dict[str, Any]
# Decoded objects stored under a storage key ("networking.k8s.io/ingressclasses"); None when this server
# does not serve that resource.
Lister = Callable[[str], Iterable[Obj] | None]

_DEFAULT_INGRESS_CLASS = "ingressclass.kubernetes.io/is-default-class"
_LEGACY_INGRESS_CLASS = "kubernetes.io/ingress.class"
_DEFAULT_STORAGE_CLASS = ("storageclass.kubernetes.io/is-default-class",
                          "storageclass.beta.kubernetes.io/is-default-class")
_BETA_CLAIM_CLASS = "volume.beta.kubernetes.io/storage-class"
_PREEMPT = "PreemptLowerPriority"


def admit_create(kind: str, obj: Obj, stored: Lister) -> None:
    if kind == "Pod":
        _priority(obj, stored)
    elif kind == "Ingress":
        _default_ingress_class(obj, stored)
    elif kind == "PersistentVolumeClaim":
        _default_storage_class(obj, stored)


def _priority(pod: Obj, stored: Lister) -> None:
    spec = pod.setdefault("spec", {})
    served = stored("scheduling.k8s.io/priorityclasses")
    classes = list(served or ())
    wanted = spec.get("priorityClassName") or ""
    if wanted and served is not None:
        found = next((c for c in classes if c["metadata"]["name"] == wanted), None)
        if found is None:
            raise _forbidden(pod, f"no PriorityClass with name {wanted} was found")
        value, policy = int(found.get("value") or 0), found.get("preemptionPolicy") or _PREEMPT
    else:
        defaults = [c for c in classes if c.get("globalDefault") is True]
        chosen = min(defaults, key=lambda c: int(c.get("value") or 0), default=None)
        value, policy = (0, _PREEMPT) if chosen is None else (int(chosen.get("value") or 0),
                                                                chosen.get("preemptionPolicy") or _PREEMPT)
        if chosen is not None:
            spec["priorityClassName"] = chosen["metadata"]["name"]
    stated = spec.get("priority")
    if stated is not None and stated != value:
        raise _forbidden(pod, f"the integer value of priority ({stated}) must not be provided in pod spec; priority "
                              f"admission controller computed {value} from the given PriorityClass name")
    spec["priority"] = value
    stated_policy = spec.get("preemptionPolicy")
    if stated_policy is not None and stated_policy != policy:
        raise _forbidden(pod, f"the string value of PreemptionPolicy ({stated_policy}) must not be provided in pod "
                              f"spec; priority admission controller computed {policy} from the given PriorityClass name")
    spec["preemptionPolicy"] = policy


def _forbidden(pod: Obj, why: str) -> ApiError:
    # admission.NewForbidden names the object by its name, else its generateName, before either is final.
    meta = pod["metadata"]
    name = meta.get("name") or meta.get("generateName") or "Unknown"
    return ApiError(403, "Forbidden", f'pods "{name}" is forbidden: {why}', {"name": name, "kind": "pods"})


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
