"""networking.k8s.io/v1: NetworkPolicy's defaulting (pkg/apis/networking/v1/defaults.go) and the
group's strategies (pkg/registry/networking/<kind>/strategy.go)."""

from __future__ import annotations

from typing import Any

from apiserver.registry.core.defaults import spec_of
from apiserver.registry.meta import ip_address
from apiserver.registry.strategy import NO_RULES, KindStrategy, Strategy

Obj = dict[str, Any]


def _default_network_policy(obj: Obj) -> None:
    spec = spec_of(obj)
    for direction in ("ingress", "egress"):
        for rule in spec.get(direction) or ():
            for port in (rule or {}).get("ports") or () if isinstance(rule, dict) else ():
                if isinstance(port, dict):
                    port.setdefault("protocol", "TCP")
    if not spec.get("policyTypes"):
        # A policy with egress rules restricts egress too; every policy restricts ingress.
        spec["policyTypes"] = ["Ingress", "Egress"] if spec.get("egress") else ["Ingress"]


STRATEGIES: dict[str, Strategy] = {
    "NetworkPolicy": KindStrategy(default=_default_network_policy),
    "Ingress": NO_RULES, "IngressClass": NO_RULES, "IPAddress": KindStrategy(name_rule=ip_address), "ServiceCIDR": NO_RULES,
}
