"""What kube-apiserver's Go types write even when unset, keyed by definition name: a field whose Go
struct is not a pointer, or lacks omitempty (`resources: {}`, `lastProbeTime: null`).

shaping.py writes them, with Go struct key order, into every stored built-in object.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from typing import Any

Obj = dict[str, Any]


@functools.cache
def _go_encoding() -> tuple[dict[str, frozenset[str]], dict[str, tuple[tuple[str, Any], ...]],
                            dict[str, tuple[str, ...]]]:
    facts = json.loads((importlib.resources.files("apiserver") / "data" / "omitempty.json").read_bytes())
    by_value: dict[str, tuple[str, ...]] = {}
    for name, fields in [*facts["structs"].items(), *facts["marshaled"].items()]:
        by_value[name] = (*by_value.get(name, ()), *fields)
    return ({name: frozenset(fields) for name, fields in facts["omitempty"].items()},
            {name: tuple(zeros.items()) for name, zeros in facts["written"].items()}, by_value)


def omitted_when_empty(definition: str) -> frozenset[str]:
    """The fields of a definition tagged omitempty whose Go type is a string, number, bool, slice or
    map: absent when empty (apiserver/data/omitempty.json, from tools/omitempty_facts.py)."""
    return _go_encoding()[0].get(definition, frozenset())


def struct_values(definition: str) -> tuple[str, ...]:
    """The fields of a definition holding a struct by value: present in its Go zero value."""
    return _go_encoding()[2].get(definition, ())


def scalars_written(definition: str) -> tuple[tuple[str, Any], ...]:
    """The scalar fields of a definition Go writes even when never set, with the zero value written."""
    return _go_encoding()[1].get(definition, ())

# definition -> field -> the value Go writes for it when it was never set.
_GO_ZERO: dict[str, dict[str, Any]] = {
    "io.k8s.api.core.v1.Container": {"resources": {}},
    "io.k8s.api.core.v1.PodCondition": {"lastProbeTime": None, "lastTransitionTime": None},
    "io.k8s.api.core.v1.ContainerStatus": {"state": {}, "lastState": {}, "ready": False, "restartCount": 0,
                                           "image": "", "imageID": ""},
    "io.k8s.api.core.v1.PodTemplateSpec": {"metadata": {}},
    "io.k8s.api.batch.v1.JobTemplateSpec": {"metadata": {}},
    "io.k8s.api.resource.v1.ResourceClaimTemplateSpec": {"metadata": {}, "spec": {}},
    "io.k8s.api.resource.v1.ResourceClaimTemplate": {"spec": {}},
    "io.k8s.api.resource.v1.ResourceClaimSpec": {"devices": {}},
    "io.k8s.api.resource.v1.DeviceClaim": {"requests": None},
    "io.k8s.api.core.v1.NodeStatus": {"daemonEndpoints": {}, "nodeInfo": {}},
    "io.k8s.api.core.v1.NodeDaemonEndpoints": {"kubeletEndpoint": {}},
    "io.k8s.api.core.v1.DaemonEndpoint": {"Port": 0},
    "io.k8s.api.core.v1.NodeSystemInfo": {k: "" for k in (
        "machineID", "systemUUID", "bootID", "kernelVersion", "osImage", "containerRuntimeVersion",
        "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture")},
    "io.k8s.api.core.v1.NodeCondition": {"lastHeartbeatTime": None, "lastTransitionTime": None},
    "io.k8s.api.core.v1.ServiceStatus": {"loadBalancer": {}},
    "io.k8s.api.networking.v1.IngressStatus": {"loadBalancer": {}},
    "io.k8s.api.core.v1.Event": {"involvedObject": {}, "source": {}, "firstTimestamp": None,
                                 "lastTimestamp": None, "eventTime": None,
                                 "reportingComponent": "", "reportingInstance": ""},
    "io.k8s.api.core.v1.EventSeries": {"lastObservedTime": None},
    "io.k8s.api.events.v1.Event": {"eventTime": None, "regarding": {}, "deprecatedSource": {},
                                   "deprecatedFirstTimestamp": None, "deprecatedLastTimestamp": None},
    "io.k8s.api.core.v1.LimitRangeSpec": {"limits": None},
    "io.k8s.api.core.v1.PersistentVolumeClaimSpec": {"resources": {}},
    "io.k8s.api.apps.v1.DeploymentCondition": {"lastUpdateTime": None, "lastTransitionTime": None},
    "io.k8s.api.batch.v1.JobCondition": {"lastProbeTime": None, "lastTransitionTime": None},
    "io.k8s.api.apps.v1.DaemonSetStatus": {"currentNumberScheduled": 0, "numberMisscheduled": 0,
                                           "desiredNumberScheduled": 0, "numberReady": 0},
    "io.k8s.api.apps.v1.ReplicaSetStatus": {"replicas": 0},
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionStatus": {
        "conditions": None, "acceptedNames": {}},
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionNames": {
        "plural": "", "kind": ""},
    "io.k8s.api.apps.v1.StatefulSetStatus": {"replicas": 0, "availableReplicas": 0},
    "io.k8s.api.apps.v1.StatefulSetSpec": {"serviceName": ""},
    "io.k8s.api.apps.v1.StatefulSetOrdinals": {"start": 0},
}
_GO_ZERO.update({
    "io.k8s.api.policy.v1.PodDisruptionBudgetStatus": {"disruptionsAllowed": 0, "currentHealthy": 0,
                                                       "desiredHealthy": 0, "expectedPods": 0},
    "io.k8s.api.storage.v1.CSINodeDriver": {"name": "", "nodeID": "", "topologyKeys": None},
    # apiGroup is a *string without omitempty: a claim's data source without one is written null.
    "io.k8s.api.core.v1.TypedLocalObjectReference": {"apiGroup": None},
    "io.k8s.api.core.v1.TypedObjectReference": {"apiGroup": None},
    "io.k8s.api.storage.v1.CSINodeSpec": {"drivers": None},
    # No omitempty: unset rules are written null, and an empty list reads back null from protobuf
    # (the aggregated ClusterRoles admin, edit and view read `rules: null`).
    "io.k8s.api.rbac.v1.Role": {"rules": None},
    "io.k8s.api.rbac.v1.ClusterRole": {"rules": None},
    "io.k8s.api.core.v1.ReplicationControllerStatus": {"replicas": 0},
    "io.k8s.api.scheduling.v1.PriorityClass": {"value": 0},
    "io.k8s.api.apps.v1.ControllerRevision": {"revision": 0},
    "io.k8s.api.node.v1.RuntimeClass": {"handler": ""},
    "io.k8s.api.storage.v1.VolumeAttachmentStatus": {"attached": False},
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus": {"desiredReplicas": 0, "currentMetrics": None},
    # Neither list is tagged omitempty: unset or empty (read back from protobuf), each is written null.
    "io.k8s.api.discovery.v1.EndpointSlice": {"endpoints": None, "ports": None},
    # Endpoint.conditions is a plain struct; ForZone/ForNode.name lack omitempty.
    "io.k8s.api.discovery.v1.Endpoint": {"conditions": {}},
    "io.k8s.api.discovery.v1.ForZone": {"name": ""},
    "io.k8s.api.discovery.v1.ForNode": {"name": ""},
    "io.k8s.api.networking.v1.NetworkPolicySpec": {"podSelector": {}},
    "io.k8s.api.networking.v1.IPBlock": {"cidr": ""},
    "io.k8s.api.networking.v1.HTTPIngressPath": {"backend": {}},
    "io.k8s.api.networking.v1.IngressServiceBackend": {"port": {}},
    "io.k8s.api.networking.v1.IngressClassParametersReference": {"kind": "", "name": ""},
    "io.k8s.api.storage.v1.TokenRequest": {"audience": ""},
})
# Kinds whose status is a plain struct: it is written as {} even when nothing set it.
for _definition in ("core.v1.Pod", "core.v1.Service", "core.v1.Namespace", "core.v1.Node",
                    "core.v1.PersistentVolume", "core.v1.PersistentVolumeClaim", "apps.v1.Deployment",
                    "apps.v1.ReplicaSet", "apps.v1.StatefulSet", "apps.v1.DaemonSet", "batch.v1.Job",
                    "batch.v1.CronJob", "networking.v1.Ingress", "policy.v1.PodDisruptionBudget",
                    "admissionregistration.v1.ValidatingAdmissionPolicy", "autoscaling.v2.HorizontalPodAutoscaler",
                    "flowcontrol.v1.PriorityLevelConfiguration", "flowcontrol.v1.FlowSchema",
                    "networking.v1.ServiceCIDR", "core.v1.ReplicationController", "core.v1.ResourceQuota",
                    "resource.v1.ResourceClaim", "certificates.v1.CertificateSigningRequest",
                    "storage.v1.VolumeAttachment"):
    _GO_ZERO.setdefault("io.k8s.api." + _definition, {})["status"] = {}
# Kinds whose spec is a plain struct that may be left empty: it is written as {} all the same.
for _definition in ("coordination.v1.Lease", "networking.v1.NetworkPolicy", "policy.v1.PodDisruptionBudget",
                    "core.v1.ResourceQuota", "core.v1.LimitRange", "core.v1.Node", "storage.v1.CSINode", "networking.v1.IPAddress",
                    "networking.v1.ServiceCIDR", "resource.v1.DeviceClass", "resource.v1.ResourceClaim",
                    "storage.v1.VolumeAttachment", "autoscaling.v2.HorizontalPodAutoscaler"):
    _GO_ZERO.setdefault("io.k8s.api." + _definition, {})["spec"] = {}


def always_written(definition: str) -> dict[str, Any]:
    """The fields of a definition Go writes even when unset, with the value it writes."""
    return _GO_ZERO.get(definition, {})
