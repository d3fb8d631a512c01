"""ResourceQuota admission (apiserver's plugin/resourcequota, CheckRequest): a write that would take a
namespace past one of its quotas is refused, and one that fits is charged to every quota it counts in.

Quotas are judged by what the resourcequota controller last wrote in their status: `status.hard`
says what is limited (a quota the controller has not seen yet limits nothing), and a limited
resource without a `status.used` entry refuses the write ("status unknown"). The charge is the
object's usage, on updates its growth over the old object; it is masked to the quota's hard names
and must keep every one of them at or under its limit. The caller writes the returned quotas'
status before it writes the object, as upstream's evaluator does, so concurrent writes cannot both
spend the same room.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from apiserver.admissionplugins import quotausage
from apiserver.admissionplugins.quotausage import Usage, add, parse_list, render
from apiserver.admissionplugins.request import Obj, Request
from apiserver.kinds.quantity import Quantity

_ZERO = Quantity(Fraction(0))


def applies(request: Request) -> bool:
    if not request.namespace or (request.group, request.resource) in quotausage.IGNORED:
        return False
    if request.operation == "CREATE" and not request.group and request.resource == "namespaces":
        return False
    return request.obj is not None and quotausage.evaluator_for(request.group, request.resource).handles(request)


def charge(request: Request, quotas: Iterable[Obj]) -> list[Obj]:
    """The quotas (in the lister's order, by name) whose `status.used` this write raises, with their new
    status; [] when it spends nothing. Raises upstream's 403 when a quota refuses it."""
    if not applies(request):
        return []
    assert request.obj is not None
    quotas = list(quotas)
    if not quotas:
        # quotaEvaluator.checkAttributes: with no quota in the namespace (and no limited resources,
        # which this server does not configure) the write is let through before its usage is measured.
        return []
    evaluator = quotausage.evaluator_for(request.group, request.resource)
    interesting: list[int] = []
    for index, quota in enumerate(quotas):
        if not evaluator.matches(quota, request.obj):
            continue
        name = quota["metadata"]["name"]
        status = quota.get("status") or {}
        restricted = evaluator.resources(list((status.get("hard") or {}).keys()))
        problem = evaluator.constraints(restricted, request.obj)
        if problem is not None:
            raise request.forbidden(f"failed quota: {name}: {problem}")
        used = status.get("used") or {}
        if any(resource not in used for resource in restricted):
            raise request.forbidden(f"status unknown for quota: {name}, resources: {','.join(sorted(restricted))}")
        interesting.append(index)

    usage = evaluator.usage(request.obj)
    negative = sorted(name for name, value in usage.items() if value.value < 0)
    if negative:
        raise request.forbidden(f"quota usage is negative for resource(s): {','.join(negative)}")
    deltas = {index: usage for index in interesting}
    if request.operation == "UPDATE" and request.old is not None and \
            (request.old.get("metadata") or {}).get("resourceVersion"):
        growth = _growth(usage, evaluator.usage(request.old))
        for index in interesting:
            if evaluator.matches(quotas[index], request.old):
                deltas[index] = growth
    deltas = {index: kept for index, delta in deltas.items() if (kept := _without_zeros(delta))}

    charged: list[Obj] = []
    for index in interesting:
        delta = deltas.get(index)
        if delta is None:
            continue
        quota = quotas[index]
        status = quota.get("status") or {}
        hard, used = parse_list(status.get("hard")), parse_list(status.get("used"))
        requested = {name: value for name, value in delta.items() if name in hard}
        new_used = add(used, requested)
        if request.subresource != "status":
            exceeded = sorted(name for name in requested if new_used[name].value > hard[name].value)
            if exceeded:
                raise request.forbidden(
                    f"exceeded quota: {quota['metadata']['name']}, "
                    f"requested: {_pretty({n: requested[n] for n in exceeded})}, "
                    f"used: {_pretty({n: used[n] for n in exceeded if n in used})}, "
                    f"limited: {_pretty({n: hard[n] for n in exceeded})}")
        if render(new_used) != render(used):
            charged.append({**quota, "status": {**status, "used": render(new_used)}})
    return charged


def _growth(new: Usage, old: Usage) -> Usage:
    """quota.SubtractWithNonNegativeResult."""
    result = {name: (value - old[name] if name in old else value) for name, value in new.items()}
    result = {name: value if value.value > 0 else _ZERO for name, value in result.items()}
    for name in old:
        result.setdefault(name, _ZERO)
    return result


def _without_zeros(usage: Usage) -> Usage:
    return {name: value for name, value in usage.items() if value.value != 0}


def _pretty(values: Usage) -> str:
    """prettyPrint: name=quantity, sorted by name."""
    return ",".join(f"{name}={values[name]}" for name in sorted(values))
