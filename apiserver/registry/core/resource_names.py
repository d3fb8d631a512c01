"""Resource names and amounts: pkg/apis/core/helper/helpers.go's name sets and validation.go's
validateResourceName, validateContainerResourceName, ValidateResourceQuotaResourceName and
ValidateResourceQuantityValue.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import quantity as quantities
from apiserver.kinds.validation import qualified_name
from apiserver.registry import field

_OBJECT_COUNTS = ("pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
                  "persistentvolumeclaims", "services.nodeports", "services.loadbalancers")
_COMPUTE = ("cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
            "limits.cpu", "limits.memory", "limits.ephemeral-storage")
STANDARD_RESOURCES = frozenset(_COMPUTE + _OBJECT_COUNTS + ("storage", "requests.storage"))
STANDARD_QUOTA_RESOURCES = frozenset(_COMPUTE + _OBJECT_COUNTS + ("requests.storage",))
STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_INTEGER_RESOURCES = frozenset(_OBJECT_COUNTS)
IS_NEGATIVE = "must be greater than or equal to 0"


def is_huge_pages(name: str) -> bool:
    return name.startswith("hugepages-")


def _is_quota_huge_pages(name: str) -> bool:
    return name.startswith(("hugepages-", "requests.hugepages-"))


def is_standard_resource(name: str) -> bool:
    return name in STANDARD_RESOURCES or _is_quota_huge_pages(name)


def is_standard_quota_resource(name: str) -> bool:
    return name in STANDARD_QUOTA_RESOURCES or _is_quota_huge_pages(name)


def is_native(name: str) -> bool:
    """Unprefixed names are implicitly kubernetes.io's."""
    return "/" not in name or "kubernetes.io/" in name


def is_extended(name: str) -> bool:
    if is_native(name) or name.startswith("requests."):
        return False
    return not qualified_name("requests." + name)


def overcommit_allowed(name: str) -> bool:
    return is_native(name) and not is_huge_pages(name)


def _is_integer_resource(name: str) -> bool:
    return name in _INTEGER_RESOURCES or is_extended(name)


def resource_name(name: str, path: str) -> list[FieldError]:
    """validateResourceName: qualified, and standard unless it names a domain."""
    found = [field.invalid(path, name, msg) for msg in qualified_name(name)]
    if found:
        return found
    if "/" not in name and not is_standard_resource(name):
        return [field.invalid(path, name, "must be a standard resource type or fully qualified")]
    return []


def container_resource_name(name: str, path: str) -> list[FieldError]:
    found = resource_name(name, path)
    if "/" not in name:
        if not (name in STANDARD_CONTAINER_RESOURCES or is_huge_pages(name)):
            found.append(field.invalid(path, name, "must be a standard resource for containers"))
    elif not is_native(name) and not is_extended(name):
        found.append(field.invalid(path, name, "doesn't follow extended resource name standard"))
    return found


def quota_resource_name(name: str, path: str) -> list[FieldError]:
    found = resource_name(name, path)
    if "/" not in name and not is_standard_quota_resource(name):
        found.append(field.invalid(path, name, "must be a standard resource for quota"))
    return found


def parsed(amount: Any) -> quantities.Quantity | None:
    """A quantity the schema already let through; None for what decoding refuses anyway."""
    try:
        return quantities.parse(amount)
    except quantities.QuantityError:
        return None


def quantity_value(name: str, amount: Any, path: str) -> list[FieldError]:
    """ValidateResourceQuantityValue: not negative, and whole for counted resources."""
    value = parsed(amount)
    if value is None:
        return []
    found: list[FieldError] = []
    if value.value < 0:
        found.append(field.invalid(path, str(value), IS_NEGATIVE))
    if _is_integer_resource(name) and value.milli_value() % 1000 != 0:
        found.append(field.invalid(path, str(value), "must be an integer"))
    return found
