"""The horizontal-pod-autoscaler-controller: each HorizontalPodAutoscaler evaluated every
`--horizontal-pod-autoscaler-sync-period` (15 s), as upstream's `reconcileAutoscaler` does it.

It reads the target's scale subresource, measures the pods its selector picks with the numbers
metrics.k8s.io serves (the simulated usage of pods on simulated nodes: apiserver.simulated.usage),
proposes replicas per metric (apiserver.controllers.hpacalc), keeps the highest, stabilizes and
limits it (without `behavior`: the 5-minute scale-down window and at most doubling, at least 4; with
it: its windows and policies), writes the scale, and keeps the status and conditions (AbleToScale,
ScalingActive, ScalingLimited) and events in upstream's words. Resource and ContainerResource
metrics are measured; Pods, Object and External metrics need a custom or external metrics API, which
this server does not serve, and fail as they fail upstream without one.
"""

from __future__ import annotations

import copy
import datetime
import time
from typing import Hashable

from apiserver import errors
from apiserver.controllers.base import Context, Controller, Obj, either, object_key
from apiserver.controllers.events import Recorder
from apiserver.controllers.hpacalc import (
    DEFAULT_SCALE_DOWN,
    DEFAULT_SCALE_UP,
    DOWNSCALE_STABILIZATION_SECONDS,
    MetricError,
    Recommendations,
    Sample,
    Tolerances,
    limit_with_behavior,
    limit_without_behavior,
    resource_replicas,
    with_defaults,
)
from apiserver.controllers.quantities import parse
from apiserver.query.labels import SelectorError, parse_label_selector
from apiserver.simulated.annotations import is_simulated
from apiserver.simulated.usage import WINDOW_SECONDS, container_usage, reports

EVENT_SOURCE = "horizontal-pod-autoscaler"
Key = tuple[str, str]


def _rfc3339() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def set_condition(hpa: Obj, kind: str, status: str, reason: str, message: str) -> None:
    """setCondition: the transition time moves only when the status does."""
    conditions = hpa.setdefault("status", {}).setdefault("conditions", [])
    for condition in conditions:
        if condition.get("type") == kind:
            if condition.get("status") != status:
                condition["lastTransitionTime"] = _rfc3339()
            condition.update(status=status, reason=reason, message=message)
            return
    conditions.append({"type": kind, "status": status, "lastTransitionTime": _rfc3339(), "reason": reason,
                       "message": message})


def quantity(resource: str, thousandths: int) -> str:
    """buildQuantity: CPU as DecimalSI, memory as BinarySI, from a milli-value."""
    if thousandths % 1000:
        return f"{thousandths}m"
    whole = thousandths // 1000
    if resource == "memory":
        for suffix, size in (("Ei", 2 ** 60), ("Pi", 2 ** 50), ("Ti", 2 ** 40), ("Gi", 2 ** 30), ("Mi", 2 ** 20),
                             ("Ki", 2 ** 10)):
            if whole and whole % size == 0:
                return f"{whole // size}{suffix}"
    return str(whole)


