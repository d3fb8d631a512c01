"""What simulated containers use, as metrics-server would report it.

A pod's `fastkube.io/simulated-usage` annotation (`cpu=250m,memory=64Mi`) is what the whole pod uses
now, shared among its containers in proportion to what each requests (evenly when none requests any);
without it, or for a resource it does not name, each container uses half of what it requests, or
almost nothing (1m of CPU, 4Mi of memory) when it requests nothing. A node uses what its running pods
use plus what its own daemons take. Usage is reported as metrics-server reports it: CPU in
nanocores, memory in Ki, over a window of its minimum resolution.
"""

from __future__ import annotations

from typing import Any

from apiserver.controllers.quantities import parse
from apiserver.simulated.annotations import USAGE

Obj = dict[str, Any]
Usage = dict[str, float]  # "cpu" in cores, "memory" in bytes

WINDOW_SECONDS = 10  # metrics-server's smallest --metric-resolution
RESOURCES = ("cpu", "memory")
_IDLE: Usage = {"cpu": 0.001, "memory": 4 * 2 ** 20}
_SYSTEM: Usage = {"cpu": 0.1, "memory": 512 * 2 ** 20}  # the node's kubelet, runtime and OS
_SHARE_OF_REQUESTS = 0.5


def annotated_usage(pod: Obj) -> Usage:
    """The pod's total usage as its annotation states it; resources it leaves out, or misspells, are absent."""
    text = (pod["metadata"].get("annotations") or {}).get(USAGE, "")
    found: Usage = {}
    for part in str(text).split(","):
        name, sep, value = part.strip().partition("=")
        if sep and name.strip() in RESOURCES and value.strip():
            found[name.strip()] = parse(value.strip())
    return found


def container_usage(pod: Obj) -> list[tuple[str, Usage]]:
    """Each regular container's usage, in the pod's order."""
    containers = (pod.get("spec") or {}).get("containers") or []
    requests = [{name: parse(((c.get("resources") or {}).get("requests") or {}).get(name, 0))
                 for name in RESOURCES} for c in containers]
    stated = annotated_usage(pod)
    out: list[tuple[str, Usage]] = []
    for container, asked in zip(containers, requests):
        usage: Usage = {}
        for name in RESOURCES:
            if name in stated:
                total_asked = sum(r[name] for r in requests)
                share = asked[name] / total_asked if total_asked else 1 / len(containers)
                usage[name] = stated[name] * share
            else:
                usage[name] = asked[name] * _SHARE_OF_REQUESTS if asked[name] else _IDLE[name]
        out.append((str(container.get("name", "")), usage))
    return out


def pod_usage(pod: Obj) -> Usage:
    total: Usage = dict.fromkeys(RESOURCES, 0.0)
    for _, usage in container_usage(pod):
        for name in RESOURCES:
            total[name] += usage[name]
    return total


def node_usage(pods: list[Obj]) -> Usage:
    """A node's usage from the running pods on it."""
    total = dict(_SYSTEM)
    for pod in pods:
        for name, value in pod_usage(pod).items():
            total[name] += value
    return total


def quantities(usage: Usage) -> dict[str, str]:
    """As metrics-server writes them: CPU in nanocores, memory in Ki."""
    return {"cpu": f"{round(usage['cpu'] * 1e9)}n", "memory": f"{round(usage['memory'] / 1024)}Ki"}


def reports(pod: Obj) -> bool:
    """Whether metrics-server has numbers for the pod: it runs, and some container of it is running."""
    status = pod.get("status") or {}
    return status.get("phase") == "Running" and any(
        "running" in (s.get("state") or {}) for s in status.get("containerStatuses") or ())
