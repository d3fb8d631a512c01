"""node.k8s.io/v1 validation: pkg/apis/node/validation/validation.go, and the parts of core's validation
it calls (ValidateContainerResourceRequirements for the overhead's limits, ValidateTolerations).

Metadata is judged by apimachinery's ValidateObjectMeta alone (no finalizer-name rule); feature gates at
1.36 defaults (TaintTolerationComparisonOperators is alpha, off: Lt and Gt are refused).
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import quantity
from apiserver.kinds.validation import dns1123_label, qualified_name
from apiserver.registry import field
from apiserver.registry.core.pod_validation import tolerations
from apiserver.registry.meta import labels

Obj = dict[str, Any]

_STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD_RESOURCES = _STANDARD_CONTAINER_RESOURCES | frozenset({
    "requests.cpu", "requests.memory", "requests.ephemeral-storage", "limits.cpu", "limits.memory",
    "limits.ephemeral-storage", "pods", "resourcequotas", "services", "replicationcontrollers", "secrets",
    "persistentvolumeclaims", "configmaps", "services.nodeports", "services.loadbalancers", "requests.storage"})
_INTEGER_RESOURCES = frozenset({"pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
                                "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"})
_HUGE_PAGES = "hugepages-"


def _native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _extended(name: str) -> bool:
    """IsExtendedResourceName: outside kubernetes.io, and a qualified name as a quota's requests.<name>."""
    return not _native(name) and not name.startswith("requests.") and not qualified_name("requests." + name)


def _container_resource_name(name: str, path: str) -> list[FieldError]:
    """validateContainerResourceName (after validateResourceName)."""
    found = [field.invalid(path, name, msg) for msg in qualified_name(name)]
    if not found and "/" not in name and name not in _STANDARD_RESOURCES and \
            not name.startswith((_HUGE_PAGES, "requests.hugepages-")):
        found.append(field.invalid(path, name, "must be a standard resource type or fully qualified"))
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not name.startswith(_HUGE_PAGES):
            found.append(field.invalid(path, name, "must be a standard resource for containers"))
    elif not _native(name) and not _extended(name):
        found.append(field.invalid(path, name, "doesn't follow extended resource name standard"))
    return found


def _huge_page_divisible(name: str, amount: quantity.Quantity) -> bool:
    try:
        page = quantity.parse(name[len(_HUGE_PAGES):])
    except quantity.QuantityError:
        return False
    if page.value <= 0 or page.milli_value() % 1000:
        return False
    return amount.int_value() % page.int_value() == 0


def overhead(limits: Obj, path: str) -> list[FieldError]:
    """ValidateContainerResourceRequirements of {limits: overhead.podFixed}: names, amounts, huge pages."""
    found: list[FieldError] = []
    cpu_or_memory = huge_pages = False
    for name, written in limits.items():
        at = f"{path}[{name}]"
        found += _container_resource_name(name, at)
        try:
            amount = quantity.parse(written)
        except quantity.QuantityError:
            continue  # refused when decoded
        if amount.value < 0:
            found.append(field.invalid(at, str(amount), "must be greater than or equal to 0"))
        if (name in _INTEGER_RESOURCES or _extended(name)) and amount.milli_value() % 1000:
            found.append(field.invalid(at, str(amount), "must be an integer"))
        if name.startswith(_HUGE_PAGES):
            huge_pages = True
            if not _huge_page_divisible(name, amount):
                found.append(field.invalid(at, str(amount), f"{amount} is not positive integer multiple of {name}"))
        cpu_or_memory = cpu_or_memory or name in ("cpu", "memory")
    if huge_pages and not cpu_or_memory:
        found.append(field.forbidden(path.rsplit(".", 1)[0], "HugePages require cpu or memory"))
    return found


def _toleration_json(toleration: Obj) -> str:
    # The internal Toleration has no json tags: Go's field names, every field written.
    return field.go_json({"Key": str(toleration.get("key") or ""), "Operator": str(toleration.get("operator") or ""),
                          "Value": str(toleration.get("value") or ""), "Effect": str(toleration.get("effect") or ""),
                          "TolerationSeconds": toleration.get("tolerationSeconds")})


def _scheduling(scheduling: Obj) -> list[FieldError]:
    """validateScheduling: node selector labels, tolerations valid and unique by key, operator, value, effect."""
    found: list[FieldError] = []
    if scheduling.get("nodeSelector") is not None:
        found += labels(scheduling["nodeSelector"], "scheduling.nodeSelector")
    items = scheduling.get("tolerations") if isinstance(scheduling.get("tolerations"), list) else []
    found += tolerations(items, "scheduling.tolerations")
    seen: set[tuple[str, str, str, str]] = set()
    for i, toleration in enumerate(items):
        toleration = toleration if isinstance(toleration, dict) else {}
        key = tuple(str(toleration.get(k) or "") for k in ("key", "operator", "value", "effect"))
        if key in seen:
            found.append(field.duplicate_shown(f"scheduling.tolerations[{i}]", _toleration_json(toleration)))
        seen.add(key)  # type: ignore[arg-type]
    return found


def runtime_class(obj: Obj) -> list[FieldError]:
    """ValidateRuntimeClass: a handler that is a DNS label, the overhead, the scheduling."""
    found: list[FieldError] = []
    handler = str(obj.get("handler") or "")
    if not handler:
        found.append(field.required("handler"))
    else:
        found += [field.invalid("handler", handler, msg) for msg in dns1123_label(handler)]
    if isinstance(obj.get("overhead"), dict):
        pod_fixed = obj["overhead"].get("podFixed")
        found += overhead(pod_fixed if isinstance(pod_fixed, dict) else {}, "overhead.limits")
    if isinstance(obj.get("scheduling"), dict):
        found += _scheduling(obj["scheduling"])
    return found


def runtime_class_update(new: Obj, old: Obj) -> list[FieldError]:
    """The strategy's ValidateUpdate: the class judged as on create, then its handler fixed."""
    return runtime_class(new) + field.immutable("handler", str(new.get("handler") or ""),
                                                str(old.get("handler") or ""))
