"""HorizontalPodAutoscaler validation: pkg/apis/autoscaling/validation/validation.go, in its order.

Judged on the stored autoscaling/v2 form, which is the internal one: a write through autoscaling/v1
is reported at the paths its conversion gives (`spec.metrics[0]`). The options are the strategy's
(validationOptionsForHorizontalPodAutoscaler): what an update may keep of what older servers let in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apiserver.errors import FieldError
from apiserver.kinds import quantity
from apiserver.kinds.validation import dns1123_label, path_segment_name, qualified_name
from apiserver.registry import field

Obj = dict[str, Any]

_MAX_PERIOD_SECONDS = 1800
_MAX_STABILIZATION_WINDOW_SECONDS = 3600
_SELECT_POLICIES = ("Disabled", "Max", "Min")
_POLICY_TYPES = ("Percent", "Pods")
_METRIC_TYPES = ("ContainerResource", "External", "Object", "Pods", "Resource")
# metric type -> the field that describes it, in upstream's order of checking them.
_SOURCES = (("Object", "object"), ("External", "external"), ("Pods", "pods"), ("Resource", "resource"),
            ("ContainerResource", "containerResource"))
_TARGET_TYPES = ("Utilization", "Value", "AverageValue")
_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services",
    "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage",
    "services.nodeports", "services.loadbalancers"})
# The HPAScaleToZero feature gate, off by default in 1.36 (alpha).
_SCALE_TO_ZERO = False


@dataclass(frozen=True)
class ReferenceOptions:
    """CrossVersionObjectReferenceValidationOptions."""

    allow_empty_group: bool = False
    allow_invalid_version: bool = False


@dataclass(frozen=True)
class Options:
    """HorizontalPodAutoscalerSpecValidationOptions."""

    min_replicas_lower_bound: int = 1
    scale_target_ref: ReferenceOptions = ReferenceOptions()
    object_metrics: ReferenceOptions = ReferenceOptions(allow_empty_group=True)


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def api_version_error(ref: Obj, options: ReferenceOptions) -> str | None:
    """ValidateAPIVersion: schema.ParseGroupVersion's complaint, or the missing group's."""
    if options.allow_invalid_version:
        return None
    version = _text(ref.get("apiVersion"))
    if version.count("/") > 1:
        return f"unexpected GroupVersion string: {version}"
    group = version.split("/")[0] if "/" in version else ""
    if not options.allow_empty_group and not group:
        return "apiVersion must specify API group"
    return None


def cross_version_reference(ref: Any, path: str, options: ReferenceOptions) -> list[FieldError]:
    """ValidateCrossVersionObjectReference."""
    ref = _dict(ref)
    found: list[FieldError] = []
    for key in ("kind", "name"):
        value = _text(ref.get(key))
        if not value:
            found.append(field.required(f"{path}.{key}"))
        else:
            found += [field.invalid(f"{path}.{key}", value, msg) for msg in path_segment_name(value)]
    error = api_version_error(ref, options)
    if error is not None:
        found.append(field.invalid(f"{path}.apiVersion", _text(ref.get("apiVersion")), error))
    return found


def _positive(value: Any) -> bool:
    try:
        return quantity.parse(value).value > 0
    except quantity.QuantityError:
        return True  # decoding refused what is not a quantity


def _shown_quantity(value: Any) -> str:
    try:
        return field.go_json(str(quantity.parse(value)))
    except quantity.QuantityError:
        return field.go_json(value)


def _metric_target(target: Obj, path: str) -> list[FieldError]:
    """validateMetricTarget."""
    found: list[FieldError] = []
    kind = _text(target.get("type"))
    if not kind:
        found.append(field.required(f"{path}.type", "must specify a metric target type"))
    if kind not in _TARGET_TYPES:
        found.append(field.invalid_shown(f"{path}.type", field.go_json(kind),
                                         "must be either Utilization, Value, or AverageValue"))
    for key in ("value", "averageValue"):
        if target.get(key) is not None and not _positive(target[key]):
            found.append(field.invalid_shown(f"{path}.{key}", _shown_quantity(target[key]), "must be positive"))
    utilization = target.get("averageUtilization")
    if isinstance(utilization, int) and utilization < 1:
        found.append(field.invalid(f"{path}.averageUtilization", utilization, "must be greater than 0"))
    return found


def _metric_identifier(metric: Any, path: str) -> list[FieldError]:
    name = _text(_dict(metric).get("name"))
    if not name:
        return [field.required(f"{path}.name", "must specify a metric name")]
    return [field.invalid(f"{path}.name", name, msg) for msg in path_segment_name(name)]


def _object_source(source: Obj, path: str, options: ReferenceOptions) -> list[FieldError]:
    target = _dict(source.get("target"))
    found = cross_version_reference(source.get("describedObject"), f"{path}.describedObject", options)
    found += _metric_identifier(source.get("metric"), f"{path}.metric")
    found += _metric_target(target, f"{path}.target")
    if target.get("value") is None and target.get("averageValue") is None:
        found.append(field.required(f"{path}.target.averageValue", "must set either a target value or averageValue"))
    return found


def _external_source(source: Obj, path: str) -> list[FieldError]:
    target = _dict(source.get("target"))
    found = _metric_identifier(source.get("metric"), f"{path}.metric")
    found += _metric_target(target, f"{path}.target")
    if target.get("value") is None and target.get("averageValue") is None:
        found.append(field.required(f"{path}.target.averageValue",
                                    "must set either a target value for metric or a per-pod target"))
    if target.get("value") is not None and target.get("averageValue") is not None:
        found.append(field.forbidden(f"{path}.target.value",
                                     "may not set both a target value for metric and a per-pod target"))
    return found


def _pods_source(source: Obj, path: str) -> list[FieldError]:
    target = _dict(source.get("target"))
    found = _metric_identifier(source.get("metric"), f"{path}.metric")
    found += _metric_target(target, f"{path}.target")
    if target.get("averageValue") is None:
        found.append(field.required(f"{path}.target.averageValue", "must specify a positive target averageValue"))
    return found


def _resource_name(name: str, path: str) -> list[FieldError]:
    """validateResourceName of core/v1's validation: a qualified name, standard unless it has a domain."""
    found = [field.invalid_shown(path, field.go_json(name), msg) for msg in qualified_name(name)]
    if not found and "/" not in name and name not in _STANDARD_RESOURCES and \
            not name.startswith(("hugepages-", "requests.hugepages-")):
        found.append(field.invalid_shown(path, field.go_json(name), "must be a standard resource type or fully qualified"))
    return found


