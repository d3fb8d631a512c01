"""pods/eviction: a pod deleted only as far as its PodDisruptionBudget allows, as upstream's EvictionREST.

A pod that is pending, finished or already terminating goes at once. Otherwise the one budget whose
selector matches it must allow a disruption: its status is checked (observedGeneration current, a
disruption left), decremented with the pod named in `disruptedPods`, and written through /status
before the pod is deleted. Without controllers the budget's status is whatever a client wrote there.
Every write goes through the Endpoint, as a client's would; the pod first gets the DisruptionTarget
condition upstream adds.
"""

from __future__ import annotations

from typing import Any

import orjson

from apiserver import errors
from apiserver.errors import ApiError
from apiserver.http import admitting
from apiserver.http.endpoint import Endpoint, Target, decode_body
from apiserver.kinds import fieldvalidation, objects, propagation
from apiserver.kinds.resources import ResourceType
from apiserver.kinds.validation import invalid_value
from apiserver.query.labels import from_label_selector
from apiserver.reply import Reply
from apiserver.wire import bodies

# What a body is decoded as: EvictionREST accepts both versions (AcceptsGroupVersion).
_EVICTION = ResourceType("policy", "v1", "Eviction", "pods", "", True, verbs=("create",), synthetic=True)
_EVICTION_V1BETA1 = ResourceType("policy", "v1beta1", "Eviction", "pods", "", True, verbs=("create",), synthetic=True)
# More entries than this mean the disruption controller has fallen far behind; upstream refuses then.
MAX_DISRUPTED_PODS = 2000
_BUDGET_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget."
_LOOPBACK_AGENT = "kube-apiserver"
_CONFLICT_RETRIES = 20  # upstream's EvictionsRetry steps


async def evict(endpoint: Endpoint, budgets: ResourceType, t: Target, raw: bytes, content_type: str | None) -> Reply:
    eviction = _decoded(t, raw, content_type)
    if not endpoint.admission.empty:
        eviction = await endpoint.admit_create(t, eviction)
    options = _delete_options(t, eviction)
    dry_run = bool(options.get("dryRun"))  # dryrun.IsDryRun: any value, which the delete then judges
    pod = _load(endpoint, t.rt, t.namespace, t.name or "")
    if _budget_can_be_ignored(pod):
        return await _delete(endpoint, t, pod, options, dry_run)
    matching = [b for b in _budgets(endpoint, budgets, t.namespace) if _selects(b, pod)]
    if len(matching) > 1:
        return Reply(500, orjson.dumps({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
            "code": 500}))
    if matching:
        budget = matching[0]
        status = _part(budget, "status")
        unready_but_covered = not _ready(pod) and (
            _part(budget, "spec").get("unhealthyPodEvictionPolicy") == "AlwaysAllow"
            or _count(status, "currentHealthy") >= _count(status, "desiredHealthy") > 0)
        if unready_but_covered:
            # An unready pod counts for nothing in the budget: it goes if it is still the pod just read.
            options = {**options, "preconditions": {**(options.get("preconditions") or {}),
                                                    "resourceVersion": pod["metadata"]["resourceVersion"]}}
        else:
            await _take_one_disruption(endpoint, budgets, t, budget, dry_run)
    return await _delete(endpoint, t, pod, options, dry_run)


def _decoded(t: Target, raw: bytes, content_type: str | None) -> dict[str, Any]:
    """The body decoded as any create's is, as an Eviction of policy/v1 or (EvictionREST accepts it too)
    policy/v1beta1: another kind or version, a mistyped or (under Strict) unknown field is a 400."""
    body = decode_body(t, raw, content_type)
    beta = isinstance(body, dict) and body.get("apiVersion") == "policy/v1beta1"
    eviction = objects.check_identity(_EVICTION_V1BETA1 if beta else _EVICTION, body, t.namespace, None)
    admitting.carry(t, fieldvalidation.validate(eviction, raw, t.query, json_body=bodies.is_json(content_type)))
    return eviction


