"""The HorizontalPodAutoscaler printer, for objects stored as autoscaling/v2 or autoscaling/v1.

Upstream prints the internal (v2-shaped) object, so a v1 object is first read the way its
conversion reads it: the v2-only metrics and their current values travel in the
`autoscaling.alpha.kubernetes.io/metrics` and `.../current-metrics` annotations, the CPU target in
`targetCPUUtilizationPercentage` (after the annotation's metrics), and a v1 object without any
metric targets 80% CPU. TARGETS shows the first two metrics as "current/target", "<unknown>"
for a current value not yet reported, then "+ N more...".
"""

from __future__ import annotations

import msgspec

from columns.base import Row
from columns.declare import AnnotatedMeta, age_column, column, name_column, printer
from columns.format import NONE, UNKNOWN, UNSET, canonical_quantity, since

Quantity = str | int | float

METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics"
CURRENT_METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/current-metrics"
DEFAULT_CPU_UTILIZATION = 80


# --- the v2 shape, which upstream prints ---------------------------------------------------

class Target(msgspec.Struct):
    value: Quantity | None = None
    averageValue: Quantity | None = None
    averageUtilization: int | None = None


class Current(msgspec.Struct):
    value: Quantity | None = None
    averageValue: Quantity | None = None
    averageUtilization: int | None = None


class SourceSpec(msgspec.Struct):
    name: str = ""
    target: Target = msgspec.field(default_factory=Target)


class SourceStatus(msgspec.Struct):
    current: Current = msgspec.field(default_factory=Current)


class MetricSpec(msgspec.Struct):
    type: str = ""
    resource: SourceSpec | None = None
    containerResource: SourceSpec | None = None
    pods: SourceSpec | None = None
    object: SourceSpec | None = None
    external: SourceSpec | None = None


class MetricStatus(msgspec.Struct):
    type: str = ""
    resource: SourceStatus | None = None
    containerResource: SourceStatus | None = None
    pods: SourceStatus | None = None
    object: SourceStatus | None = None
    external: SourceStatus | None = None


class ScaleTargetRef(msgspec.Struct):
    kind: str = ""
    name: str = ""


class HPASpec(msgspec.Struct):
    scaleTargetRef: ScaleTargetRef = msgspec.field(default_factory=ScaleTargetRef)
    minReplicas: int | None = None
    maxReplicas: int = 0
    metrics: list[MetricSpec] = []
    targetCPUUtilizationPercentage: int | None = None  # v1 only


class HPAStatus(msgspec.Struct):
    currentReplicas: int = 0
    currentMetrics: list[MetricStatus] | None = None
    currentCPUUtilizationPercentage: int | None = None  # v1 only


class HorizontalPodAutoscaler(msgspec.Struct):
    apiVersion: str = ""
    metadata: AnnotatedMeta = msgspec.field(default_factory=AnnotatedMeta)
    spec: HPASpec = msgspec.field(default_factory=HPASpec)
    status: HPAStatus = msgspec.field(default_factory=HPAStatus)


# --- the v1 annotations, and their conversion ----------------------------------------------

class V1Source(msgspec.Struct):
    """Every v1 metric source and status field the conversion reads; Go's zero quantity is "0"."""

    name: str = ""
    targetAverageUtilization: int | None = None
    targetAverageValue: Quantity | None = None
    targetValue: Quantity | None = None
    averageValue: Quantity | None = None
    currentAverageUtilization: int | None = None
    currentAverageValue: Quantity | None = None
    currentValue: Quantity | None = None


class V1Metric(msgspec.Struct):
    type: str = ""
    resource: V1Source | None = None
    containerResource: V1Source | None = None
    pods: V1Source | None = None
    object: V1Source | None = None
    external: V1Source | None = None


_read_v1_metrics = msgspec.json.Decoder(list[V1Metric]).decode
ZERO: Quantity = "0"


