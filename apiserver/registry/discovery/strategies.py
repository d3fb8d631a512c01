"""discovery.k8s.io/v1: EndpointSlice's defaulting (pkg/apis/discovery/v1/defaults.go) and strategy
(pkg/registry/discovery/endpointslice/strategy.go)."""

from __future__ import annotations

from typing import Any

from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]


def _default_endpoint_slice(obj: Obj) -> None:
    for port in obj.get("ports") or ():
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")


STRATEGIES: dict[str, Strategy] = {
    "EndpointSlice": KindStrategy(default=_default_endpoint_slice),
}
