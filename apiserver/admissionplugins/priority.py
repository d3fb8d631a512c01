"""The Priority plugin (plugin/pkg/admission/priority): both its halves, so that disabling it turns off both.

Admit, for a pod (not its subresources): on create its priority comes from the PriorityClass it names
(403 if there is none), else from the class marked globalDefault (the lowest value if several), else 0
with PreemptLowerPriority; a priority or preemption policy the pod states itself must agree with it. On
update a priority or policy the new pod leaves out is given back from the old one (validation would
refuse the change). Validate, for a PriorityClass: one class at most is the global default.
"""

from __future__ import annotations

from collections.abc import Iterable

from apiserver.admissionplugins.request import Obj, Request

_PREEMPT = "PreemptLowerPriority"


def applies(request: Request) -> bool:
    """What either half looks at: a pod or a PriorityClass being created or updated."""
    return request.operation in ("CREATE", "UPDATE") and not request.subresource and \
        (request.group, request.resource) in (("", "pods"), ("scheduling.k8s.io", "priorityclasses"))


def _default_class(classes: Iterable[Obj]) -> Obj | None:
    """getDefaultPriorityClass: the lowest valued of the global defaults, should a race have made two."""
    current: Obj | None = None
    for found in classes:
        if found.get("globalDefault") is True and (current is None or
                                                   int(current.get("value") or 0) > int(found.get("value") or 0)):
            current = found
    return current


def admit_pod(request: Request, classes: Iterable[Obj]) -> None:
    """admitPod: resolves a new pod's priority, keeps an updated pod's."""
    if (request.group, request.resource) != ("", "pods") or request.obj is None:
        return
    spec = request.obj.setdefault("spec", {})
    if request.operation == "UPDATE":
        old_spec = (request.old or {}).get("spec") or {}
        for key in ("priority", "preemptionPolicy"):
            if spec.get(key) is None and old_spec.get(key) is not None:
                spec[key] = old_spec[key]
        return
    wanted = spec.get("priorityClassName") or ""
    if wanted:
        chosen = next((c for c in classes if c["metadata"]["name"] == wanted), None)
        if chosen is None:
            raise request.forbidden(f"no PriorityClass with name {wanted} was found")
    else:
        chosen = _default_class(classes)
    value = 0 if chosen is None else int(chosen.get("value") or 0)
    policy = _PREEMPT if chosen is None else chosen.get("preemptionPolicy")
    if chosen is not None:
        spec["priorityClassName"] = chosen["metadata"]["name"]
    stated = spec.get("priority")
    if stated is not None and stated != value:
        raise request.forbidden(f"the integer value of priority ({stated}) must not be provided in pod spec; "
                                f"priority admission controller computed {value} from the given PriorityClass name")
    spec["priority"] = value
    if policy is not None:
        stated_policy = spec.get("preemptionPolicy")
        if stated_policy is not None and stated_policy != policy:
            raise request.forbidden(f"the string value of PreemptionPolicy ({stated_policy}) must not be provided "
                                    f"in pod spec; priority admission controller computed {policy} from the given "
                                    "PriorityClass name")
        spec["preemptionPolicy"] = policy


def check_single_default(request: Request, classes: Iterable[Obj]) -> None:
    """validatePriorityClass: a class made the default while another one is."""
    if (request.group, request.resource) != ("scheduling.k8s.io", "priorityclasses") or request.obj is None \
            or request.obj.get("globalDefault") is not True:
        return
    current = _default_class(classes)
    if current is None:
        return
    name = current["metadata"]["name"]
    if request.operation == "CREATE" or name != (request.obj.get("metadata") or {}).get("name"):
        raise request.forbidden(f"PriorityClass {name} is already marked as default. Only one default can exist")
