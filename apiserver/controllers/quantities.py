"""Resource quantities as numbers: CPU in cores, everything else in units (bytes, pods)."""

from __future__ import annotations

from typing import Any

_SUFFIXES = {
    "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40, "Pi": 2 ** 50, "Ei": 2 ** 60,
    "n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
}


def parse(value: Any) -> float:
    """A Kubernetes quantity ("500m", "128Mi", "1e3", 2) as a number; 0 for what does not parse."""
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    for suffix in ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G", "T", "P", "E"):
        if text.endswith(suffix):
            number, scale = text[: -len(suffix)], _SUFFIXES[suffix]
            break
    else:
        number, scale = text, 1
    try:
        return float(number) * scale
    except ValueError:
        return 0.0


Requests = dict[str, float]


def pod_requests(pod: dict[str, Any]) -> Requests:
    """What a pod asks of its node: the sum of its containers' requests, at least each init container's, plus
    its overhead (the scheduler's computePodResourceRequest)."""
    spec = pod.get("spec") or {}
    total: Requests = {}
    for container in spec.get("containers") or ():
        for name, value in ((container.get("resources") or {}).get("requests") or {}).items():
            total[name] = total.get(name, 0.0) + parse(value)
    for container in spec.get("initContainers") or ():
        for name, value in ((container.get("resources") or {}).get("requests") or {}).items():
            total[name] = max(total.get(name, 0.0), parse(value))
    for name, value in (spec.get("overhead") or {}).items():
        total[name] = total.get(name, 0.0) + parse(value)
    return total


def node_allocatable(node: dict[str, Any]) -> Requests:
    status = node.get("status") or {}
    source = status.get("allocatable") or status.get("capacity") or {}
    return {name: parse(value) for name, value in source.items()}