def _delete_options(t: Target, eviction: dict[str, Any]) -> dict[str, Any]:
    meta = eviction["metadata"]
    if meta.get("name") != t.name:
        raise errors.bad_request("name in URL does not match name in Eviction object")
    options = eviction.get("deleteOptions") or {}
    if options.get("ignoreStoreReadErrorWithClusterBreakingPotential") is True:
        raise errors.invalid("Eviction", "policy", t.name or "", [invalid_value(
            "deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential", True,
            "can not be set for pod eviction, try after removing the option")])
    requested = ["All"] if t.dry_run else []
    given = options.get("dryRun") or []
    if given and requested and given != requested:
        # A plain error upstream, so a 500 without a reason.
        raise ApiError(500, "", f"Non-matching dry-run options in request and content: [{' '.join(requested)}] and "
                                f"[{' '.join(given)}]")
    return {**options, "dryRun": given or requested}


def _part(obj: dict[str, Any], field: str) -> dict[str, Any]:
    """obj[field] as the map Go would have decoded, put in place (empty when it was unset or not a map)."""
    found = obj.get(field)
    if not isinstance(found, dict):
        found = obj[field] = {}
    return found


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _count(status: dict[str, Any], field: str) -> int:
    """An int32 of the budget's status; 0 when unset (or not a number, which validation would refuse)."""
    value = status.get(field)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _load(endpoint: Endpoint, rt: ResourceType, namespace: str, name: str) -> dict[str, Any]:
    stored = endpoint.store.latest((rt.storage_key, namespace, name))
    if stored is None:
        raise errors.not_found(rt.plural, rt.group, name)
    return orjson.loads(stored.data)  # type: ignore[no-any-return]


def _budget_can_be_ignored(pod: dict[str, Any]) -> bool:
    # A pending or finished pod disrupts nothing more by going; a terminating one is going anyway.
    phase = _part(pod, "status").get("phase")
    return phase in ("Pending", "Succeeded", "Failed") or bool(pod["metadata"].get("deletionTimestamp"))


def _ready(pod: dict[str, Any]) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in _list(_part(pod, "status").get("conditions")) if isinstance(c, dict))


def _budgets(endpoint: Endpoint, budgets: ResourceType, namespace: str) -> list[dict[str, Any]]:
    return [orjson.loads(stored.data) for _, stored in endpoint.store.list(budgets.storage_key, namespace)[1]]


def _selects(budget: dict[str, Any], pod: dict[str, Any]) -> bool:
    selector = from_label_selector(_part(budget, "spec").get("selector"))
    return selector is not None and selector.matches(pod["metadata"].get("labels"))


async def _take_one_disruption(endpoint: Endpoint, budgets: ResourceType, t: Target, budget: dict[str, Any],
                               dry_run: bool) -> None:
    """Checks the budget allows a disruption and records it, re-reading the budget when a write raced ours."""
    name = budget["metadata"]["name"]
    target = Target(budgets, t.namespace, name, "status", {}, _LOOPBACK_AGENT)
    for _ in range(_CONFLICT_RETRIES):
        _check_and_decrement(budget, t.name or "", dry_run)
        if dry_run:
            return
        try:
            await endpoint.update(target, orjson.dumps(budget), bodies.JSON)
            return
        except ApiError as exc:
            if exc.code != 409:
                raise
        budget = _load(endpoint, budgets, t.namespace, name)
    raise ApiError(504, "Timeout", f'couldn\'t update PodDisruptionBudget "{name}" due to conflicts',
                   {"retryAfterSeconds": 10}, {"Retry-After": "10"})


