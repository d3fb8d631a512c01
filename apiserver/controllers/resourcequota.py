"""The resourcequota controller (pkg/controller/resourcequota): every ResourceQuota's status says what it
limits (`status.hard`, copied from the spec) and what its namespace uses of it (`status.used`).

Usage is counted as upstream's quota.CalculateUsage does, with the evaluators admission uses: the
quota's hard names each evaluator accounts for, summed over the namespace's objects that fall in
every one of the quota's scopes. A quota is recounted when it is created or its spec.hard changes,
when an object it may count is deleted or changes what it uses (admission has already charged the
creates), and every five minutes (kube-controller-manager's --resource-quota-sync-period), which
gives back what a write charged but never stored. Custom resources' `count/<plural>.<group>` is
counted in the store at each sync.
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction
from typing import Any

from apiserver.admissionplugins import quotausage
from apiserver.admissionplugins.quotausage import Evaluator, Usage, add, parse_list, render, selectors_of
from apiserver.controllers.base import Context, Controller, Obj, either, object_key
from apiserver.controllers.informer import Informer
from apiserver.kinds.quantity import Quantity

RESYNC_SECONDS = 300.0


class ResourceQuotaController(Controller):
    name = "resourcequota-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.quotas_type = ctx.resource("", "v1", "resourcequotas")
        self.quotas = ctx.informer("", "v1", "resourcequotas")
        self.quotas.add_handler(self._quota_changed)
        # every namespaced built-in resource a quota can count, with the evaluator that counts it
        self.counted: list[tuple[Evaluator, Informer]] = []
        for rt in self.client.stored_types():
            if not rt.namespaced or (rt.group, rt.plural) in quotausage.IGNORED:
                continue
            evaluator = quotausage.evaluator_for(rt.group, rt.plural)
            informer = ctx.informers.for_type(rt)
            if informer is not self.quotas:
                informer.add_handler(self._object_changed(evaluator))
            self.counted.append((evaluator, informer))

    def _quota_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is not None and (old is None or (old.get("spec") or {}).get("hard") != (new.get("spec") or {}).get("hard")):
            self.queue.add(object_key(new))

    def _object_changed(self, evaluator: Evaluator) -> Any:
        def changed(old: Obj | None, new: Obj | None) -> None:
            if old is None:
                return  # admission charged the create
            if new is not None and not quotausage.replenishes(evaluator.group, evaluator.resource, old, new):
                return
            namespace = str(either(old, new)["metadata"].get("namespace", ""))
            for quota in self.quotas.items(namespace):
                self.queue.add(object_key(quota))
        return changed

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        quota = self.quotas.get(*key)
        if quota is None:
            return
        self.queue.add_after(key, RESYNC_SECONDS)
        spec_hard = parse_list((quota.get("spec") or {}).get("hard"))
        status = quota.get("status") or {}
        used = parse_list(status.get("used"))
        used.update(self.usage(quota, spec_hard))
        used = {name: value for name, value in used.items() if name in spec_hard}
        new_status = {"hard": render(spec_hard), "used": render(used)}
        if status.get("hard") is not None and status.get("used") is not None and \
                render(parse_list(status["hard"])) == new_status["hard"] and \
                render(parse_list(status["used"])) == new_status["used"]:
            return
        await self.client.update(self.quotas_type, {**quota, "status": new_status}, "status")

    def usage(self, quota: Obj, hard: Usage) -> Usage:
        """quota.CalculateUsage over this controller's evaluators."""
        names = list(hard)
        namespace = quota["metadata"]["namespace"]
        selectors = selectors_of(quota)
        found: Usage = {}
        for evaluator, informer in self.counted:
            wanted = evaluator.resources(names)
            if not wanted:
                continue
            stats: Usage = {name: quotausage.ZERO for name in wanted}
            for obj in informer.items(namespace):
                if all(evaluator.scope(selector, obj) for selector in selectors):
                    usage = evaluator.usage(obj)
                    stats = add(stats, {name: value for name, value in usage.items() if name in wanted})
            found = add(found, stats)
        return add(found, self._custom_counts(namespace, names, selectors))

    def _custom_counts(self, namespace: str, names: list[str], selectors: list[Obj]) -> Usage:
        """count/<plural>.<group> of custom resources, counted in the store: their CRDs come and go, so
        they are recounted with every sync rather than followed (upstream's monitors follow them)."""
        found: Usage = {}
        built_in = {quotausage.count_name(e.group, e.resource) for e, _ in self.counted}
        for name in names:
            if not name.startswith("count/") or name in built_in or "." not in name:
                continue
            plural, _, group = name[len("count/"):].partition(".")
            rt = self.client.custom_type(group, plural)
            if rt is None or not rt.namespaced:
                continue
            # an object count evaluator matches no scope: a scoped quota counts none of them
            count = 0 if selectors else len(self.client.endpoint.store.list(rt.storage_key, namespace)[1])
            found[name] = Quantity(Fraction(count))
        return found
