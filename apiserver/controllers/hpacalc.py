"""The horizontal-pod-autoscaler's arithmetic, as upstream's `pkg/controller/podautoscaler` does it.

`resource_replicas` is ReplicaCalculator.GetResourceReplicas (and GetRawResourceReplicas for an
average value target): pods grouped into ready, unready (pending, or for CPU not ready or measured
before a full window since they became ready, in their first 5 minutes), missing (no metrics) and
ignored (deleted or failed); a ratio within the tolerance (0.1) changes nothing; missing pods count
as using their whole request (scale down) or nothing (scale up), unready ones as nothing on a scale up,
and a recount that would turn the direction round changes nothing. `Recommendations` keeps what each
sync proposed, for the scale-down stabilization window (5 minutes) or a behavior's windows, and the
scale events that a behavior's policies limit the rate by. Values are in thousandths (Go's MilliValue).
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass, field
from typing import Any

from apiserver.controllers.quantities import parse

Obj = dict[str, Any]

TOLERANCE = 0.1  # --horizontal-pod-autoscaler-tolerance
CPU_INITIALIZATION_SECONDS = 300.0  # --horizontal-pod-autoscaler-cpu-initialization-period
INITIAL_READINESS_DELAY_SECONDS = 30.0  # --horizontal-pod-autoscaler-initial-readiness-delay
DOWNSCALE_STABILIZATION_SECONDS = 300  # --horizontal-pod-autoscaler-downscale-stabilization
SCALE_UP_LIMIT_FACTOR = 2.0
SCALE_UP_LIMIT_MINIMUM = 4.0


class MetricError(Exception):
    """Why no replica count could be computed from a metric, in upstream's words."""


@dataclass(frozen=True)
class Sample:
    value: int  # thousandths of the resource's unit
    timestamp: float  # seconds since the epoch
    window: float  # seconds


@dataclass(frozen=True)
class Proposal:
    replicas: int
    utilization: int | None  # percent of the requests, for a utilization target
    raw_average: int  # thousandths


def _time(text: str | None) -> float | None:
    if not text:
        return None
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _ready_condition(pod: Obj) -> Obj | None:
    return next((c for c in (pod.get("status") or {}).get("conditions") or () if c.get("type") == "Ready"), None)


def group_pods(pods: list[Obj], metrics: dict[str, Sample], resource: str, now: float
               ) -> tuple[int, set[str], set[str], set[str]]:
    """upstream's groupPods: (ready count, unready, missing, ignored)."""
    ready, unready, missing, ignored = 0, set(), set(), set()
    for pod in pods:
        name = pod["metadata"]["name"]
        status = pod.get("status") or {}
        if pod["metadata"].get("deletionTimestamp") or status.get("phase") == "Failed":
            ignored.add(name)
            continue
        if status.get("phase") == "Pending":
            unready.add(name)
            continue
        sample = metrics.get(name)
        if sample is None:
            missing.add(name)
            continue
        if resource == "cpu":
            condition, started = _ready_condition(pod), _time(status.get("startTime"))
            if condition is None or started is None:
                is_unready = True
            else:
                transition = _time(condition.get("lastTransitionTime")) or 0.0
                if started + CPU_INITIALIZATION_SECONDS > now:
                    is_unready = condition.get("status") == "False" or sample.timestamp < transition + sample.window
                else:
                    is_unready = condition.get("status") == "False" and \
                        started + INITIAL_READINESS_DELAY_SECONDS > transition
            if is_unready:
                unready.add(name)
                continue
        ready += 1
    return ready, unready, missing, ignored


def requests_of(pods: list[Obj], resource: str, container: str = "") -> dict[str, int]:
    """Each pod's request of the resource (of one container, if named), in thousandths."""
    found = {}
    for pod in pods:
        total = 0
        for c in (pod.get("spec") or {}).get("containers") or ():
            if container and c.get("name") != container:
                continue
            value = ((c.get("resources") or {}).get("requests") or {}).get(resource)
            if value is None:
                raise MetricError(f"missing request for {resource} in container {c.get('name')} of Pod "
                                  f"{pod['metadata']['name']}")
            total += round(parse(value) * 1000)
        found[pod["metadata"]["name"]] = total
    return found


def _utilization(metrics: dict[str, int], requests: dict[str, int], target: int) -> tuple[float, int, int]:
    """GetResourceUtilizationRatio: (ratio, utilization percent, raw average)."""
    used = asked = entries = 0
    for name, value in metrics.items():
        if name in requests:
            used, asked, entries = used + value, asked + requests[name], entries + 1
    if asked == 0:
        raise MetricError("no metrics returned matched known pods")
    utilization = used * 100 // asked
    return utilization / target, utilization, used // entries


