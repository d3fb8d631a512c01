"""HorizontalPodAutoscalers: stored once as autoscaling/v2, served through autoscaling/v2 and v1.

autoscaling/v1 has room only for a CPU utilization target. Upstream's conversion keeps everything
else in annotations of the v1 object, and reads them back when a v1 object is written:
- `autoscaling.alpha.kubernetes.io/metrics`: the spec's other metrics, in v1's MetricSpec form;
- `.../current-metrics`: every current metric (CPU too, for its raw value);
- `.../behavior`: the scaling behavior, as Go writes the internal type (field names capitalized);
- `.../conditions`: the status conditions.
Defaulting is autoscaling/v2's, in `apiserver/registry/autoscaling/defaults.py`.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson

Obj = dict[str, Any]

V1 = "autoscaling/v1"
V2 = "autoscaling/v2"
_PREFIX = "autoscaling.alpha.kubernetes.io/"
METRICS = _PREFIX + "metrics"
CURRENT_METRICS = _PREFIX + "current-metrics"
BEHAVIOR = _PREFIX + "behavior"
CONDITIONS = _PREFIX + "conditions"
_ANNOTATIONS = (METRICS, CURRENT_METRICS, BEHAVIOR, CONDITIONS)


# -- v2 -> v1 ------------------------------------------------------------------------------------

def _map(value: Any) -> Obj:
    """A JSON object, or an empty one for anything else (annotations are whatever a client wrote)."""
    return value if isinstance(value, dict) else {}


def _present(**fields: Any) -> Obj:
    return {k: v for k, v in fields.items() if v is not None}


def _metric_spec_v1(metric: Obj) -> Obj:
    kind = metric.get("type")
    out: Obj = {"type": kind}
    if kind == "Object" and isinstance(metric.get("object"), dict):
        source = metric["object"]
        target, which = _map(source.get("target")), _map(source.get("metric"))
        out["object"] = _present(target=source.get("describedObject"), metricName=which.get("name"),
                                 targetValue=target.get("value", "0"), selector=which.get("selector"),
                                 averageValue=target.get("averageValue"))
    elif kind == "Pods" and isinstance(metric.get("pods"), dict):
        source = metric["pods"]
        target, which = _map(source.get("target")), _map(source.get("metric"))
        out["pods"] = _present(metricName=which.get("name"), targetAverageValue=target.get("averageValue", "0"),
                               selector=which.get("selector"))
    elif kind in ("Resource", "ContainerResource"):
        field = "resource" if kind == "Resource" else "containerResource"
        source = _map(metric.get(field))
        target = _map(source.get("target"))
        out[field] = _present(name=source.get("name"), targetAverageUtilization=target.get("averageUtilization"),
                              targetAverageValue=target.get("averageValue"), container=source.get("container"))
    elif kind == "External" and isinstance(metric.get("external"), dict):
        source = metric["external"]
        target, which = _map(source.get("target")), _map(source.get("metric"))
        out["external"] = _present(metricName=which.get("name"), metricSelector=which.get("selector"),
                                   targetValue=target.get("value"), targetAverageValue=target.get("averageValue"))
    return out


def _metric_status_v1(metric: Obj) -> Obj:
    kind = metric.get("type")
    out: Obj = {"type": kind}
    if kind == "Object" and isinstance(metric.get("object"), dict):
        source = metric["object"]
        current, which = _map(source.get("current")), _map(source.get("metric"))
        out["object"] = _present(target=source.get("describedObject"), metricName=which.get("name"),
                                 currentValue=current.get("value", "0"), selector=which.get("selector"),
                                 averageValue=current.get("averageValue"))
    elif kind == "Pods" and isinstance(metric.get("pods"), dict):
        source = metric["pods"]
        current, which = _map(source.get("current")), _map(source.get("metric"))
        out["pods"] = _present(metricName=which.get("name"), currentAverageValue=current.get("averageValue", "0"),
                               selector=which.get("selector"))
    elif kind in ("Resource", "ContainerResource"):
        field = "resource" if kind == "Resource" else "containerResource"
        source = _map(metric.get(field))
        current = _map(source.get("current"))
        out[field] = _present(name=source.get("name"), currentAverageUtilization=current.get("averageUtilization"),
                              currentAverageValue=current.get("averageValue", "0"), container=source.get("container"))
    elif kind == "External" and isinstance(metric.get("external"), dict):
        source = metric["external"]
        current, which = _map(source.get("current")), _map(source.get("metric"))
        out["external"] = _present(metricName=which.get("name"), metricSelector=which.get("selector"),
                                   currentValue=current.get("value", "0"),
                                   currentAverageValue=current.get("averageValue"))
    return out


def _go_rules(rules: Any) -> Any:
    """Scaling rules as Go's encoding/json writes the internal type: exported names, nil as null."""
    if not isinstance(rules, dict):
        return None
    policies = rules.get("policies")
    return {"StabilizationWindowSeconds": rules.get("stabilizationWindowSeconds"),
            "SelectPolicy": rules.get("selectPolicy"),
            "Policies": None if policies is None else [
                {"Type": p.get("type"), "Value": p.get("value", 0), "PeriodSeconds": p.get("periodSeconds", 0)}
                for p in policies],
            "Tolerance": rules.get("tolerance")}


