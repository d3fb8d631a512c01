"""core/v1's strategies: pkg/registry/core/<kind>/strategy.go, one KindStrategy per kind served.

What each kind's create, update and status strategies do beyond the generic path, with the defaults
(`defaults.py`) and validation (`validation.py`) they call.
"""

from __future__ import annotations

import base64
from typing import Any

from apiserver.registry import admission_plugins, meta
from apiserver.registry.core import (
    config_validation,
    defaults,
    pod_validation,
    service_allocation,
    service_strategy,
    validation,
)
from apiserver.registry.hooks import Cluster, Request
from apiserver.registry.strategy import NO_RULES, KindStrategy, Strategy

Obj = dict[str, Any]


def _qos_class(spec: Obj) -> str:
    containers = [c for key in ("initContainers", "containers") for c in spec.get(key) or () if isinstance(c, dict)]
    requests_seen = limits_seen = False
    guaranteed = True
    for c in containers:
        resources = c.get("resources") or {}
        requests = {k: v for k, v in (resources.get("requests") or {}).items() if k in ("cpu", "memory")}
        limits = {k: v for k, v in (resources.get("limits") or {}).items() if k in ("cpu", "memory")}
        requests_seen = requests_seen or bool(requests)
        limits_seen = limits_seen or bool(limits)
        if set(limits) != {"cpu", "memory"} or any(requests.get(k, limits[k]) != limits[k] for k in limits):
            guaranteed = False
    if not requests_seen and not limits_seen:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def _pod_create(obj: Obj) -> None:
    spec = defaults.spec_of(obj)
    admission_plugins.default_toleration_seconds(spec)
    # The pod strategy starts every pod Pending, in the QoS class its resources give it.
    status = obj.setdefault("status", {})
    status.setdefault("phase", "Pending")
    status.setdefault("qosClass", _qos_class(spec))


def _pod_update(new: Obj, old: Obj) -> None:
    """The admission plugins that run on a pod's update too: DefaultTolerationSeconds adds its two
    tolerations to a pod without them (a replace from a manifest has none), and Priority keeps the
    priority and preemption policy it set on create when the new object leaves them out."""
    spec, old_spec = defaults.spec_of(new), old.get("spec") or {}
    admission_plugins.default_toleration_seconds(spec)
    for field in ("priority", "preemptionPolicy"):
        if spec.get(field) is None and old_spec.get(field) is not None:
            spec[field] = old_spec[field]


def _pod_deletion_grace(pod: Obj, requested: int | None) -> int:
    """Seconds a deletion waits for its kubelet to finish: only scheduled, running pods wait."""
    spec = pod.get("spec") or {}
    phase = (pod.get("status") or {}).get("phase")
    if not spec.get("nodeName") or phase in ("Succeeded", "Failed"):
        return 0
    if requested is not None:
        return max(requested, 0)
    grace = spec.get("terminationGracePeriodSeconds")
    return int(grace) if isinstance(grace, int) else 30


_TOPOLOGY_LABELS = ("topology.kubernetes.io/zone", "topology.kubernetes.io/region")


def _copy_node_topology(pod: Obj, request: Request, cluster: Cluster) -> int | None:
    """PodTopologyLabels admission: a pod bound to a node at create carries the node's zone and region."""
    node_name = (pod.get("spec") or {}).get("nodeName")
    node = cluster.get("nodes", "", node_name) if node_name else None
    if node is not None:
        node_labels = node["metadata"].get("labels") or {}
        for key in _TOPOLOGY_LABELS:
            if key in node_labels:
                pod["metadata"].setdefault("labels", {})[key] = node_labels[key]
    return None


