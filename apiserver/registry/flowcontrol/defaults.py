"""flowcontrol.apiserver.k8s.io/v1 defaulting: pkg/apis/flowcontrol/v1/defaults.go."""

from __future__ import annotations

from typing import Any

from apiserver.registry.core.defaults import spec_of

Obj = dict[str, Any]


def flow_schema(obj: Obj) -> None:
    spec = spec_of(obj)
    if not spec.get("matchingPrecedence"):
        spec["matchingPrecedence"] = 1000


def priority_level_configuration(obj: Obj) -> None:
    spec = spec_of(obj)
    limited, exempt = spec.get("limited"), spec.get("exempt")
    if isinstance(limited, dict):
        limited.setdefault("nominalConcurrencyShares", 30)
        limited.setdefault("lendablePercent", 0)
        queuing = (limited.get("limitResponse") or {}).get("queuing")
        if isinstance(queuing, dict):
            for key, value in (("queues", 64), ("handSize", 8), ("queueLengthLimit", 50)):
                if not queuing.get(key):
                    queuing[key] = value
    if isinstance(exempt, dict):
        exempt.setdefault("nominalConcurrencyShares", 0)
        exempt.setdefault("lendablePercent", 0)
