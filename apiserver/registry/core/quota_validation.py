"""LimitRange and ResourceQuota validation: ValidateLimitRange, ValidateResourceQuota(Update) and
ValidateResourceQuotaStatusUpdate of pkg/apis/core/validation/validation.go, whole.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import quantity as quantities
from apiserver.kinds.validation import qualified_name
from apiserver.registry import field
from apiserver.registry.core import resource_names as names

Obj = dict[str, Any]

_LIMIT_TYPES = ("Pod", "Container", "PersistentVolumeClaim")
_ONE = quantities.Quantity(Fraction(1))


def _limit_type(value: str, path: str) -> list[FieldError]:
    found = [field.invalid(path, value, msg) for msg in qualified_name(value)]
    if not found and "/" not in value and value not in _LIMIT_TYPES:
        found.append(field.invalid(path, value, "must be a standard limit type or fully qualified"))
    return found


def _limit_resource_name(limit_type: str, name: str, path: str) -> list[FieldError]:
    if limit_type in ("Pod", "Container"):
        return names.container_resource_name(name, path)
    return names.resource_name(name, path)


def _amounts(limit: Obj, key: str, kind: str, at: str, keys: dict[str, None],
             found: list[FieldError]) -> dict[str, quantities.Quantity]:
    amounts: dict[str, quantities.Quantity] = {}
    for name, amount in (limit.get(key) or {}).items():
        found += _limit_resource_name(kind, name, f"{at}.{key}[{name}]")
        keys[name] = None
        value = names.parsed(amount)
        amounts[name] = value if value is not None else quantities.ZERO
    return amounts


def _ratio_limit(ratio: quantities.Quantity, low: quantities.Quantity, high: quantities.Quantity) -> tuple[float, float]:
    """The ratio and max/min as upstream compares them: in milli-units when all three fit."""
    ratio_value, low_value, high_value = float(ratio.int_value()), low.int_value(), high.int_value()
    limit = quantities.MAX_MILLI_VALUE
    if ratio.int_value() < limit and low_value < limit and high_value < limit:
        ratio_value = ratio.milli_value() / 1000
        low_value, high_value = low.milli_value(), high.milli_value()
    return ratio_value, (high_value / low_value if low_value else float("inf"))


def _limit_item(limit: Obj, seen: set[str], at: str) -> list[FieldError]:
    kind = limit.get("type") or ""
    found = _limit_type(kind, f"{at}.type")
    if kind in seen:
        found.append(field.duplicate(f"{at}.type", kind))
    seen.add(kind)
    keys: dict[str, None] = {}
    high = _amounts(limit, "max", kind, at, keys, found)
    low = _amounts(limit, "min", kind, at, keys, found)
    defaults: dict[str, quantities.Quantity] = {}
    requests: dict[str, quantities.Quantity] = {}
    if kind == "Pod":
        if limit.get("default"):
            found.append(field.forbidden(f"{at}.default", "may not be specified when `type` is 'Pod'"))
        if limit.get("defaultRequest"):
            found.append(field.forbidden(f"{at}.defaultRequest", "may not be specified when `type` is 'Pod'"))
    else:
        defaults = _amounts(limit, "default", kind, at, keys, found)
        requests = _amounts(limit, "defaultRequest", kind, at, keys, found)
    if kind == "PersistentVolumeClaim" and "storage" not in (limit.get("min") or {}) \
            and "storage" not in (limit.get("max") or {}):
        found.append(field.required(f"{at}.limits",
                                    "either minimum or maximum storage value is required, but neither was provided"))
    ratios = _amounts(limit, "maxLimitRequestRatio", kind, at, keys, found)
    for key in keys:
        found += _compare(key, low.get(key), high.get(key), defaults.get(key), requests.get(key), ratios.get(key), at)
    return found


def _compare(key: str, low: quantities.Quantity | None, high: quantities.Quantity | None,
             default: quantities.Quantity | None, request: quantities.Quantity | None,
             ratio: quantities.Quantity | None, at: str) -> list[FieldError]:
    found: list[FieldError] = []
    if low is not None and high is not None and low.value > high.value:
        found.append(field.invalid(f"{at}.min[{key}]", str(low), f"min value {low} is greater than max value {high}"))
    if request is not None and low is not None and low.value > request.value:
        found.append(field.invalid(f"{at}.defaultRequest[{key}]", str(request),
                                   f"min value {low} is greater than default request value {request}"))
    if request is not None and high is not None and request.value > high.value:
        found.append(field.invalid(f"{at}.defaultRequest[{key}]", str(request),
                                   f"default request value {request} is greater than max value {high}"))
    if request is not None and default is not None and request.value > default.value:
        found.append(field.invalid(f"{at}.defaultRequest[{key}]", str(request),
                                   f"default request value {request} is greater than default limit value {default}"))
    if default is not None and low is not None and low.value > default.value:
        found.append(field.invalid(f"{at}.default[{key}]", str(low),
                                   f"min value {low} is greater than default value {default}"))
    if default is not None and high is not None and default.value > high.value:
        found.append(field.invalid(f"{at}.default[{key}]", str(high),
                                   f"default value {default} is greater than max value {high}"))
    if ratio is not None and ratio.value < _ONE.value:
        found.append(field.invalid(f"{at}.maxLimitRequestRatio[{key}]", str(ratio), f"ratio {ratio} is less than 1"))
    if ratio is not None and low is not None and high is not None:
        ratio_value, ratio_limit = _ratio_limit(ratio, low, high)
        if ratio_value > ratio_limit:
            found.append(field.invalid(f"{at}.maxLimitRequestRatio[{key}]", str(ratio),
                                       f"ratio {ratio} is greater than max/min = {ratio_limit:f}"))
    if not names.overcommit_allowed(key) and default is not None and request is not None \
            and default.value != request.value:
        found.append(field.invalid(f"{at}.defaultRequest[{key}]", str(request),
                                   f"default value {default} must equal to defaultRequest value {request} in {key}"))
    return found


def limit_range(obj: Obj) -> list[FieldError]:
    """ValidateLimitRange (its metadata aside)."""
    found: list[FieldError] = []
    seen: set[str] = set()
    for i, limit in enumerate((obj.get("spec") or {}).get("limits") or []):
        found += _limit_item(limit if isinstance(limit, dict) else {}, seen, f"spec.limits[{i}]")
    return found


# -- resource quotas -----------------------------------------------------------------------------

_STANDARD_SCOPES = ("Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass",
                    "VolumeAttributesClass", "CrossNamespacePodAffinity")
_POD_RESOURCES = frozenset({"pods", "cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu",
                            "requests.memory"})
_CONFLICTING = (("BestEffort", "NotBestEffort"), ("Terminating", "NotTerminating"))
_EXISTS_ONLY = ("BestEffort", "NotBestEffort", "Terminating", "NotTerminating", "CrossNamespacePodAffinity")


def _scope_fits(scope: str, resource: str) -> bool:
    """IsResourceQuotaScopeValidForResource."""
    if scope in ("Terminating", "NotTerminating", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity"):
        return resource in _POD_RESOURCES
    if scope == "BestEffort":
        return resource == "pods"
    if scope == "VolumeAttributesClass":
        return resource in ("persistentvolumeclaims", "requests.storage")
    return True


def _misfits(scope: str, hard: list[str]) -> int:
    return sum(1 for k in hard if names.is_standard_quota_resource(k) and not _scope_fits(scope, k))


def _scopes(spec: Obj, hard: list[str]) -> list[FieldError]:
    scopes = spec.get("scopes") or []
    if not scopes:
        return []
    found: list[FieldError] = []
    for scope in scopes:
        if scope not in _STANDARD_SCOPES:
            found.append(field.invalid("spec.scopes", scopes, "unsupported scope"))
        found += [field.invalid("spec.scopes", scopes, "unsupported scope applied to resource")] * _misfits(scope, hard)
    found += [field.invalid("spec.scopes", scopes, "conflicting scopes")
              for pair in _CONFLICTING if set(pair) <= set(scopes)]
    return found


def _expressions(selector: Obj) -> list[Obj]:
    return [e if isinstance(e, dict) else {} for e in selector.get("matchExpressions") or []]


def _go_scope_selector(selector: Obj) -> str:
    """The internal ScopeSelector as json.Marshal writes a struct without json tags."""
    return field.go_json({"MatchExpressions": [
        {"ScopeName": e.get("scopeName") or "", "Operator": e.get("operator") or "", "Values": e.get("values")}
        for e in _expressions(selector)]})


def _scope_selector(spec: Obj, hard: list[str]) -> list[FieldError]:
    selector = spec.get("scopeSelector")
    if selector is None:
        return []
    at = "spec.scopeSelector.matchExpressions"
    found: list[FieldError] = []
    seen: set[str] = set()
    for req in _expressions(selector):
        scope, operator, values = req.get("scopeName") or "", req.get("operator") or "", req.get("values") or []
        if scope not in _STANDARD_SCOPES:
            found.append(field.invalid(f"{at}.scopeName", scope, "unsupported scope"))
        found += [field.invalid_shown(at, _go_scope_selector(selector), "unsupported scope applied to resource")
                  ] * _misfits(scope, hard)
        if scope in _EXISTS_ONLY and operator != "Exists":
            found.append(field.invalid(
                f"{at}.operator", operator,
                "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, "
                "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort "
                "or ResourceQuotaScopeCrossNamespacePodAffinity"))
        if operator in ("In", "NotIn"):
            if not values:
                found.append(field.required(
                    f"{at}.values", "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"))
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                found.append(field.invalid(
                    f"{at}.values", values,
                    "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"))
        else:
            found.append(field.invalid(f"{at}.operator", operator, "not a valid selector operator"))
        seen.add(scope)
    scopes = spec.get("scopes")
    found += [field.invalid(at, scopes if scopes else None, "conflicting scopes")
              for pair in _CONFLICTING if set(pair) <= seen]
    return found


def _resource_list(amounts: Any, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    for name, amount in (amounts or {}).items():
        found += names.quota_resource_name(name, f"{path}[{name}]")
        found += names.quantity_value(name, amount, f"{path}[{name}]")
    return found


def _quota_spec(spec: Obj) -> list[FieldError]:
    hard = sorted(spec.get("hard") or {})
    return _resource_list(spec.get("hard"), "spec.hard") + _scopes(spec, hard) + _scope_selector(spec, hard)


def resource_quota(obj: Obj) -> list[FieldError]:
    """ValidateResourceQuota (its metadata aside)."""
    status = obj.get("status") or {}
    return (_quota_spec(obj.get("spec") or {}) + _resource_list(status.get("hard"), "status.hard")
            + _resource_list(status.get("used"), "status.used"))


def resource_quota_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateResourceQuotaUpdate: the spec's rules, and scopes that stay as they were."""
    found = _quota_spec(new.get("spec") or {})
    new_scopes = (new.get("spec") or {}).get("scopes") or []
    if set(new_scopes) != set((old.get("spec") or {}).get("scopes") or []):
        found.append(field.invalid("spec.scopes", new_scopes or None, "field is immutable"))
    return found


def resource_quota_status_update(new: Obj, old: Obj) -> list[FieldError]:
    status = new.get("status") or {}
    return _resource_list(status.get("hard"), "status.hard") + _resource_list(status.get("used"), "status.used")
