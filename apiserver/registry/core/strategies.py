"""core/v1's strategies: pkg/registry/core/<kind>/strategy.go, one KindStrategy per kind served.

What each kind's create, update and status strategies do beyond the generic path, with the defaults
(`defaults.py`) and validation (`validation.py`) they call.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Callable
from typing import Any

from apiserver.registry import admission_plugins, meta
from apiserver.registry.core import (
    config_validation,
    defaults,
    endpoints_validation,
    event_validation,
    node_validation,
    object_warnings,
    pod_annotations,
    pod_fields,
    pod_resize,
    pod_update,
    pod_validation,
    pod_warnings,
    pv_validation,
    pvc_validation,
    quota_validation,
    scheduling_constraints,
    service_allocation,
    service_strategy,
    service_validation,
    validation,
)
from apiserver.registry.hooks import Cluster, Request
from apiserver.registry.strategy import KindStrategy, Strategy

Obj = dict[str, Any]


def _pod_create(obj: Obj) -> None:
    spec = defaults.spec_of(obj)
    pod_fields.drop_disabled_pod_fields(spec)
    admission_plugins.default_toleration_seconds(spec)
    # The pod strategy starts every pod Pending, in the QoS class its resources give it.
    status = obj.setdefault("status", {})
    status.setdefault("phase", "Pending")
    status.setdefault("qosClass", pod_resize.compute_qos(spec))
    _scheduling_gated(spec, status)
    scheduling_constraints.merge_label_keys(spec, (obj.get("metadata") or {}).get("labels"))
    pod_annotations.app_armor_version_skew(obj)


def _scheduling_gated(spec: Obj, status: Obj) -> None:
    """applySchedulingGatedCondition: a pod created with scheduling gates says why it is not scheduled."""
    if not spec.get("schedulingGates"):
        return
    conditions = status.setdefault("conditions", [])
    if any(isinstance(c, dict) and c.get("type") == "PodScheduled" for c in conditions):
        return
    conditions.append({"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                       "lastTransitionTime": meta.now(),
                       "reason": "SchedulingGated", "message": "Scheduling is blocked due to non-empty scheduling gates"})


def _pod_update(new: Obj, old: Obj) -> None:
    """DropDisabledPodFields, and DefaultTolerationSeconds, which also admits pod updates, giving back the
    default tolerations (Priority's keeping of the priority is on the admission chain)."""
    spec, old_spec = defaults.spec_of(new), old.get("spec") or {}
    pod_fields.drop_disabled_pod_fields(spec, old_spec)
    admission_plugins.default_toleration_seconds(spec)


def _template_spec(obj: Obj, *path: str) -> Any:
    """The pod spec of the template at `path` (None where there is none)."""
    node: Any = obj
    for key in (*path, "spec"):
        node = node.get(key) if isinstance(node, dict) else None
    return node


def _templated(*path: str) -> tuple[Callable[[Obj], None], Callable[[Obj, Obj], None]]:
    """PrepareForCreate and PrepareForUpdate of a kind holding a pod template at `path`: DropDisabledTemplateFields."""
    def create(obj: Obj) -> None:
        pod_fields.drop_disabled_pod_fields(_template_spec(obj, *path))

    def update(new: Obj, old: Obj) -> None:
        pod_fields.drop_disabled_pod_fields(_template_spec(new, *path), _template_spec(old, *path))
    return create, update


_POD_TEMPLATE_PREPARE = _templated("template")
_CONTROLLER_PREPARE = _templated("spec", "template")


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


def _copy_node_topology(pod: Obj, request: Request, cluster: Cluster) -> int | None:
    """PodTopologyLabels admission: a pod bound to a node at create carries the node's zone and region."""
    node_name = (pod.get("spec") or {}).get("nodeName")
    labels = admission_plugins.topology_labels(cluster.get("nodes", "", node_name) if node_name else None)
    if labels:
        pod["metadata"].setdefault("labels", {}).update(labels)
    return None


def _node_create(node: Obj) -> None:
    node_validation.prepare_for_create(node)
    admission_plugins.taint_nodes_by_condition(node)


def _namespace_create(namespace: Obj, request: Request, cluster: Cluster) -> int | None:
    """The namespace lifecycle's start: named, holding the kubernetes finalizer, Active."""
    name = namespace["metadata"]["name"]
    namespace["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = name
    if not isinstance(namespace.get("spec"), dict):
        namespace["spec"] = {}
    finalizers = namespace["spec"].get("finalizers") or []
    if "kubernetes" not in finalizers:
        namespace["spec"]["finalizers"] = [*finalizers, "kubernetes"]
    namespace["status"] = {"phase": "Active"}
    return None


def _limit_range_create(obj: Obj) -> None:
    """A LimitRange created without a name is named by a fresh UID."""
    if not obj["metadata"].get("name"):
        obj["metadata"]["name"] = str(uuid.uuid4())


def _clean_secret_references(account: Obj) -> None:
    """A ServiceAccount's secrets are kept by name only."""
    secrets_list = account.get("secrets")
    if isinstance(secrets_list, list):
        account["secrets"] = [{"name": s["name"]} if isinstance(s, dict) and s.get("name") else {}
                              for s in secrets_list]


def fold_string_data(obj: Obj) -> None:
    """A Secret's write-only stringData is merged into data (base64) and never stored, as upstream's
    conversion does."""
    string_data = obj.pop("stringData", None)
    if isinstance(string_data, dict) and string_data:
        data = obj.get("data") or {}
        for key, value in string_data.items():
            data[key] = base64.b64encode(str(value).encode()).decode()
        obj["data"] = data


def _claim_create(claim: Obj) -> None:
    pvc_validation.prepare_for_create(claim)
    admission_plugins.storage_object_in_use_protection(claim, "kubernetes.io/pvc-protection")


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
                        validate=pod_validation.pod_create,
                        warnings_on_prepare_create=pod_annotations.app_armor_skew_warnings,
                        warnings_on_create=pod_warnings.pod_create,
                        validate_update=pod_update.pod_update,
                        begin_create=_copy_node_topology, deletion_grace=_pod_deletion_grace,
                        returns_deleted_object=True),
    "PodTemplate": KindStrategy(default=defaults.pod_template, validate=pod_validation.pod_template,
                                prepare_for_create=_POD_TEMPLATE_PREPARE[0],
                                prepare_for_update=_POD_TEMPLATE_PREPARE[1], generation_field="template",
                                warnings_on_create=pod_warnings.pod_template_create,
                                warnings_on_update=pod_warnings.pod_template_update, returns_deleted_object=True),
    "ReplicationController": KindStrategy(default=defaults.replication_controller,
                                          prepare_for_create=_CONTROLLER_PREPARE[0],
                                          prepare_for_update=_CONTROLLER_PREPARE[1],
                                          warnings_on_create=pod_warnings.controller_create,
                                          warnings_on_update=pod_warnings.controller_update,
                                          validate=validation.replication_controller, scale_selector_is_map=True,
                                          checks_generate_name=False, orphans_by_default=True, name_rule=meta.long_name),
    # Services creates racing another server's for the same IP and port ranges, before the client gets a 409.
    "Service": KindStrategy(default=defaults.service, validate=service_validation.service_create,
                            warnings_on_create=object_warnings.service, warnings_on_update=object_warnings.service,
                            validate_update=service_validation.service_update, returns_deleted_object=True,
                            validate_subresource_update=service_validation.service_status_update,
                            warnings_on_subresource_update=object_warnings.load_balancer_status,
                            name_rule=meta.label_name,
                            begin_create=service_allocation.begin_create,
                            begin_update=service_allocation.begin_update,
                            prepare_for_update=service_strategy.drop_type_dependent_fields,
                            decorate=service_strategy.default_on_read,
                            before_create_write=service_allocation.hold_cluster_ips,
                            before_update_write=service_allocation.rehold_cluster_ips,
                            after_delete=service_allocation.release_cluster_ips, allocation_attempts=5,
                            creates_on_update=True),
    "Endpoints": KindStrategy(default=defaults.endpoints, validate=endpoints_validation.endpoints,
                              validate_update=endpoints_validation.endpoints_update,
                              warnings_on_create=object_warnings.endpoints, warnings_on_update=object_warnings.endpoints,
                              creates_on_update=True),
    "Node": KindStrategy(decode=node_validation.convert_pod_cidrs, prepare_for_create=_node_create, prepare_for_update=node_validation.prepare_for_update,
                         validate=node_validation.node, validate_update=node_validation.node_update,
                         keeps_status_on_create=True, warnings_on_create=object_warnings.node,
                         warnings_on_update=object_warnings.node),
    "Namespace": KindStrategy(default=defaults.namespace, begin_create=_namespace_create, deletes_contents=True,
                              spec_finalizers=True,
                              validate=endpoints_validation.namespace,
                              prepare_for_update=endpoints_validation.keep_finalizers_and_status,
                              validate_subresource_update=endpoints_validation.namespace_finalize,
                              returns_deleted_object=True, name_rule=meta.label_name),
    "PersistentVolume": KindStrategy(default=defaults.persistent_volume, prepare_for_create=_volume_create,
                                     validate=pv_validation.persistent_volume,
                                     validate_update=pv_validation.persistent_volume_update,
                                     warnings_on_create=object_warnings.persistent_volume,
                                     warnings_on_update=object_warnings.persistent_volume,
                                     after_status_update=_volume_status, returns_deleted_object=True),
    "PersistentVolumeClaim": KindStrategy(
        default=defaults.persistent_volume_claim, validate=pvc_validation.persistent_volume_claim,
        validate_update=pvc_validation.persistent_volume_claim_update, prepare_for_create=_claim_create,
        prepare_for_update=pvc_validation.prepare_for_update,
        warnings_on_create=object_warnings.persistent_volume_claim,
        warnings_on_update=object_warnings.persistent_volume_claim, returns_deleted_object=True),
    "Secret": KindStrategy(decode=fold_string_data, default=defaults.secret, validate=config_validation.secret,
                           validate_update=config_validation.secret_update),
    "ConfigMap": KindStrategy(validate=config_validation.config_map,
                              validate_update=config_validation.config_map_update),
    "ServiceAccount": KindStrategy(returns_deleted_object=True, prepare_for_create=_clean_secret_references,
                                   warnings_on_create=object_warnings.service_account,
                                   warnings_on_update=object_warnings.service_account,
                                   prepare_for_update=lambda new, old: _clean_secret_references(new)),
    "LimitRange": KindStrategy(default=defaults.limit_range, validate=quota_validation.limit_range,
                               prepare_for_create=_limit_range_create, creates_on_update=True),
    # Names need only be usable in a URL: the event strategy judges no metadata of its own.
    "Event": KindStrategy(validate=event_validation.core_event, validate_update=event_validation.core_event_update,
                          name_rule=meta.path_segment, kube_finalizers=False, creates_on_update=True),
    "ResourceQuota": KindStrategy(validate=quota_validation.resource_quota,
                                  validate_update=quota_validation.resource_quota_update, returns_deleted_object=True),
    # Never stored: a create binds the pod the Binding names.
    "Binding": KindStrategy(creates_binding=True),
}