def _check_and_decrement(budget: dict[str, Any], pod_name: str, dry_run: bool) -> None:
    name = budget["metadata"]["name"]
    status = _part(budget, "status")
    if _count(status, "observedGeneration") < _count(budget["metadata"], "generation"):
        raise _too_many_requests(f"The disruption budget {name} is still being processed by the server.", 10)
    allowed = _count(status, "disruptionsAllowed")
    if allowed < 0:
        raise _budget_forbidden(name, "pdb disruptions allowed is negative")
    if len(_part(status, "disruptedPods")) > MAX_DISRUPTED_PODS:
        raise _budget_forbidden(name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller")
    if allowed == 0:
        raise _too_many_requests(f"The disruption budget {name} needs {_count(status, 'desiredHealthy')} "
                                 f"healthy pods and has {_count(status, 'currentHealthy')} currently", 0)
    status["disruptionsAllowed"] = allowed - 1
    if allowed == 1:
        _set_disruption_allowed_false(status)
    if not dry_run:
        # Tells the disruption controller the pod is going, so it is not counted as available meanwhile.
        _part(status, "disruptedPods")[pod_name] = objects.now_rfc3339()


def _set_disruption_allowed_false(status: dict[str, Any]) -> None:
    """apimachinery's SetStatusCondition of DisruptionAllowed=False (InsufficientPods), as upstream's helper."""
    conditions = _list(status.get("conditions"))
    status["conditions"] = conditions
    wanted = {"type": "DisruptionAllowed", "status": "False",
              "observedGeneration": _count(status, "observedGeneration"),
              "lastTransitionTime": objects.now_rfc3339(), "reason": "InsufficientPods", "message": ""}
    for condition in conditions:
        if isinstance(condition, dict) and condition.get("type") == "DisruptionAllowed":
            if condition.get("status") == "False":
                wanted["lastTransitionTime"] = condition.get("lastTransitionTime") or wanted["lastTransitionTime"]
            condition.clear()
            condition.update(wanted)
            return
    conditions.append(wanted)


async def _delete(endpoint: Endpoint, t: Target, pod: dict[str, Any], options: dict[str, Any],
                  dry_run: bool) -> Reply:
    query = {"dryRun": "All"} if dry_run else {}
    if not dry_run:
        await _mark_disruption_target(endpoint, t, pod, options.get("preconditions") or {})
    # The pod's delete judges the options (ValidateDeleteOptions) after the condition went in, as upstream's.
    propagation.check_options(options)
    delete_options = {"apiVersion": "v1", "kind": "DeleteOptions",
                      **{k: v for k, v in options.items() if k not in ("dryRun", "apiVersion", "kind")},
                      **({"dryRun": ["All"]} if dry_run else {})}  # a body's options stand alone
    precondition = (delete_options.get("preconditions") or {}).get("resourceVersion")
    if precondition == pod["metadata"]["resourceVersion"] and not dry_run:
        # The condition just written moved the pod on; the precondition meant the pod as read.
        delete_options["preconditions"] = {**delete_options["preconditions"],
                                           "resourceVersion": _load(endpoint, t.rt, t.namespace, t.name or "")[
                                               "metadata"]["resourceVersion"]}
    await endpoint.delete(Target(t.rt, t.namespace, t.name, None, query, t.user_agent),
                          orjson.dumps(delete_options), bodies.JSON)
    return Reply(201, orjson.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                                    "code": 201}), headers=admitting.headers(t, {}))


async def _mark_disruption_target(endpoint: Endpoint, t: Target, pod: dict[str, Any],
                                  preconditions: dict[str, Any]) -> None:
    meta = pod["metadata"]
    for field, label in (("uid", "UID"), ("resourceVersion", "ResourceVersion")):
        wanted = preconditions.get(field)
        if wanted and wanted != meta.get(field):
            raise errors.conflict("Pod", "", meta["name"],
                                  f"the {label} in the precondition ({wanted}) does not match the {label} in record "
                                  f"({meta.get(field)}). The object might have been "
                                  + ("deleted and then recreated" if field == "uid" else "modified"))
    status = _part(pod, "status")
    conditions = [c for c in _list(status.get("conditions")) if isinstance(c, dict)]
    wanted = {"type": "DisruptionTarget", "status": "True", "lastProbeTime": None,
              "lastTransitionTime": objects.now_rfc3339(), "reason": "EvictionByEvictionAPI",
              "message": "Eviction API: evicting"}
    for i, condition in enumerate(conditions):
        if condition.get("type") == "DisruptionTarget":
            if condition.get("status") == "True":
                wanted["lastTransitionTime"] = condition.get("lastTransitionTime")
            conditions[i] = wanted
            break
    else:
        conditions.append(wanted)
    status["conditions"] = conditions
    await endpoint.update(Target(t.rt, t.namespace, t.name, "status", {}, t.user_agent), orjson.dumps(pod),
                          bodies.JSON)


def _too_many_requests(cause: str, retry_after: int) -> ApiError:
    details: dict[str, Any] = {"causes": [{"reason": "DisruptionBudget", "message": cause}]}
    headers = {}
    if retry_after:
        details["retryAfterSeconds"] = retry_after
        headers["Retry-After"] = str(retry_after)
    return ApiError(429, "TooManyRequests", _BUDGET_MESSAGE, details, headers)


def _budget_forbidden(name: str, why: str) -> ApiError:
    return ApiError(403, "Forbidden", f'poddisruptionbudget.policy "{name}" is forbidden: {why}',
                    {"name": name, "group": "policy", "kind": "poddisruptionbudget"})