def _spec_from_v1(source: V1Source, kind: str) -> SourceSpec:
    if kind in ("resource", "containerResource"):
        target = Target(averageValue=source.targetAverageValue, averageUtilization=source.targetAverageUtilization)
    elif kind == "pods":
        target = Target(averageValue=_or_zero(source.targetAverageValue))
    elif kind == "object":
        target = Target(value=_or_zero(source.targetValue), averageValue=source.averageValue)
    else:
        target = Target(value=source.targetValue, averageValue=source.targetAverageValue)
    return SourceSpec(name=source.name, target=target)


def _status_from_v1(source: V1Source, kind: str) -> SourceStatus:
    if kind in ("resource", "containerResource"):
        current = Current(averageValue=_or_zero(source.currentAverageValue),
                          averageUtilization=source.currentAverageUtilization)
    elif kind == "pods":
        current = Current(averageValue=_or_zero(source.currentAverageValue))
    elif kind == "object":
        current = Current(value=_or_zero(source.currentValue), averageValue=source.averageValue)
    else:
        current = Current(value=_or_zero(source.currentValue), averageValue=source.currentAverageValue)
    return SourceStatus(current=current)


def _or_zero(value: Quantity | None) -> Quantity:
    """A v1 quantity that is a plain value in Go, so converts to a set "0" rather than nil when absent."""
    return ZERO if value is None else value


_SOURCES = ("resource", "containerResource", "pods", "object", "external")


def _annotation(annotations: dict[str, str], key: str) -> list[V1Metric] | None:
    """A v1 annotation's metrics; a malformed one is read as absent (upstream fails the whole read)."""
    if key not in annotations:
        return None
    try:
        return _read_v1_metrics(annotations[key])
    except msgspec.DecodeError:
        return None


def v1_metrics(hpa: HorizontalPodAutoscaler) -> tuple[list[MetricSpec], list[MetricStatus]]:
    """The v2 metrics and current values a v1 object converts to."""
    annotations = hpa.metadata.annotations
    specs: list[MetricSpec] = []
    for metric in _annotation(annotations, METRICS_ANNOTATION) or []:
        sources = {kind: _spec_from_v1(source, kind) for kind in _SOURCES
                   if (source := getattr(metric, kind)) is not None}
        specs.append(MetricSpec(type=metric.type, **sources))
    if hpa.spec.targetCPUUtilizationPercentage is not None:
        specs.append(_cpu_spec(hpa.spec.targetCPUUtilizationPercentage))
    if not specs:
        specs.append(_cpu_spec(DEFAULT_CPU_UTILIZATION))

    statuses: list[MetricStatus] = []
    annotated = _annotation(annotations, CURRENT_METRICS_ANNOTATION)
    if annotated is not None:  # the annotation carries every current value, the CPU one included
        for metric in annotated:
            currents = {kind: _status_from_v1(source, kind) for kind in _SOURCES
                        if (source := getattr(metric, kind)) is not None}
            statuses.append(MetricStatus(type=metric.type, **currents))
    elif hpa.status.currentCPUUtilizationPercentage is not None:
        current = Current(averageUtilization=hpa.status.currentCPUUtilizationPercentage)
        statuses.append(MetricStatus(type="Resource", resource=SourceStatus(current=current)))
    return specs, statuses


def _cpu_spec(utilization: int) -> MetricSpec:
    return MetricSpec(type="Resource", resource=SourceSpec(name="cpu", target=Target(averageUtilization=utilization)))


# --- the cells -----------------------------------------------------------------------------

def quantity(value: Quantity | None) -> str:
    """resource.Quantity's String(), which a nil quantity answers with "<nil>"."""
    return "<nil>" if value is None else canonical_quantity(str(value))


def _current(status: SourceStatus | None) -> Current | None:
    return None if status is None else status.current


def _source(status: MetricStatus | None, kind: str) -> SourceStatus | None:
    """The i-th status's source of this kind; upstream reads it whatever the status's type."""
    if status is None:
        return None
    found: SourceStatus | None = getattr(status, kind)
    return found