def _is_cpu_utilization(metric: Obj) -> bool:
    resource = metric.get("resource") or {}
    return (metric.get("type") == "Resource" and resource.get("name") == "cpu"
            and _map(resource.get("target")).get("averageUtilization") is not None)


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


def v2_to_v1(hpa: Obj) -> Obj:
    spec, status = hpa.get("spec") or {}, hpa.get("status") or {}
    meta = copy.deepcopy(hpa.get("metadata") or {})
    metrics = [m for m in spec.get("metrics") or () if isinstance(m, dict)]
    annotations = dict(meta.get("annotations") or {})
    other = [_metric_spec_v1(m) for m in metrics if not _is_cpu_utilization(m)]
    if other:
        annotations[METRICS] = _json(other)
    if status.get("currentMetrics"):
        annotations[CURRENT_METRICS] = _json([_metric_status_v1(m) for m in status["currentMetrics"]])
    if isinstance(spec.get("behavior"), dict):
        behavior = spec["behavior"]
        annotations[BEHAVIOR] = _json({"ScaleUp": _go_rules(behavior.get("scaleUp")),
                                       "ScaleDown": _go_rules(behavior.get("scaleDown"))})
    if status.get("conditions"):
        annotations[CONDITIONS] = _json([_present(type=c.get("type"), status=c.get("status"),
                                                  lastTransitionTime=c.get("lastTransitionTime"),
                                                  reason=c.get("reason"), message=c.get("message"))
                                         for c in status["conditions"]])
    if annotations:
        # A Go map: written in key order.
        meta["annotations"] = dict(sorted(annotations.items()))
    cpu = next((m for m in metrics if _is_cpu_utilization(m)), None)
    spec_v1 = _present(scaleTargetRef=spec.get("scaleTargetRef"), minReplicas=spec.get("minReplicas"),
                       maxReplicas=spec.get("maxReplicas", 0),
                       targetCPUUtilizationPercentage=None if cpu is None
                       else cpu["resource"]["target"]["averageUtilization"])
    current_cpu = next((m["resource"]["current"]["averageUtilization"] for m in status.get("currentMetrics") or ()
                        if m.get("type") == "Resource" and (m.get("resource") or {}).get("name") == "cpu"
                        and ((m["resource"].get("current") or {}).get("averageUtilization")) is not None), None)
    status_v1 = _present(observedGeneration=status.get("observedGeneration"),
                         lastScaleTime=status.get("lastScaleTime"),
                         currentReplicas=status.get("currentReplicas", 0),
                         desiredReplicas=status.get("desiredReplicas", 0),
                         currentCPUUtilizationPercentage=current_cpu)
    return {"kind": "HorizontalPodAutoscaler", "apiVersion": V1, "metadata": meta, "spec": spec_v1,
            "status": status_v1}


# -- v1 -> v2 ------------------------------------------------------------------------------------

def _metric_spec_v2(metric: Obj) -> Obj:
    kind = metric.get("type")
    out: Obj = {"type": kind}
    if kind == "Object":
        source = _map(metric.get("object"))
        target = _present(type="AverageValue" if source.get("averageValue") is not None else "Value",
                          value=source.get("targetValue") if source.get("averageValue") is None else None,
                          averageValue=source.get("averageValue"))
        out["object"] = {"describedObject": _map(source.get("target")), "target": target,
                         "metric": _present(name=source.get("metricName", ""), selector=source.get("selector"))}
    elif kind == "Pods":
        source = _map(metric.get("pods"))
        out["pods"] = {"metric": _present(name=source.get("metricName", ""), selector=source.get("selector")),
                       "target": {"type": "AverageValue", "averageValue": source.get("targetAverageValue", "0")}}
    elif kind in ("Resource", "ContainerResource"):
        field = "resource" if kind == "Resource" else "containerResource"
        source = _map(metric.get(field))
        utilization = source.get("targetAverageUtilization")
        target = ({"type": "Utilization", "averageUtilization": utilization} if utilization is not None
                  else {"type": "AverageValue", "averageValue": source.get("targetAverageValue")})
        out[field] = _present(name=source.get("name", ""), target=target, container=source.get("container"))
    elif kind == "External":
        source = _map(metric.get("external"))
        average = source.get("targetAverageValue")
        target = ({"type": "AverageValue", "averageValue": average} if average is not None
                  else {"type": "Value", "value": source.get("targetValue")})
        out["external"] = {"metric": _present(name=source.get("metricName", ""),
                                              selector=source.get("metricSelector")), "target": target}
    return out