class HorizontalPodAutoscaler(Controller):
    name = "horizontal-pod-autoscaler-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.hpas_type = ctx.resource("autoscaling", "v2", "horizontalpodautoscalers")
        self.hpas = ctx.informer("autoscaling", "v2", "horizontalpodautoscalers")
        self.pods = ctx.informer("", "v1", "pods")
        self.nodes = ctx.informer("", "v1", "nodes")
        self.events = Recorder(self.client, EVENT_SOURCE)
        self.period = ctx.settings.hpa_sync_seconds
        self.history: dict[Key, Recommendations] = {}
        self._warned: dict[Key, set[tuple[str, str]]] = {}
        self.hpas.add_handler(self._hpa_changed)

    def _hpa_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is None:
            self.history.pop(object_key(either(old, new)), None)
            self._warned.pop(object_key(either(old, new)), None)
        elif old is None or old.get("spec") != new.get("spec"):
            self.queue.add(object_key(new))  # its own status writes wait for the next period

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        hpa = self.hpas.get(*key)
        if hpa is None:
            return
        try:
            await self._reconcile(key, copy.deepcopy(hpa))
        finally:
            self.queue.add_after(key, self.period)

    async def _reconcile(self, key: Key, hpa: Obj) -> None:
        original = copy.deepcopy(hpa.get("status") or {})
        spec = hpa.get("spec") or {}
        namespace = hpa["metadata"]["namespace"]
        ref = spec.get("scaleTargetRef") or {}
        target = self.client.for_kind(str(ref.get("apiVersion", "")), str(ref.get("kind", "")))
        scale = None if target is None else self.client.get(target, namespace, str(ref.get("name", "")), "scale")
        if target is None or scale is None:
            why = (f'no matches for kind "{ref.get("kind")}" in group "{str(ref.get("apiVersion", "")).rpartition("/")[0]}"'
                   if target is None else f'{target.qualified_name} "{ref.get("name")}" not found')
            await self._event(hpa, "Warning", "FailedGetScale", "FailedGetScale", why)
            set_condition(hpa, "AbleToScale", "False", "FailedGetScale",
                          f"the HPA controller was unable to get the target's current scale: {why}")
            await self._write_status(hpa, original)
            return
        set_condition(hpa, "AbleToScale", "True", "SucceededGetScale",
                      "the HPA controller was able to get the target's current scale")
        now = time.time()
        current = int((scale.get("spec") or {}).get("replicas") or 0)
        history = self.history.setdefault(key, Recommendations())
        history.record_initial(current, now)
        minimum = int(spec.get("minReplicas", 1))
        maximum = int(spec.get("maxReplicas", 1))
        statuses: list[Obj] = []
        desired, reason, rescale = 0, "", True
        if current == 0:
            desired, rescale = 0, False
            set_condition(hpa, "ScalingActive", "False", "ScalingDisabled",
                          "scaling is disabled since the replica count of the target is zero")
        elif current > maximum:
            desired, reason = maximum, "Current number of replicas above Spec.MaxReplicas"
        elif current < minimum:
            desired, reason = minimum, "Current number of replicas below Spec.MinReplicas"
        else:
            proposed, metric, statuses, failure = await self._metrics(hpa, scale, current, now)
            if proposed < 0:
                hpa["status"] = {**hpa.get("status", {}), "currentReplicas": current, "currentMetrics": statuses or None}
                await self._write_status(hpa, original)
                await self._event(hpa, "Warning", "FailedComputeMetricsReplicas", "FailedComputeMetricsReplicas",
                                  failure)
                return
            desired = proposed
            if desired > current:
                reason = f"{metric} above target"
            elif desired < current:
                reason = "All metrics below target"
            desired = self._normalize(hpa, history, current, desired, minimum, maximum, now)
            rescale = desired != current
        if rescale:
            scale["spec"]["replicas"] = desired
            try:
                await self.client.update(target, scale, subresource="scale")
            except errors.ApiError as exc:
                await self._event(hpa, "Warning", "FailedRescale", "FailedRescale",
                                  f"New size: {desired}; reason: {reason}; error: {exc.message}")
                set_condition(hpa, "AbleToScale", "False", "FailedUpdateScale",
                              f"the HPA controller was unable to update the target scale: {exc.message}")
                await self._write_status(hpa, original)
                raise
            set_condition(hpa, "AbleToScale", "True", "SucceededRescale",
                          f"the HPA controller was able to update the target scale to {desired}")
            await self._event(hpa, "Normal", "SuccessfulRescale", "SuccessfulRescale",
                              f"New size: {desired}; reason: {reason}")
            behavior = spec.get("behavior")
            if behavior is not None:
                rules = with_defaults(behavior.get("scaleUp" if desired > current else "scaleDown"),
                                      DEFAULT_SCALE_UP if desired > current else DEFAULT_SCALE_DOWN)
                longest = max((float(p.get("periodSeconds", 0)) for p in rules.get("policies") or ()), default=0.0)
                history.record_scale(current, desired, longest, now)
        else:
            desired = current
        status = hpa.setdefault("status", {})
        status.update(currentReplicas=current, desiredReplicas=desired)
        if statuses:
            status["currentMetrics"] = statuses
        else:
            status.pop("currentMetrics", None)
        if rescale:
            status["lastScaleTime"] = _rfc3339()
        await self._write_status(hpa, original)

    def _normalize(self, hpa: Obj, history: Recommendations, current: int, desired: int, minimum: int,
                   maximum: int, now: float) -> int:
        behavior = (hpa.get("spec") or {}).get("behavior")
        if behavior is None:
            stabilized = history.stabilize(desired, now)
            if stabilized != desired:
                set_condition(hpa, "AbleToScale", "True", "ScaleDownStabilized",
                              "recent recommendations were higher than current one, applying the highest recent "
                              "recommendation")
            else:
                set_condition(hpa, "AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size")
            limited, reason, message = limit_without_behavior(current, stabilized, minimum, maximum)
        else:
            up = with_defaults(behavior.get("scaleUp"), DEFAULT_SCALE_UP)
            down = with_defaults(behavior.get("scaleDown"), DEFAULT_SCALE_DOWN)
            down_window = down.get("stabilizationWindowSeconds")
            stabilized = history.stabilize_with_behaviors(
                current, desired, float(up.get("stabilizationWindowSeconds") or 0),
                float(DOWNSCALE_STABILIZATION_SECONDS if down_window is None else down_window), now)
            if stabilized != desired:
                if desired >= current:
                    set_condition(hpa, "AbleToScale", "True", "ScaleUpStabilized",
                                  "recent recommendations were lower than current one, applying the lowest recent "
                                  "recommendation")
                else:
                    set_condition(hpa, "AbleToScale", "True", "ScaleDownStabilized",
                                  "recent recommendations were higher than current one, applying the highest recent "
                                  "recommendation")
            else:
                set_condition(hpa, "AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size")
            limited, reason, message = limit_with_behavior(current, stabilized, minimum, maximum, up, down, history,
                                                           now)
        set_condition(hpa, "ScalingLimited", "False" if limited == stabilized else "True", reason, message)
        return limited

    async def _metrics(self, hpa: Obj, scale: Obj, current: int, now: float) -> tuple[int, str, list[Obj], str]:
        """computeReplicasForMetrics: the highest proposal, its metric's name, the metric statuses, and the
        error to report when no proposal could be made (then the proposal is -1)."""
        specs = (hpa.get("spec") or {}).get("metrics") or [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]
        selector_text = (scale.get("status") or {}).get("selector") or ""
        try:
            if not selector_text:
                raise SelectorError("selector is required")
            selector = parse_label_selector(selector_text)
        except SelectorError as exc:
            message = "the HPA target's scale is missing a selector" if not selector_text else str(exc)
            reason = "SelectorRequired" if not selector_text else "InvalidSelector"
            await self._event(hpa, "Warning", reason, reason, message)
            set_condition(hpa, "ScalingActive", "False", "InvalidSelector",
                          "the HPA target's scale is missing a selector" if not selector_text else
                          f"couldn't convert selector into a corresponding internal selector object: {exc}")
            return -1, "", [], message
        namespace = hpa["metadata"]["namespace"]
        pods = [p for p in self.pods.items(namespace) if selector.matches(p["metadata"].get("labels"))]
        best, best_metric, statuses, invalid = 0, "", [], 0
        first_error, first_condition = "", ("", "")
        for spec in specs:
            try:
                replicas, metric, status = self._one_metric(spec, current, pods, self._tolerances(hpa), now)
            except MetricError as exc:
                kind = spec.get("type", "")
                which = (spec.get("resource") or {}).get("name") if kind == "Resource" else \
                    (spec.get("containerResource") or {}).get("container", "")
                prefix = {"Resource": f"failed to get {which} resource metric value",
                          "ContainerResource": f"failed to get {which} container metric value",
                          "Pods": "failed to get pods metric value", "Object": "failed to get object metric value",
                          "External": "failed to get external metric value"}.get(kind, "invalid metric source type")
                reason = {"Resource": "FailedGetResourceMetric", "ContainerResource": "FailedGetContainerResourceMetric",
                          "Pods": "FailedGetPodsMetric", "Object": "FailedGetObjectMetric",
                          "External": "FailedGetExternalMetric"}.get(kind, "InvalidMetricSourceType")
                await self._event(hpa, "Warning", reason, reason, str(exc))
                statuses.append({"type": ""})
                if not invalid:
                    first_error = f"{prefix}: {exc}"
                    first_condition = (reason, f"the HPA was unable to compute the replica count: {exc}")
                invalid += 1
                continue
            statuses.append(status)
            if best == 0 or replicas > best:
                best, best_metric = replicas, metric
        statuses = [s for s in statuses if s.get("type")]
        spec_replicas = int((scale.get("spec") or {}).get("replicas") or 0)
        if invalid >= len(specs) or (invalid and best < spec_replicas):
            set_condition(hpa, "ScalingActive", "False", *first_condition)
            failure = f"invalid metrics ({invalid} invalid out of {len(specs)}), first error is: {first_error}"
            return -1, "", statuses, failure
        set_condition(hpa, "ScalingActive", "True", "ValidMetricFound",
                      f"the HPA was able to successfully calculate a replica count from {best_metric}")
        return best, best_metric, statuses, ""

    def _one_metric(self, spec: Obj, current: int, pods: list[Obj], tolerances: Tolerances,
                    now: float) -> tuple[int, str, Obj]:
        kind = spec.get("type")
        if kind not in ("Resource", "ContainerResource"):
            api = "external.metrics.k8s.io" if kind == "External" else "custom.metrics.k8s.io"
            raise MetricError(f"unable to fetch metrics from {api} API: the server could not find the requested "
                              "resource")
        source = spec.get("resource" if kind == "Resource" else "containerResource") or {}
        resource, container = str(source.get("name", "")), str(source.get("container", ""))
        target = source.get("target") or {}
        samples = self._samples(pods, resource, container, now)
        if target.get("averageValue") is not None:
            average = round(parse(target["averageValue"]) * 1000)
            try:
                proposal = resource_replicas(current, pods, samples, resource, None, average, tolerances, now, container)
            except MetricError as exc:
                raise MetricError(f"failed to get {resource} usage: {exc}") from None
            current_value: Obj = {"averageValue": quantity(resource, proposal.raw_average)}
            name = f"{resource} resource"
        elif target.get("averageUtilization") is not None:
            try:
                proposal = resource_replicas(current, pods, samples, resource, int(target["averageUtilization"]),
                                             None, tolerances, now, container)
            except MetricError as exc:
                raise MetricError(f"failed to get {resource} utilization: {exc}") from None
            current_value = {"averageUtilization": proposal.utilization,
                             "averageValue": quantity(resource, proposal.raw_average)}
            name = f"{resource} {'container ' if container else ''}resource utilization (percentage of request)"
        else:
            raise MetricError("invalid resource metric source: neither an average utilization target nor an "
                              "average value (usage) target was set")
        status_key = "resource" if kind == "Resource" else "containerResource"
        status: Obj = {"type": kind, status_key: {"name": resource, "current": current_value}}
        if container:
            status[status_key]["container"] = container
        return proposal.replicas, name, status

    @staticmethod
    def _tolerances(hpa: Obj) -> Tolerances:
        """The behavior's tolerances (HPAConfigurableTolerance), else the controller's 0.1."""
        behavior = (hpa.get("spec") or {}).get("behavior") or {}
        up = (behavior.get("scaleUp") or {}).get("tolerance")
        down = (behavior.get("scaleDown") or {}).get("tolerance")
        default = Tolerances()
        return Tolerances(parse(down) if down is not None else default.down,
                          parse(up) if up is not None else default.up)

    def _samples(self, pods: list[Obj], resource: str, container: str, now: float) -> dict[str, Sample]:
        """What metrics-server would report for the pods: those running on simulated nodes."""
        found = {}
        for pod in pods:
            node = self.nodes.get("", (pod.get("spec") or {}).get("nodeName") or "")
            if not reports(pod) or not is_simulated(node):
                continue
            usages = [u for name, u in container_usage(pod) if not container or name == container]
            if usages:
                found[pod["metadata"]["name"]] = Sample(round(sum(u[resource] for u in usages) * 1000)
                                                        if resource in ("cpu", "memory") else 0, now, WINDOW_SECONDS)
        return found

    async def _event(self, hpa: Obj, kind: str, reason: str, action: str, note: str) -> None:
        """An event, unless it repeats a warning given since the HPA last scaled: upstream's recorder folds
        repeats into a count."""
        told = self._warned.setdefault(object_key(hpa), set())
        if kind == "Warning":
            if (reason, note) in told:
                return
            told.add((reason, note))
        else:
            told.clear()
        await self.events.record(hpa, kind, reason, action, note)

    async def _write_status(self, hpa: Obj, original: Obj) -> None:
        status = hpa.get("status") or {}
        if status == original:
            return
        if status.get("currentMetrics") is None:
            status.pop("currentMetrics", None)
        await self.client.update(self.hpas_type, hpa, subresource="status")
