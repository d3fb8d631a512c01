"""RuntimeClass (plugin/pkg/admission/runtimeclass): a created pod that names a RuntimeClass gets the
class's pod overhead and scheduling constraints.

Mutating: the class must exist (403 otherwise); its `overhead.podFixed` becomes the pod's
`spec.overhead` (a pod that states a different one is refused); its `scheduling.nodeSelector` is
merged into the pod's (a key the pod sets to another value is refused) and its tolerations merged
with the pod's, dropping those another one covers (pkg/util/tolerations.MergeTolerations).
Validating: a pod's overhead must be its class's, and a pod without a class with an overhead states none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from apiserver.admissionplugins.request import Obj, Request
from apiserver.kinds import quantity

Lookup = Callable[[str], Obj | None]


def applies(request: Request) -> bool:
    return (request.operation == "CREATE" and not request.group and request.resource == "pods"
            and not request.subresource and request.obj is not None)


def _class_of(request: Request, lookup: Lookup) -> Obj | None:
    assert request.obj is not None
    name = (request.obj.get("spec") or {}).get("runtimeClassName")
    if name is None:
        return None
    found = lookup(str(name))
    if found is None:
        raise request.forbidden(f'pod rejected: RuntimeClass "{name}" not found')
    return found


def _same_resources(a: Any, b: Any) -> bool:
    a, b = a or {}, b or {}
    return a.keys() == b.keys() and all(quantity.parse(a[k]).value == quantity.parse(b[k]).value for k in a)


def mutate(request: Request, lookup: Lookup) -> None:
    if not applies(request):
        return
    runtime_class = _class_of(request, lookup)
    if runtime_class is None:
        return
    assert request.obj is not None
    spec = request.obj.setdefault("spec", {})
    fixed = (runtime_class.get("overhead") or {}).get("podFixed")
    if runtime_class.get("overhead") is not None:
        if spec.get("overhead") and not _same_resources(fixed, spec["overhead"]):
            raise request.forbidden("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
        if fixed:
            spec["overhead"] = dict(fixed)
        else:
            spec.pop("overhead", None)
    scheduling = runtime_class.get("scheduling")
    if scheduling is None:
        return
    selector = dict(scheduling.get("nodeSelector") or {})
    if spec.get("nodeSelector") is not None:
        merged = dict(spec["nodeSelector"])
        for key, value in selector.items():
            if key in merged and merged[key] != value:
                raise request.forbidden(f"conflict: runtimeClass.scheduling.nodeSelector[{key}] = {value}; "
                                        f"pod.spec.nodeSelector[{key}] = {merged[key]}")
            merged[key] = value
        selector = merged
    if selector:
        spec["nodeSelector"] = selector
    tolerations = merge_tolerations(list(spec.get("tolerations") or ()), list(scheduling.get("tolerations") or ()))
    if tolerations:
        spec["tolerations"] = tolerations
    else:
        spec.pop("tolerations", None)


def validate(request: Request, lookup: Lookup) -> None:
    if not applies(request):
        return
    runtime_class = _class_of(request, lookup)
    assert request.obj is not None
    overhead = (request.obj.get("spec") or {}).get("overhead")
    if runtime_class is not None and runtime_class.get("overhead") is not None:
        if not _same_resources((runtime_class["overhead"] or {}).get("podFixed"), overhead):
            raise request.forbidden("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
    elif overhead is not None:
        raise request.forbidden("pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead")


def merge_tolerations(first: list[Obj], second: list[Obj]) -> list[Obj]:
    every = first + second
    merged: list[Obj] = []
    for i, toleration in enumerate(every):
        if any(_covers(kept, toleration) for kept in merged):
            continue
        if any(later != toleration and _covers(later, toleration) for later in every[i + 1:]):
            continue
        merged.append(toleration)
    return merged


def _covers(wider: Obj, toleration: Obj) -> bool:
    """isSuperset: `wider` tolerates everything `toleration` does."""
    if wider == toleration:
        return True
    operator = wider.get("operator") or "Equal"
    if toleration.get("key", "") != wider.get("key", "") and (wider.get("key", "") != "" or operator != "Exists"):
        return False
    if toleration.get("effect", "") != wider.get("effect", "") and wider.get("effect", ""):
        return False
    if wider.get("effect") == "NoExecute" and wider.get("tolerationSeconds") is not None:
        seconds = toleration.get("tolerationSeconds")
        if seconds is None or seconds > wider["tolerationSeconds"]:
            return False
    if operator == "Equal":
        # the tolerated one must say Equal itself: an unset operator is not Equal here, as upstream compares
        return toleration.get("operator") == "Equal" and toleration.get("value", "") == wider.get("value", "")
    return operator == "Exists"
