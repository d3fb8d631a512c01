"""apiregistration.k8s.io/v1: APIService's defaulting
(staging/src/k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/defaults.go) and strategy
(staging/src/k8s.io/kube-aggregator/pkg/registry/apiservice/strategy.go)."""

from __future__ import annotations

from typing import Any

from apiserver.registry import meta
from apiserver.registry.apiregistration import validation
from apiserver.registry.meta import path_segment
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]


def _default_api_service(obj: Obj) -> None:
    service = (obj.get("spec") or {}).get("service")
    if isinstance(service, dict) and service.get("port") is None:
        service["port"] = 443


def _prepare_for_create(obj: Obj) -> None:
    """The status is the server's; a local APIService (no service) is available from its creation."""
    status: Obj = {}
    if not isinstance((obj.get("spec") or {}).get("service"), dict):
        status["conditions"] = [{"type": "Available", "status": "True", "lastTransitionTime": meta.now(),
                                 "reason": "Local", "message": "Local APIServices are always available"}]
    obj["status"] = status


def _prepare_for_update(new: Obj, old: Obj) -> None:
    new["status"] = old.get("status") or {}


STRATEGIES: dict[str, Strategy] = {
    "APIService": KindStrategy(default=_default_api_service, prepare_for_create=_prepare_for_create,
                               prepare_for_update=_prepare_for_update, validate=validation.api_service,
                               validate_update=validation.api_service_update,
                               validate_subresource_update=validation.api_service_status_update,
                               status_keeps_metadata=True,
                               reset_fields=(("status", (("f:spec",), ("f:metadata",))),),
                               name_rule=path_segment, name_rule_of=validation.name_rule, kube_finalizers=False),
}