def _metric_status_v2(metric: Obj) -> Obj:
    kind = metric.get("type")
    out: Obj = {"type": kind}
    if kind == "Object":
        source = _map(metric.get("object"))
        out["object"] = {"metric": _present(name=source.get("metricName", ""), selector=source.get("selector")),
                         "current": _present(value=source.get("currentValue"),
                                             averageValue=source.get("averageValue")),
                         "describedObject": _map(source.get("target"))}
    elif kind == "Pods":
        source = _map(metric.get("pods"))
        out["pods"] = {"metric": _present(name=source.get("metricName", ""), selector=source.get("selector")),
                       "current": {"averageValue": source.get("currentAverageValue", "0")}}
    elif kind in ("Resource", "ContainerResource"):
        field = "resource" if kind == "Resource" else "containerResource"
        source = _map(metric.get(field))
        out[field] = _present(name=source.get("name", ""), current=_present(
            averageValue=source.get("currentAverageValue"),
            averageUtilization=source.get("currentAverageUtilization")), container=source.get("container"))
    elif kind == "External":
        source = _map(metric.get("external"))
        out["external"] = {"metric": _present(name=source.get("metricName", ""),
                                              selector=source.get("metricSelector")),
                           "current": _present(value=source.get("currentValue"),
                                               averageValue=source.get("currentAverageValue"))}
    return out


def _from_go_rules(rules: Any) -> Any:
    if not isinstance(rules, dict):
        return None
    policies = rules.get("Policies")
    return _present(stabilizationWindowSeconds=rules.get("StabilizationWindowSeconds"),
                    selectPolicy=rules.get("SelectPolicy"),
                    policies=None if policies is None else [
                        {"type": p.get("Type"), "value": p.get("Value"), "periodSeconds": p.get("PeriodSeconds")}
                        for p in policies if isinstance(p, dict)],
                    tolerance=rules.get("Tolerance"))


def _annotation(annotations: Obj, key: str) -> Any:
    raw = annotations.pop(key, None)
    if not isinstance(raw, str):
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None  # upstream ignores an annotation it cannot read


def v1_to_v2(hpa: Obj) -> Obj:
    """A v1 object as stored: the annotations' fields back in place, the annotations themselves gone."""
    meta = copy.deepcopy(hpa.get("metadata") or {})
    spec: Obj = hpa["spec"] if isinstance(hpa.get("spec"), dict) else {}
    status: Obj = hpa["status"] if isinstance(hpa.get("status"), dict) else {}
    annotations = dict(meta.get("annotations") or {}) if isinstance(meta.get("annotations"), dict) else {}
    metrics = [_metric_spec_v2(m) for m in _annotation(annotations, METRICS) or () if isinstance(m, dict)]
    if spec.get("targetCPUUtilizationPercentage") is not None:
        metrics.append({"type": "Resource", "resource": {"name": "cpu", "target": {
            "type": "Utilization", "averageUtilization": spec["targetCPUUtilizationPercentage"]}}})
    current = [_metric_status_v2(m) for m in _annotation(annotations, CURRENT_METRICS) or () if isinstance(m, dict)]
    if status.get("currentCPUUtilizationPercentage") is not None and not any(
            m.get("type") == "Resource" and m["resource"].get("name") == "cpu" for m in current):
        current.append({"type": "Resource", "resource": {"name": "cpu", "current": {
            "averageUtilization": status["currentCPUUtilizationPercentage"]}}})
    behavior = _annotation(annotations, BEHAVIOR)
    conditions = _annotation(annotations, CONDITIONS)
    if isinstance(meta.get("annotations"), dict):
        meta["annotations"] = annotations
    spec_v2 = _present(scaleTargetRef=spec.get("scaleTargetRef"), minReplicas=spec.get("minReplicas"),
                       maxReplicas=spec.get("maxReplicas"), metrics=metrics or None,
                       behavior=None if not isinstance(behavior, dict) else _present(
                           scaleUp=_from_go_rules(behavior.get("ScaleUp")),
                           scaleDown=_from_go_rules(behavior.get("ScaleDown"))))
    out: Obj = {"kind": "HorizontalPodAutoscaler", "apiVersion": V2, "metadata": meta, "spec": spec_v2}
    if "status" in hpa:
        out["status"] = _present(observedGeneration=status.get("observedGeneration"),
                                 lastScaleTime=status.get("lastScaleTime"),
                                 currentReplicas=status.get("currentReplicas"),
                                 desiredReplicas=status.get("desiredReplicas"),
                                 currentMetrics=current or None,
                                 conditions=[c for c in conditions if isinstance(c, dict)] or None
                                 if isinstance(conditions, list) else None)
    return out
