"""The downward API: what of a pod an environment variable or a volume's file may show, as
pkg/apis/core/validation/validation.go judges it (validateObjectFieldSelector,
validateContainerResourceFieldSelector, validateContainerResourceDivisor, validateDownwardAPIVolumeFile and
validateDownwardAPIVolumeSource), with pkg/apis/core/pods/helpers.go's ConvertDownwardAPIFieldLabel.

An environment variable may show the pod's node, account and addresses; a volume's file only its metadata
(labels and annotations whole, which a variable may name only one by one).
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import quantity as quantities
from apiserver.kinds.validation import qualified_name
from apiserver.registry import field
from apiserver.registry.core.volume_files import file_mode, local_non_reserved_path

Obj = dict[str, Any]

ENV_FIELD_PATHS = ("metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
                   "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs")
VOLUME_FIELD_PATHS = ("metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
                      "metadata.uid")
# The labels ConvertDownwardAPIFieldLabel knows, and the old name of one.
_CONVERTIBLE = frozenset({"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
                          "metadata.uid", "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName",
                          "spec.schedulerName", "status.phase", "status.hostIP", "status.hostIPs", "status.podIP",
                          "status.podIPs"})
_RENAMED = {"spec.host": "spec.nodeName"}
_SUBSCRIPTABLE = ("metadata.annotations", "metadata.labels")

_RESOURCES = ("limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu",
              "requests.ephemeral-storage", "requests.memory")
_HUGE_PAGES = ("requests.hugepages-", "limits.hugepages-")
_CPU_DIVISORS = frozenset({"1m", "1"})
_BYTE_DIVISORS = frozenset({"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"})
_BYTE_DIVISORS_SHOWN = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"


def _subscripted(field_path: str) -> tuple[str, str] | None:
    """fieldpath.SplitMaybeSubscriptedPath: `path['subscript']` split, else None."""
    if not field_path.endswith("']"):
        return None
    parts = field_path[:-2].split("['", 1)
    return (parts[0], parts[1]) if len(parts) == 2 and parts[0] else None


def _converted(api_version: str, label: str) -> tuple[str, str]:
    """ConvertDownwardAPIFieldLabel: the internal field path, or why there is none."""
    if api_version != "v1":
        return "", f"unsupported pod version: {api_version}"
    split = _subscripted(label)
    if split is not None:
        if split[0] in _SUBSCRIPTABLE:
            return label, ""
        return "", f"field label does not support subscript: {label}"
    if label in _CONVERTIBLE:
        return label, ""
    if label in _RENAMED:
        return _RENAMED[label], ""
    return "", f"field label not supported: {label}"


def object_field_selector(ref: Obj, expressions: tuple[str, ...], path: str) -> list[FieldError]:
    """validateObjectFieldSelector: a field of the pod, one of expressions or one label or annotation."""
    if not ref.get("apiVersion"):
        return [field.required(f"{path}.apiVersion")]
    field_path = str(ref.get("fieldPath") or "")
    if not field_path:
        return [field.required(f"{path}.fieldPath")]
    internal, problem = _converted(str(ref["apiVersion"]), field_path)
    if problem:
        return [field.invalid(f"{path}.fieldPath", field_path, f"error converting fieldPath: {problem}")]
    split = _subscripted(internal)
    if split is not None:
        # Conversion let through only labels and annotations; an annotation's key is matched lowercased.
        name, subscript = split
        key = subscript.lower() if name == "metadata.annotations" else subscript
        return [field.invalid(path, key, msg) for msg in qualified_name(key)]
    if internal not in expressions:
        return [field.not_supported(f"{path}.fieldPath", internal, expressions)]
    return []


def _divisor(resource: str, divisor: Any, path: str) -> list[FieldError]:
    """validateContainerResourceDivisor: the units a resource may be shown in (an unset divisor is 1)."""
    try:
        parsed = quantities.parse(divisor) if divisor is not None else quantities.ZERO
    except quantities.QuantityError:
        return []
    if parsed.value == 0:
        return []
    shown = str(parsed)
    at = f"{path}.divisor"
    found: list[FieldError] = []
    if resource in ("limits.cpu", "requests.cpu") and shown not in _CPU_DIVISORS:
        found.append(field.invalid(at, resource, "only divisor's values 1m and 1 are supported with the cpu resource"))
    if resource in ("limits.memory", "requests.memory") and shown not in _BYTE_DIVISORS:
        found.append(field.invalid(at, resource, f"only divisor's values {_BYTE_DIVISORS_SHOWN} are supported with "
                                                 "the memory resource"))
    if resource in ("limits.ephemeral-storage", "requests.ephemeral-storage") and shown not in _BYTE_DIVISORS:
        found.append(field.invalid(at, resource, f"only divisor's values {_BYTE_DIVISORS_SHOWN} are supported with "
                                                 "the local ephemeral storage resource"))
    if resource.startswith(_HUGE_PAGES) and shown not in _BYTE_DIVISORS:
        found.append(field.invalid(at, resource, f"only divisor's values {_BYTE_DIVISORS_SHOWN} are supported with "
                                                 "the hugepages resource"))
    return found


def resource_field_selector(ref: Obj, path: str, volume: bool) -> list[FieldError]:
    """validateContainerResourceFieldSelector: a container's request or limit (a volume's file names the
    container; a variable's is its own)."""
    resource = str(ref.get("resource") or "")
    found: list[FieldError] = []
    if volume and not ref.get("containerName"):
        found.append(field.required(f"{path}.containerName"))
    elif not resource:
        found.append(field.required(f"{path}.resource"))
    elif resource not in _RESOURCES and not resource.startswith(_HUGE_PAGES):
        found.append(field.not_supported(f"{path}.resource", resource, _RESOURCES))
    return found + _divisor(resource, ref.get("divisor"), path)


def volume_file(item: Obj, path: str) -> list[FieldError]:
    """validateDownwardAPIVolumeFile. Upstream reports under the source's path, not the item's."""
    file_path = str(item.get("path") or "")
    found = [] if file_path else [field.required(f"{path}.path")]
    found += local_non_reserved_path(file_path, f"{path}.path")
    field_ref, resource_ref = item.get("fieldRef"), item.get("resourceFieldRef")
    if field_ref is not None:
        found += object_field_selector(_dict(field_ref), VOLUME_FIELD_PATHS, f"{path}.fieldRef")
        if resource_ref is not None:
            found.append(field.invalid(path, "resource", "fieldRef and resourceFieldRef can not be specified "
                                                         "simultaneously"))
    elif resource_ref is not None:
        found += resource_field_selector(_dict(resource_ref), f"{path}.resourceFieldRef", volume=True)
    else:
        found.append(field.required(path, "one of fieldRef and resourceFieldRef is required"))
    return found + file_mode(item.get("mode"), f"{path}.mode")


def volume_source(source: Obj, path: str) -> list[FieldError]:
    """validateDownwardAPIVolumeSource."""
    found = file_mode(source.get("defaultMode"), f"{path}.defaultMode")
    for item in source.get("items") or ():
        found += volume_file(_dict(item), path)
    return found


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}
