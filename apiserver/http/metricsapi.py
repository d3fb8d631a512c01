"""`metrics.k8s.io/v1beta1`, served as metrics-server serves it, from the simulated usage of the pods on
simulated nodes (apiserver.simulated.usage), so `kubectl top` and the horizontal-pod-autoscaler work.

A real cluster serves this group from metrics-server behind an aggregated APIService; here the types are
served locally (get and list, as metrics-server's) while the simulated nodes' metrics are on: only
simulated nodes have kubelets to scrape, and only their running pods have numbers.
"""

from __future__ import annotations

import datetime
from typing import Any

import orjson

from apiserver.kinds.resources import ResourceType
from apiserver.simulated.annotations import is_simulated
from apiserver.simulated.usage import WINDOW_SECONDS, container_usage, node_usage, quantities, reports
from apiserver.storage.interface import Store, StoredObject

GROUP = "metrics.k8s.io"
VERSION = "v1beta1"
Obj = dict[str, Any]
Item = tuple[tuple[str, str, str], StoredObject]


def resource_types() -> list[ResourceType]:
    """NodeMetrics and PodMetrics as metrics-server's discovery declares them."""
    return [ResourceType(GROUP, VERSION, "NodeMetrics", "nodes", "", False, verbs=("get", "list"), synthetic=True),
            ResourceType(GROUP, VERSION, "PodMetrics", "pods", "", True, verbs=("get", "list"), synthetic=True)]


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _metadata(obj: Obj, created: str) -> Obj:
    meta = obj["metadata"]
    found: Obj = {"name": meta["name"]}
    if meta.get("namespace"):
        found["namespace"] = meta["namespace"]
    found["creationTimestamp"] = created
    if meta.get("labels"):
        found["labels"] = meta["labels"]
    return found


def _objects(store: Store, storage_key: str, namespace: str | None) -> list[Obj]:
    return [orjson.loads(stored.data) for _, stored in store.list(storage_key, namespace)[1]]


def items(store: Store, rt: ResourceType, namespace: str) -> tuple[int, list[Item]]:
    """Every NodeMetrics, or the namespace's PodMetrics (all namespaces' for ""), measured now."""
    now = _now()
    window = f"{WINDOW_SECONDS}s"
    simulated = {n["metadata"]["name"] for n in _objects(store, "nodes", None) if is_simulated(n)}
    revision = store.revision
    found: list[Item] = []
    obj: Obj
    if rt.kind == "NodeMetrics":
        pods = [p for p in _objects(store, "pods", None) if reports(p)]
        for node in sorted(simulated):
            on_node = [p for p in pods if (p.get("spec") or {}).get("nodeName") == node]
            stored = store.get(("nodes", "", node))
            assert stored is not None
            obj = {"kind": "NodeMetrics", "apiVersion": f"{GROUP}/{VERSION}",
                   "metadata": _metadata(orjson.loads(stored.data), now), "timestamp": now, "window": window,
                   "usage": quantities(node_usage(on_node))}
            found.append(((rt.storage_key, "", node), StoredObject(revision, orjson.dumps(obj))))
        return revision, found
    for pod in _objects(store, "pods", namespace or None):
        if not reports(pod) or (pod.get("spec") or {}).get("nodeName") not in simulated:
            continue
        obj = {"kind": "PodMetrics", "apiVersion": f"{GROUP}/{VERSION}", "metadata": _metadata(pod, now),
               "timestamp": now, "window": window,
               "containers": [{"name": name, "usage": quantities(usage)} for name, usage in container_usage(pod)]}
        meta = pod["metadata"]
        found.append(((rt.storage_key, meta["namespace"], meta["name"]), StoredObject(revision, orjson.dumps(obj))))
    return revision, found