def _namespace_create(namespace: Obj, request: Request, cluster: Cluster) -> int | None:
    """The namespace lifecycle's start: named, holding the kubernetes finalizer, Active."""
    name = namespace["metadata"]["name"]
    namespace["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = name
    namespace.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
    namespace["status"] = {"phase": "Active"}
    return None


def fold_string_data(obj: Obj) -> None:
    """A Secret's write-only stringData is merged into data (base64) and never stored, as upstream's
    conversion does."""
    string_data = obj.pop("stringData", None)
    if isinstance(string_data, dict) and string_data:
        data = obj.get("data") or {}
        for key, value in string_data.items():
            data[key] = base64.b64encode(str(value).encode()).decode()
        obj["data"] = data


def _volume_create(obj: Obj) -> None:
    admission_plugins.storage_object_in_use_protection(obj, "kubernetes.io/pv-protection")
    obj["status"]["lastPhaseTransitionTime"] = obj["metadata"]["creationTimestamp"]


def _volume_status(new: Obj, old: Obj, now: str) -> None:
    """A volume records when its phase last changed, unless the writer says so itself."""
    status, old_status = new.get("status") or {}, old.get("status") or {}
    if status.get("phase") != old_status.get("phase") and \
            status.get("lastPhaseTransitionTime") in (None, old_status.get("lastPhaseTransitionTime")):
        status["lastPhaseTransitionTime"] = now


STRATEGIES: dict[str, Strategy] = {
    "Pod": KindStrategy(default=defaults.pod, prepare_for_create=_pod_create, prepare_for_update=_pod_update,
                        validate=pod_validation.pod,
                        validate_update=pod_validation.pod_update,
                        begin_create=_copy_node_topology, deletion_grace=_pod_deletion_grace,
                        returns_deleted_object=True),
    "PodTemplate": KindStrategy(default=defaults.pod_template, validate=pod_validation.pod_template,
                                generation_field="template"),
    "ReplicationController": KindStrategy(default=defaults.replication_controller,
                                          validate=validation.replication_controller, scale_selector_is_map=True,
                                          checks_generate_name=False),
    # Services creates racing another server's for the same IP and port ranges, before the client gets a 409.
    "Service": KindStrategy(default=defaults.service, validate=validation.service,
                            validate_update=validation.service_update, returns_deleted_object=True,
                            name_rule=meta.label_name,
                            begin_create=service_allocation.begin_create,
                            begin_update=service_allocation.prepare_update,
                            prepare_for_update=service_strategy.drop_type_dependent_fields,
                            before_create_write=service_allocation.hold_cluster_ips,
                            after_delete=service_allocation.release_cluster_ips, allocation_attempts=5),
    "Endpoints": KindStrategy(default=defaults.endpoints),
    "Node": KindStrategy(prepare_for_create=admission_plugins.taint_nodes_by_condition, keeps_status_on_create=True),
    "Namespace": KindStrategy(default=defaults.namespace, begin_create=_namespace_create, deletes_contents=True,
                              returns_deleted_object=True, name_rule=meta.label_name),
    "PersistentVolume": KindStrategy(default=defaults.persistent_volume, prepare_for_create=_volume_create,
                                     after_status_update=_volume_status),
    "PersistentVolumeClaim": KindStrategy(
        default=defaults.persistent_volume_claim, validate=validation.persistent_volume_claim,
        # Upstream's update rule shows a diff of the specs, not ported: an update is judged as a create.
        prepare_for_create=lambda obj: admission_plugins.storage_object_in_use_protection(
            obj, "kubernetes.io/pvc-protection")),
    "Secret": KindStrategy(decode=fold_string_data, default=defaults.secret, validate=config_validation.secret,
                           validate_update=config_validation.secret_update),
    "ConfigMap": KindStrategy(validate=config_validation.config_map,
                              validate_update=config_validation.config_map_update),
    "ServiceAccount": KindStrategy(returns_deleted_object=True),
    "LimitRange": KindStrategy(default=defaults.limit_range),
    "Event": NO_RULES, "ResourceQuota": NO_RULES,
    # Never stored: a create binds the pod the Binding names.
    "Binding": KindStrategy(creates_binding=True),
}