def _extended_resource(name: str) -> bool:
    native = "/" not in name or "kubernetes.io/" in name
    return not native and not name.startswith("requests.") and not qualified_name("requests." + name)


def container_resource_name(name: str, path: str) -> list[FieldError]:
    """ValidateContainerResourceName (pkg/apis/core/v1/validation)."""
    found = _resource_name(name, path)
    if "/" not in name:
        if name not in _CONTAINER_RESOURCES and not name.startswith("hugepages-"):
            found.append(field.invalid_shown(path, field.go_json(name), "must be a standard resource for containers"))
    elif "kubernetes.io/" not in name and not _extended_resource(name):
        found.append(field.invalid_shown(path, field.go_json(name), "doesn't follow extended resource name standard"))
    return found


def _utilization_or_value(target: Obj, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    if target.get("averageUtilization") is None and target.get("averageValue") is None:
        found.append(field.required(f"{path}.target.averageUtilization",
                                    "must set either a target raw value or a target utilization"))
    if target.get("averageUtilization") is not None and target.get("averageValue") is not None:
        found.append(field.forbidden(f"{path}.target.averageValue",
                                     "may not set both a target raw value and a target utilization"))
    return found


def _container_resource_source(source: Obj, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    name, container = _text(source.get("name")), _text(source.get("container"))
    if not name:
        found.append(field.required(f"{path}.name", "must specify a resource name"))
    else:
        found += container_resource_name(name, f"{path}.name")
    if not container:
        found.append(field.required(f"{path}.container", "must specify a container"))
    else:
        found += [field.invalid(f"{path}.container", container, msg) for msg in dns1123_label(container)]
    target = _dict(source.get("target"))
    return found + _metric_target(target, f"{path}.target") + _utilization_or_value(target, path)


def _resource_source(source: Obj, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    if not _text(source.get("name")):
        found.append(field.required(f"{path}.name", "must specify a resource name"))
    target = _dict(source.get("target"))
    return found + _metric_target(target, f"{path}.target") + _utilization_or_value(target, path)


def _source(key: str, source: Obj, path: str, options: ReferenceOptions) -> list[FieldError]:
    if key == "object":
        return _object_source(source, path, options)
    if key == "external":
        return _external_source(source, path)
    if key == "pods":
        return _pods_source(source, path)
    if key == "resource":
        return _resource_source(source, path)
    return _container_resource_source(source, path)


def _metric_spec(metric: Obj, path: str, options: ReferenceOptions) -> list[FieldError]:
    """validateMetricSpec: a known type, and exactly the source that type names."""
    found: list[FieldError] = []
    kind = _text(metric.get("type"))
    if not kind:
        found.append(field.required(f"{path}.type", "must specify a metric source type"))
    if kind not in _METRIC_TYPES:
        found.append(field.not_supported_shown(f"{path}.type", field.go_json(kind), _METRIC_TYPES))
    present = [key for _, key in _SOURCES if metric.get(key) is not None]
    if present:
        found += _source(present[0], _dict(metric[present[0]]), f"{path}.{present[0]}", options)
    expected = dict(_SOURCES).get(kind)
    if expected is None:
        found.append(field.not_supported_shown(f"{path}.type", field.go_json(kind), _METRIC_TYPES))
    elif metric.get(expected) is None:
        found.append(field.required(f"{path}.{expected}", "must populate information for the given metric source"))
    if len(present) != 1:
        # Upstream walks a set here, in no fixed order; its names sorted is one of them.
        for key in sorted(k for k in present if k != expected):
            found.append(field.forbidden(f"{path}.{key}", "must populate the given metric source only"))
    return found


def _metrics(metrics: Any, min_replicas: Any, options: ReferenceOptions) -> list[FieldError]:
    found: list[FieldError] = []
    kinds: set[str] = set()
    for i, metric in enumerate(metrics or ()):
        metric = _dict(metric)
        found += _metric_spec(metric, f"spec.metrics[{i}]", options)
        kinds.add(_text(metric.get("type")))
    if min_replicas == 0 and not kinds & {"Object", "External"}:
        found.append(field.forbidden("spec.metrics", "must specify at least one Object or External metric to support "
                                                     "scaling to zero replicas"))
    return found


def _scaling_policy(policy: Obj, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    kind = _text(policy.get("type"))
    if kind not in _POLICY_TYPES:
        found.append(field.not_supported_shown(f"{path}.type", field.go_json(kind), _POLICY_TYPES))
    value, period = policy.get("value") or 0, policy.get("periodSeconds") or 0
    if value <= 0:
        found.append(field.invalid(f"{path}.value", value, "must be greater than zero"))
    if period <= 0:
        found.append(field.invalid(f"{path}.periodSeconds", period, "must be greater than zero"))
    if period > _MAX_PERIOD_SECONDS:
        found.append(field.invalid(f"{path}.periodSeconds", period,
                                   f"must be less than or equal to {_MAX_PERIOD_SECONDS}"))
    return found


def _scaling_rules(rules: Any, path: str) -> list[FieldError]:
    if not isinstance(rules, dict):
        return []
    found: list[FieldError] = []
    window = rules.get("stabilizationWindowSeconds")
    if isinstance(window, int) and window < 0:
        found.append(field.invalid(f"{path}.stabilizationWindowSeconds", window, "must be greater than or equal to zero"))
    if isinstance(window, int) and window > _MAX_STABILIZATION_WINDOW_SECONDS:
        found.append(field.invalid(f"{path}.stabilizationWindowSeconds", window,
                                   f"must be less than or equal to {_MAX_STABILIZATION_WINDOW_SECONDS}"))
    select = rules.get("selectPolicy")
    if select is not None and select not in _SELECT_POLICIES:
        found.append(field.not_supported_shown(f"{path}.selectPolicy", field.go_json(select), _SELECT_POLICIES))
    policies = rules.get("policies") or []
    if not policies:
        found.append(field.required(f"{path}.policies", "must specify at least one Policy"))
    for i, policy in enumerate(policies):
        found += _scaling_policy(_dict(policy), f"{path}.policies[{i}]")
    tolerance = rules.get("tolerance")
    if tolerance is not None:
        try:
            parsed = quantity.parse(tolerance)
        except quantity.QuantityError:
            return found
        if parsed.value < 0:
            found.append(field.invalid(f"{path}.tolerance", str(parsed),
                                       "must be greater than or equal to 0"))
    return found


def _spec(spec: Obj, options: Options) -> list[FieldError]:
    """validateHorizontalPodAutoscalerSpec."""
    found: list[FieldError] = []
    low, high = spec.get("minReplicas"), spec.get("maxReplicas") or 0
    bound = options.min_replicas_lower_bound
    if isinstance(low, int) and low < bound:
        found.append(field.invalid("spec.minReplicas", low, f"must be greater than or equal to {bound}"))
    if high == 0:
        found.append(field.required("spec.maxReplicas", "must be set and greater than 0"))
    elif high < 0:
        found.append(field.invalid("spec.maxReplicas", high, "must be greater than or equal to 1"))
    if isinstance(low, int) and high < low:
        found.append(field.invalid("spec.maxReplicas", high, "must be greater than or equal to `minReplicas`"))
    found += cross_version_reference(spec.get("scaleTargetRef"), "spec.scaleTargetRef", options.scale_target_ref)
    found += _metrics(spec.get("metrics"), low, options.object_metrics)
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        found += _scaling_rules(behavior.get("scaleUp"), "spec.behavior.scaleUp")
        found += _scaling_rules(behavior.get("scaleDown"), "spec.behavior.scaleDown")
    return found


def _options(new: Obj, old: Obj | None) -> Options:
    """validationOptionsForHorizontalPodAutoscaler: an update keeps what older servers let in."""
    spec, old_spec = _dict(new.get("spec")), _dict((old or {}).get("spec"))
    bound = 0 if _SCALE_TO_ZERO or (old is not None and old_spec.get("minReplicas") == 0) else 1
    ref, old_ref = _dict(spec.get("scaleTargetRef")), _dict(old_spec.get("scaleTargetRef"))
    target = ReferenceOptions()
    if old is not None and old_ref.get("apiVersion") == ref.get("apiVersion") and \
            old_ref.get("kind") == ref.get("kind"):
        target = ReferenceOptions(allow_invalid_version=True)
    elif ref.get("kind") == "ReplicationController":
        target = ReferenceOptions(allow_empty_group=True)
    objects = ReferenceOptions(allow_empty_group=True)
    for metric in old_spec.get("metrics") or ():
        metric = _dict(metric)
        if metric.get("type") == "Object" and isinstance(metric.get("object"), dict) and \
                api_version_error(_dict(metric["object"].get("describedObject")), objects) is not None:
            objects = ReferenceOptions(allow_empty_group=True, allow_invalid_version=True)
            break
    return Options(bound, target, objects)


def horizontal_pod_autoscaler(obj: Obj) -> list[FieldError]:
    return _spec(_dict(obj.get("spec")), _options(obj, None))


def horizontal_pod_autoscaler_update(new: Obj, old: Obj) -> list[FieldError]:
    return _spec(_dict(new.get("spec")), _options(new, old))


def horizontal_pod_autoscaler_status_update(subresource: str, new: Obj, old: Obj) -> list[FieldError]:
    """ValidateHorizontalPodAutoscalerStatusUpdate (the metadata aside)."""
    status = _dict(new.get("status"))
    return field.nonnegative("status.currentReplicas", status.get("currentReplicas")) + \
        field.nonnegative("status.desiredReplicas", status.get("desiredReplicas"))