def _resource_metric(spec: SourceSpec, status: SourceStatus | None) -> str:
    current = _current(status)
    if spec.target.averageValue is not None:
        shown = UNKNOWN if current is None else quantity(current.averageValue)
        return f"{spec.name}: {shown}/{quantity(spec.target.averageValue)}"
    shown = UNKNOWN
    if current is not None and current.averageUtilization is not None:
        shown = f"{current.averageUtilization}%"
    target = "<auto>" if spec.target.averageUtilization is None else f"{spec.target.averageUtilization}%"
    return f"{spec.name}: {shown}/{target}"


def _value_metric(spec: SourceSpec, status: SourceStatus | None) -> str:
    """An Object or External metric: an average value is marked "(avg)", else the plain value."""
    current = _current(status)
    if spec.target.averageValue is not None:
        shown = UNKNOWN if current is None or current.averageValue is None else quantity(current.averageValue)
        return f"{shown}/{quantity(spec.target.averageValue)} (avg)"
    shown = UNKNOWN if current is None else quantity(current.value)
    return f"{shown}/{quantity(spec.target.value)}"


def metric_text(spec: MetricSpec, status: MetricStatus | None) -> str:
    if spec.type == "External" and spec.external is not None:
        return _value_metric(spec.external, _source(status, "external"))
    if spec.type == "Object" and spec.object is not None:
        return _value_metric(spec.object, _source(status, "object"))
    if spec.type == "Pods" and spec.pods is not None:
        current = _current(_source(status, "pods"))
        shown = UNKNOWN if current is None else quantity(current.averageValue)
        return f"{shown}/{quantity(spec.pods.target.averageValue)}"
    if spec.type == "Resource" and spec.resource is not None:
        return _resource_metric(spec.resource, _source(status, "resource"))
    if spec.type == "ContainerResource" and spec.containerResource is not None:
        return _resource_metric(spec.containerResource, _source(status, "containerResource"))
    return "<unknown type>"


def format_metrics(specs: list[MetricSpec], statuses: list[MetricStatus], limit: int = 2) -> str:
    """Each metric's "current/target", the i-th status read against the i-th spec."""
    if not specs:
        return NONE
    texts = [metric_text(spec, statuses[i] if i < len(statuses) else None) for i, spec in enumerate(specs)]
    shown = ", ".join(texts[:limit])
    return f"{shown} + {len(texts) - limit} more..." if len(texts) > limit else shown


def hpa_row(hpa: HorizontalPodAutoscaler) -> Row:
    spec = hpa.spec
    if hpa.apiVersion == "autoscaling/v1":
        specs, statuses = v1_metrics(hpa)
    else:
        specs, statuses = spec.metrics, hpa.status.currentMetrics or []
    ref = spec.scaleTargetRef
    return Row([hpa.metadata.name, f"{ref.kind}/{ref.name}", format_metrics(specs, statuses),
                UNSET if spec.minReplicas is None else str(spec.minReplicas), spec.maxReplicas,
                hpa.status.currentReplicas, since(hpa.metadata.creationTimestamp)])


HORIZONTAL_POD_AUTOSCALERS = printer(
    [name_column(),
     column("Reference", "scaleTargetRef points to the target resource to scale, and is used to the pods for which "
                         "metrics should be collected, as well as to actually change the replica count."),
     column("Targets", "metrics contains the specifications for which to use to calculate the desired replica "
                       "count (the maximum replica count across all metrics will be used).  The desired replica "
                       "count is calculated multiplying the ratio between the target value and the current value "
                       "by the current number of pods.  Ergo, metrics used must decrease as the pod count is "
                       "increased, and vice-versa.  See the individual metric source types for more information "
                       "about how each type of metric must respond. If not set, the default metric will be set "
                       "to 80% average CPU utilization."),
     column("MinPods", "minReplicas is the lower limit for the number of replicas to which the autoscaler can "
                       "scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature "
                       "gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  "
                       "Scaling is active as long as at least one metric value is available."),
     column("MaxPods", "maxReplicas is the upper limit for the number of replicas to which the autoscaler can "
                       "scale up. It cannot be less that minReplicas."),
     column("Replicas", "currentReplicas is current number of replicas of pods managed by this autoscaler, as last "
                        "seen by the autoscaler."),
     age_column()],
    HorizontalPodAutoscaler,
    hpa_row,
)
