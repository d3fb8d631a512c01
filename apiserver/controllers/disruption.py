"""The disruption controller: every PodDisruptionBudget's status, from the pods its selector matches.

As upstream's pkg/controller/disruption: `expectedPods` is the number of matched pods for an integer
`minAvailable`, and otherwise the sum of the scales of the pods' controllers (a Deployment through its
ReplicaSet, a ReplicaSet, a ReplicationController, a StatefulSet, else any kind with a scale
subresource); percentages round up. A pod is healthy when Ready, not terminating, and not named in
`disruptedPods` by an eviction less than two minutes ago; such an entry is dropped once its pod is
gone or terminating, or when the two minutes pass without it going (a `NotDeleted` event), and the
budget is looked at again then. When the expected count cannot be worked out, the budget fails safe:
no disruption allowed, condition reason `SyncFailed` with the cause. A pod left running two minutes
after an eviction marked it (`DisruptionTarget` True, the delete never came) has that condition turned
False again, as upstream's stale-disruption worker does.
"""

from __future__ import annotations

import datetime
from typing import Any, Hashable

from apiserver import errors
from apiserver.controllers.base import Context, Controller, Obj, object_key
from apiserver.controllers.events import Recorder
from apiserver.controllers.replicaset import controller_of, is_ready
from apiserver.controllers.rollout import scaled_value
from apiserver.controllers.selectors import label_selector_matches, labels_of
from apiserver.kinds.objects import now_rfc3339

# How long an eviction's entry in disruptedPods keeps its pod from counting as healthy (DeletionTimeout).
DELETION_TIMEOUT = datetime.timedelta(minutes=2)
# How long a pod may carry a DisruptionTarget condition without going (stalePodDisruptionTimeout).
STALE_DISRUPTION_TIMEOUT = datetime.timedelta(minutes=2)
CONDITION = "DisruptionAllowed"
_POD = "pod"  # the first part of a pod's key in the queue, beside the budgets' (namespace, name) keys


class ExpectedCountUnknown(Exception):
    """The pods' controllers could not be counted; the message is upstream's error text."""