def _usage_ratio(metrics: dict[str, int], target: int) -> tuple[float, int]:
    """GetMetricUsageRatio: (ratio, average)."""
    average = sum(metrics.values()) // len(metrics)
    return average / target, average


@dataclass(frozen=True)
class Tolerances:
    down: float = TOLERANCE
    up: float = TOLERANCE

    def within(self, ratio: float) -> bool:
        return 1.0 - self.down <= ratio <= 1.0 + self.up


def resource_replicas(current: int, pods: list[Obj], samples: dict[str, Sample], resource: str,
                      target_utilization: int | None, target_average: int | None, tolerances: Tolerances,
                      now: float, container: str = "") -> Proposal:
    """Replicas for a Resource (or ContainerResource) metric: a utilization target, or an average value
    target (thousandths) when `target_utilization` is None."""
    if not pods:
        raise MetricError("no pods returned by selector while calculating replica count")
    ready, unready, missing, ignored = group_pods(pods, samples, resource, now)
    metrics = {name: s.value for name, s in samples.items() if name not in ignored and name not in unready}
    if not metrics:
        raise MetricError("did not receive metrics for targeted pods (pods might be unready)")
    if target_utilization is not None:
        requests = requests_of(pods, resource, container)
        ratio, utilization, raw = _utilization(metrics, requests, target_utilization)
    else:
        assert target_average is not None
        requests, utilization = {}, None
        ratio, raw = _usage_ratio(metrics, target_average)
    scale_up_with_unready = bool(unready) and ratio > 1.0
    if not scale_up_with_unready and not missing:
        if tolerances.within(ratio):
            return Proposal(current, utilization, raw)
        return Proposal(math.ceil(ratio * ready), utilization, raw)
    if missing:
        for name in missing:
            if ratio < 1.0:
                if target_utilization is not None:
                    metrics[name] = requests[name] * max(100, target_utilization) // 100
                else:
                    metrics[name] = target_average or 0
            elif ratio > 1.0:
                metrics[name] = 0
    if scale_up_with_unready:
        for name in unready:
            metrics[name] = 0
    if target_utilization is not None:
        new_ratio = _utilization(metrics, requests, target_utilization)[0]
    else:
        new_ratio = _usage_ratio(metrics, target_average or 1)[0]
    if tolerances.within(new_ratio) or (ratio < 1.0 < new_ratio) or (ratio > 1.0 > new_ratio):
        return Proposal(current, utilization, raw)
    replicas = math.ceil(new_ratio * len(metrics))
    if (new_ratio < 1.0 and replicas > current) or (new_ratio > 1.0 and replicas < current):
        return Proposal(current, utilization, raw)
    return Proposal(replicas, utilization, raw)


# -- stabilization and rate limits --------------------------------------------------------------

DEFAULT_SCALE_UP: Obj = {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
                         "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15},
                                      {"type": "Percent", "value": 100, "periodSeconds": 15}]}
