"""apiregistration.k8s.io/v1: APIService's defaulting
(staging/src/k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/defaults.go) and strategy."""

from __future__ import annotations

from typing import Any

from apiserver.registry.meta import path_segment
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]


def _default_api_service(obj: Obj) -> None:
    service = (obj.get("spec") or {}).get("service")
    if isinstance(service, dict):
        service.setdefault("port", 443)


STRATEGIES: dict[str, Strategy] = {
    "APIService": KindStrategy(default=_default_api_service, name_rule=path_segment, kube_finalizers=False),
}