def _parse_time(text: str) -> datetime.datetime | None:
    try:
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _api_group(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def set_condition(conditions: list[Obj], wanted: Obj) -> None:
    """apimachinery's SetStatusCondition: the transition time moves only when the status does."""
    for condition in conditions:
        if condition.get("type") == wanted["type"]:
            if condition.get("status") != wanted["status"] or not condition.get("lastTransitionTime"):
                condition["status"] = wanted["status"]
                condition["lastTransitionTime"] = now_rfc3339()
            condition["reason"] = wanted["reason"]
            condition["message"] = wanted["message"]
            condition.pop("observedGeneration", None)
            if wanted["observedGeneration"]:
                condition["observedGeneration"] = wanted["observedGeneration"]
            return
    added: Obj = {"type": wanted["type"], "status": wanted["status"]}
    if wanted["observedGeneration"]:  # omitempty
        added["observedGeneration"] = wanted["observedGeneration"]
    conditions.append({**added, "lastTransitionTime": now_rfc3339(), "reason": wanted["reason"],
                       "message": wanted["message"]})


def _condition_up_to_date(budget: Obj) -> bool:
    """pdbhelper.ConditionsAreUpToDate: the condition agrees with the status already written."""
    status = budget.get("status") or {}
    found = next((c for c in status.get("conditions") or () if c.get("type") == CONDITION), None)
    if found is None or status.get("observedGeneration") != budget["metadata"].get("generation"):
        return False
    if int(status.get("disruptionsAllowed") or 0) > 0:
        return bool(found.get("status") == "True" and found.get("reason") == "SufficientPods")
    return bool(found.get("status") == "False" and found.get("reason") == "InsufficientPods")


class DisruptionController(Controller):
    name = "disruption-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.budget_type = ctx.resource("policy", "v1", "poddisruptionbudgets")
        self.pods_type = ctx.resource("", "v1", "pods")
        self.budgets = ctx.informer("policy", "v1", "poddisruptionbudgets")
        self.pods = ctx.informer("", "v1", "pods")
        # Listers only, as upstream: a scale change shows in the pods it makes or removes.
        self.replicasets = ctx.informer("apps", "v1", "replicasets")
        self.deployments = ctx.informer("apps", "v1", "deployments")
        self.statefulsets = ctx.informer("apps", "v1", "statefulsets")
        self.replicationcontrollers = ctx.informer("", "v1", "replicationcontrollers")
        # Upstream's events come from the core broadcaster with the component "controllermanager".
        self.events = Recorder(self.client, "controllermanager")
        self.budgets.add_handler(self.enqueue_changed)
        self.pods.add_handler(self._pod_changed)

    def _pod_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is not None:
            wait = _stale_disruption_wait(new)
            if wait is not None:
                self.queue.add_after((_POD, new["metadata"]["namespace"], new["metadata"]["name"]), wait)
        # Both label sets: a pod relabelled out of a budget changes that budget's count too.
        for pod in (old, new):
            if pod is None:
                continue
            for budget in self.budgets.items(pod["metadata"].get("namespace", "")):
                if label_selector_matches((budget.get("spec") or {}).get("selector"), labels_of(pod)):
                    self.queue.add(object_key(budget))

    def pods_of(self, budget: Obj) -> list[Obj]:
        selector = (budget.get("spec") or {}).get("selector")
        return [p for p in self.pods.items(budget["metadata"]["namespace"])
                if label_selector_matches(selector, labels_of(p))]

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        if key[0] == _POD and len(key) == 3:
            await self._clear_stale_disruption(key[1], key[2])
            return
        budget = self.budgets.get(*key)
        if budget is None:
            return
        pods = self.pods_of(budget)
        try:
            expected, desired, unmanaged = self._expected_and_desired(budget, pods)
        except ExpectedCountUnknown as exc:
            await self.events.record(budget, "Warning", "CalculateExpectedPodCountFailed", "Sync",
                                     f"Failed to calculate the number of expected pods: {exc}")
            await self._fail_safe(budget, str(exc))
            return
        now = datetime.datetime.now(datetime.timezone.utc)
        disrupted, recheck = await self._disrupted_pods(budget, pods, now)
        healthy = sum(1 for p in pods if not p["metadata"].get("deletionTimestamp")
                      and p["metadata"]["name"] not in disrupted and is_ready(p))
        if await self._write_status(budget, healthy, desired, expected, disrupted):
            if not pods:
                await self.events.record(budget, "Normal", "NoPods", "Sync", "No matching pods found")
            if unmanaged:
                await self.events.record(
                    budget, "Warning", "UnmanagedPods",
                    "Sync", "Pods selected by this PodDisruptionBudget (selector: "
                    f"{(budget.get('spec') or {}).get('selector')}) were found to be unmanaged. As a result, the "
                    "status of the PDB cannot be calculated correctly, which may result in undefined behavior. To "
                    "account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value.")
        if recheck is not None:
            self.queue.add_after(key, (recheck - now).total_seconds())

    def _expected_and_desired(self, budget: Obj, pods: list[Obj]) -> tuple[int, int, list[str]]:
        """(expectedPods, desiredHealthy, unmanaged pod names), as upstream's getExpectedPodCount."""
        spec = budget.get("spec") or {}
        if spec.get("maxUnavailable") is not None:
            expected, unmanaged = self._expected_scale(pods)
            return expected, max(expected - scaled_value(spec["maxUnavailable"], expected, True), 0), unmanaged
        minimum = spec.get("minAvailable")
        if isinstance(minimum, int):
            return len(pods), minimum, []
        if minimum is not None:
            expected, unmanaged = self._expected_scale(pods)
            return expected, scaled_value(minimum, expected, True), unmanaged
        return 0, 0, []

    def _expected_scale(self, pods: list[Obj]) -> tuple[int, list[str]]:
        """The sum of the scales of the pods' controllers, each counted once, and the pods without one."""
        scales: dict[str, int] = {}
        unmanaged: list[str] = []
        for pod in pods:
            ref = controller_of(pod)
            if ref is None:
                unmanaged.append(pod["metadata"]["name"])
                continue
            if ref.get("uid") in scales:
                continue
            found = self._controller_scale(ref, pod["metadata"].get("namespace", ""))
            if found is None:
                raise ExpectedCountUnknown(f'found no controllers for pod "{pod["metadata"]["name"]}"')
            scales[found[0]] = found[1]
        return sum(scales.values()), unmanaged

    def _controller_scale(self, ref: Obj, namespace: str) -> tuple[str, int] | None:
        """(uid, replicas) of the controller a reference names, as upstream's finders in their order."""
        kind, group = ref.get("kind"), _api_group(str(ref.get("apiVersion", "")))
        if kind == "ReplicationController" and group == "":
            return _scale_of(self.replicationcontrollers.get(namespace, ref["name"]), ref)
        if kind == "ReplicaSet" and group in ("apps", "extensions"):
            rs = self.replicasets.get(namespace, ref["name"])
            if rs is None or rs["metadata"].get("uid") != ref.get("uid"):
                return None
            owner = controller_of(rs)
            if owner is None or owner.get("kind") != "Deployment":
                return _scale_of(rs, ref)
            if _api_group(str(owner.get("apiVersion", ""))) not in ("apps", "extensions"):
                return None
            return _scale_of(self.deployments.get(namespace, owner["name"]), owner)
        if kind == "StatefulSet" and group == "apps":
            return _scale_of(self.statefulsets.get(namespace, ref["name"]), ref)
        return self._scale_subresource(ref, namespace)

    def _scale_subresource(self, ref: Obj, namespace: str) -> tuple[str, int] | None:
        """Any other kind through its scale subresource, as upstream's getScaleController."""
        api_version, kind = str(ref.get("apiVersion", "")), str(ref.get("kind", ""))
        rt = self.client.for_kind(api_version, kind)
        if rt is None:
            raise ExpectedCountUnknown(f'no matches for kind "{kind}" in version "{api_version}"')
        if rt.subresource("scale") is None:
            raise ExpectedCountUnknown(f"{rt.qualified_name} does not implement the scale subresource")
        scale = self.client.get(rt, namespace, ref["name"], "scale")
        if scale is None or scale["metadata"].get("uid") != ref.get("uid"):
            return None
        return str(ref["uid"]), int((scale.get("spec") or {}).get("replicas") or 0)

    async def _disrupted_pods(self, budget: Obj, pods: list[Obj],
                              now: datetime.datetime) -> tuple[dict[str, str], datetime.datetime | None]:
        """The entries of disruptedPods still waiting for their pod to go, and when the first one expires."""
        recorded = (budget.get("status") or {}).get("disruptedPods") or {}
        kept: dict[str, str] = {}
        recheck: datetime.datetime | None = None
        for pod in pods:
            name = pod["metadata"]["name"]
            if pod["metadata"].get("deletionTimestamp") or name not in recorded:
                continue
            since = _parse_time(str(recorded[name]))
            if since is None:
                continue
            expires = since + DELETION_TIMEOUT
            if expires < now:
                meta = budget["metadata"]
                # Upstream names the budget's namespace twice here; kept, as clients may match on it.
                await self.events.record(pod, "Warning", "NotDeleted", "Sync",
                                         f"Pod was expected by PDB {meta['namespace']}/{meta['namespace']} "
                                         "to be deleted but it wasn't")
                continue
            kept[name] = recorded[name]
            if recheck is None or expires < recheck:
                recheck = expires
        return kept, recheck

    async def _write_status(self, budget: Obj, healthy: int, desired: int, expected: int,
                            disrupted: dict[str, str]) -> bool:
        """Writes the status unless it already says this; True when it wrote."""
        allowed = healthy - desired
        if expected <= 0 or allowed <= 0:
            # A budget matching no pods yet must not let the first ones go before it has counted them.
            allowed = 0
        status: Obj = budget.get("status") or {}
        generation = budget["metadata"].get("generation")
        if (status.get("currentHealthy", 0), status.get("desiredHealthy", 0), status.get("expectedPods", 0),
                status.get("disruptionsAllowed", 0), status.get("disruptedPods") or {},
                status.get("observedGeneration")) == (healthy, desired, expected, allowed, disrupted, generation) \
                and _condition_up_to_date(budget):
            return False
        conditions: list[Obj] = [dict(c) for c in status.get("conditions") or ()]
        sufficient = allowed > 0
        set_condition(conditions, {"type": CONDITION, "status": "True" if sufficient else "False",
                                   "reason": "SufficientPods" if sufficient else "InsufficientPods",
                                   "message": "", "observedGeneration": generation})
        fresh: Obj = {"observedGeneration": generation}
        if disrupted:
            fresh["disruptedPods"] = disrupted
        fresh.update({"disruptionsAllowed": allowed, "currentHealthy": healthy, "desiredHealthy": desired,
                      "expectedPods": expected, "conditions": conditions})
        await self.client.update(self.budget_type, {**budget, "status": fresh}, subresource="status")
        return True

    async def _fail_safe(self, budget: Obj, cause: str) -> None:
        """No disruption allowed while the count is unknown: the eviction API then refuses every pod."""
        status: Obj = dict(budget.get("status") or {})
        conditions: list[Obj] = [dict(c) for c in status.get("conditions") or ()]
        set_condition(conditions, {"type": CONDITION, "status": "False", "reason": "SyncFailed", "message": cause,
                                   "observedGeneration": status.get("observedGeneration", 0)})
        status.update({"disruptionsAllowed": 0, "conditions": conditions})
        if status == (budget.get("status") or {}):
            return
        try:
            await self.client.update(self.budget_type, {**budget, "status": status}, subresource="status")
        except errors.ApiError as exc:
            if exc.code != 404:
                raise


    async def _clear_stale_disruption(self, namespace: str, name: str) -> None:
        pod = self.pods.get(namespace, name)
        if pod is None:
            return
        wait = _stale_disruption_wait(pod)
        if wait is None:
            return
        if wait > 0:
            self.queue.add_after((_POD, namespace, name), wait)
            return
        # UpdatePodCondition with only a type and status: reason and message go, the transition is now.
        conditions = [{"type": "DisruptionTarget", "status": "False", "lastProbeTime": None,
                       "lastTransitionTime": now_rfc3339()} if c.get("type") == "DisruptionTarget" else c
                      for c in pod["status"]["conditions"]]
        await self.client.update(self.pods_type, {**pod, "status": {**pod["status"], "conditions": conditions}},
                                 subresource="status")


def _stale_disruption_wait(pod: Obj) -> float | None:
    """Seconds until a running pod's DisruptionTarget condition counts as stale; None when it has none that
    can be (the kubelet's own, or one on a terminating or finished pod)."""
    status = pod.get("status") or {}
    if pod["metadata"].get("deletionTimestamp") or status.get("phase") in ("Succeeded", "Failed"):
        return None
    found = next((c for c in status.get("conditions") or () if c.get("type") == "DisruptionTarget"), None)
    if found is None or found.get("status") != "True" or found.get("reason") == "TerminationByKubelet":
        return None
    since = _parse_time(str(found.get("lastTransitionTime") or ""))
    if since is None:
        return 0.0
    left = since + STALE_DISRUPTION_TIMEOUT - datetime.datetime.now(datetime.timezone.utc)
    return max(left.total_seconds(), 0.0)


def _scale_of(owner: Obj | None, ref: Obj) -> tuple[str, int] | None:
    if owner is None or owner["metadata"].get("uid") != ref.get("uid"):
        return None
    value: Any = (owner.get("spec") or {}).get("replicas")
    return str(owner["metadata"]["uid"]), 1 if value is None else int(value)