DEFAULT_SCALE_DOWN: Obj = {"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}


def with_defaults(rules: Obj | None, defaults: Obj) -> Obj:
    """GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: what is unset taken from the defaults."""
    filled = dict(rules or {})
    for key in ("stabilizationWindowSeconds", "selectPolicy", "policies"):
        if filled.get(key) is None and key in defaults:
            filled[key] = defaults[key]
    return filled


@dataclass
class Recommendations:
    """One HPA's recent recommendations and scale events (the controller keeps them in memory, as upstream)."""

    recommendations: list[tuple[int, float]] = field(default_factory=list)
    scale_ups: list[tuple[int, float]] = field(default_factory=list)
    scale_downs: list[tuple[int, float]] = field(default_factory=list)

    def record_initial(self, current: int, now: float) -> None:
        if not self.recommendations:
            self.recommendations.append((current, now))

    def _remember(self, desired: int, now: float, old: float) -> None:
        """Replaces one sample older than every window, or adds one."""
        for i, (_, when) in enumerate(self.recommendations):
            if when < old:
                self.recommendations[i] = (desired, now)
                return
        self.recommendations.append((desired, now))

    def stabilize(self, desired: int, now: float, window: float = DOWNSCALE_STABILIZATION_SECONDS) -> int:
        """stabilizeRecommendation: the highest recommendation of the window."""
        cutoff = now - window
        highest = max([desired, *(r for r, when in self.recommendations if when >= cutoff)])
        self._remember(desired, now, cutoff)
        return highest

    def stabilize_with_behaviors(self, current: int, desired: int, up_window: float, down_window: float,
                                 now: float) -> int:
        """stabilizeRecommendationWithBehaviors: no higher than the lowest recent recommendation of the
        scale-up window, no lower than the highest of the scale-down window."""
        up_cutoff, down_cutoff = now - up_window, now - down_window
        up = min([desired, *(r for r, when in self.recommendations if when > up_cutoff)])
        down = max([desired, *(r for r, when in self.recommendations if when > down_cutoff)])
        self._remember(desired, now, min(up_cutoff, down_cutoff))
        return min(max(current, up), down)

    def record_scale(self, previous: int, new: int, longest_period: float, now: float) -> None:
        events = self.scale_ups if new > previous else self.scale_downs
        events[:] = [(change, when) for change, when in events if when > now - longest_period]
        events.append((abs(new - previous), now))

    def changed_within(self, period: float, now: float) -> tuple[int, int]:
        cutoff = now - period
        return (sum(c for c, when in self.scale_ups if when > cutoff),
                sum(c for c, when in self.scale_downs if when > cutoff))


def scale_up_limit(current: int, rules: Obj, history: Recommendations, now: float) -> int:
    if rules.get("selectPolicy") == "Disabled":
        return current
    pick = min if rules.get("selectPolicy") == "Min" else max
    found: int | None = None
    for policy in rules.get("policies") or ():
        added, removed = history.changed_within(float(policy.get("periodSeconds", 0)), now)
        start = current - added + removed
        value = int(policy.get("value", 0))
        proposed = start + value if policy.get("type") == "Pods" else math.ceil(start * (1 + value / 100))
        found = proposed if found is None else pick(found, proposed)
    return current if found is None else found


def scale_down_limit(current: int, rules: Obj, history: Recommendations, now: float) -> int:
    if rules.get("selectPolicy") == "Disabled":
        return current
    pick = max if rules.get("selectPolicy") == "Min" else min
    found: int | None = None
    for policy in rules.get("policies") or ():
        added, removed = history.changed_within(float(policy.get("periodSeconds", 0)), now)
        start = current - added + removed
        value = int(policy.get("value", 0))
        proposed = start - value if policy.get("type") == "Pods" else int(start * (1 - value / 100))
        found = proposed if found is None else pick(found, proposed)
    return current if found is None else found


def limit_without_behavior(current: int, desired: int, minimum: int, maximum: int) -> tuple[int, str, str]:
    """convertDesiredReplicasWithRules: (replicas, the ScalingLimited reason, its message)."""
    up_limit = int(max(SCALE_UP_LIMIT_FACTOR * current, SCALE_UP_LIMIT_MINIMUM))
    if maximum > up_limit:
        allowed, reason, message = up_limit, "ScaleUpLimit", \
            "the desired replica count is increasing faster than the maximum scale rate"
    else:
        allowed, reason, message = maximum, "TooManyReplicas", \
            "the desired replica count is more than the maximum replica count"
    if desired < minimum:
        return minimum, "TooFewReplicas", "the desired replica count is less than the minimum replica count"
    if desired > allowed:
        return allowed, reason, message
    return desired, "DesiredWithinRange", "the desired count is within the acceptable range"


def limit_with_behavior(current: int, desired: int, minimum: int, maximum: int, up: Obj, down: Obj,
                        history: Recommendations, now: float) -> tuple[int, str, str]:
    """convertDesiredReplicasWithBehaviorRate."""
    if desired > current:
        limit = max(scale_up_limit(current, up, history, now), current)
        if maximum > limit:
            allowed, reason, message = limit, "ScaleUpLimit", \
                "the desired replica count is increasing faster than the maximum scale rate"
        else:
            allowed, reason, message = maximum, "TooManyReplicas", \
                "the desired replica count is more than the maximum replica count"
        if desired > allowed:
            return allowed, reason, message
    elif desired < current:
        limit = min(scale_down_limit(current, down, history, now), current)
        if minimum < limit:
            allowed, reason, message = limit, "ScaleDownLimit", \
                "the desired replica count is decreasing faster than the maximum scale rate"
        else:
            allowed, reason, message = minimum, "TooFewReplicas", \
                "the desired replica count is less than the minimum replica count"
        if desired < allowed:
            return allowed, reason, message
    return desired, "DesiredWithinRange", "the desired count is within the acceptable range"

