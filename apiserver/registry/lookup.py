"""Which Strategy a resource type's writes go through: its group's declaration, checked complete at load.

Every stored built-in kind is declared in its group's `strategies.py` (`NO_RULES` where nothing is
ported); of the kinds that are never stored only Binding, whose create binds a pod, has one. Custom resources keep their
own path through `ResourceType.custom`; here they get only what their metadata is held to.
"""

from __future__ import annotations

from types import ModuleType

from apiserver.kinds.resources import BUILTIN, ResourceType
from apiserver.registry import apiextensions
from apiserver.registry.admissionregistration import strategies as admissionregistration
from apiserver.registry.apiextensions import strategies as apiextensions_strategies
from apiserver.registry.apiregistration import strategies as apiregistration
from apiserver.registry.apps import strategies as apps
from apiserver.registry.autoscaling import strategies as autoscaling
from apiserver.registry.batch import strategies as batch
from apiserver.registry.certificates import strategies as certificates
from apiserver.registry.coordination import strategies as coordination
from apiserver.registry.core import strategies as core
from apiserver.registry.discovery import strategies as discovery
from apiserver.registry.events import strategies as events
from apiserver.registry.flowcontrol import strategies as flowcontrol
from apiserver.registry.networking import strategies as networking
from apiserver.registry.node import strategies as node
from apiserver.registry.policy import strategies as policy
from apiserver.registry.rbac import strategies as rbac
from apiserver.registry.resource import strategies as resource
from apiserver.registry.scheduling import strategies as scheduling
from apiserver.registry.storage import strategies as storage
from apiserver.registry.strategy import NO_RULES, KindStrategy, Strategy

_GROUPS: dict[str, ModuleType] = {
    "": core, "apps": apps, "batch": batch, "autoscaling": autoscaling, "policy": policy,
    "rbac.authorization.k8s.io": rbac, "networking.k8s.io": networking, "storage.k8s.io": storage,
    "scheduling.k8s.io": scheduling, "certificates.k8s.io": certificates, "coordination.k8s.io": coordination,
    "admissionregistration.k8s.io": admissionregistration, "flowcontrol.apiserver.k8s.io": flowcontrol,
    "discovery.k8s.io": discovery, "node.k8s.io": node, "resource.k8s.io": resource, "events.k8s.io": events,
    apiextensions.GROUP: apiextensions_strategies, "apiregistration.k8s.io": apiregistration,
}

_BY_KIND: dict[tuple[str, str], Strategy] = {
    (group, kind): strategy for group, module in _GROUPS.items() for kind, strategy in module.STRATEGIES.items()}


def _check_complete() -> None:
    stored = {(rt.group, rt.kind) for rt in BUILTIN if not rt.synthetic}
    missing = stored - _BY_KIND.keys()
    extra = _BY_KIND.keys() - {(rt.group, rt.kind) for rt in BUILTIN}
    if missing or extra:
        raise AssertionError(f"strategies not declared for {sorted(missing)}; declared for no served kind: "
                             f"{sorted(extra)}")


_check_complete()


# Custom resources' metadata is judged by apiextensions-apiserver, without core's finalizer-name rule.
_CUSTOM = KindStrategy(kube_finalizers=False)


def strategy_for(rt: ResourceType) -> Strategy:
    if rt.custom is not None:
        return _CUSTOM
    return _BY_KIND.get((rt.group, rt.kind), NO_RULES)
