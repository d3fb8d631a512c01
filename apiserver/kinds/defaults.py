"""kube-apiserver 1.36's defaulting of the built-in kinds, and what its Go types always serialize.

Two kinds of rule, both pure functions on decoded objects:
- `default(kind, obj)`: the SetDefaults_* functions of pkg/apis/*/v1/defaults.go.
- `admit(kind, obj)`: what the default admission plugins add on create (DefaultTolerationSeconds,
  TaintNodesByCondition, StorageObjectInUseProtection), and the pod strategy's status. Those that read
  other objects (Priority, DefaultStorageClass, DefaultIngressClass) are in admission.py.
- `always_written(definition)`: fields whose Go struct is not a pointer, or lacks omitempty, are written
  out even when unset (`resources: {}`, `lastProbeTime: null`), keyed by definition name; shaping.py
  writes them.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from apiserver.kinds import admission_defaults, autoscaling, config_defaults, schemas

Obj = dict[str, Any]

# definition -> field -> the value Go writes for it when it was never set.
_GO_ZERO: dict[str, dict[str, Any]] = {
    "io.k8s.api.core.v1.Container": {"resources": {}},
    "io.k8s.api.core.v1.PodCondition": {"lastProbeTime": None, "lastTransitionTime": None},
    "io.k8s.api.core.v1.ContainerStatus": {"state": {}, "lastState": {}, "ready": False, "restartCount": 0,
                                           "image": "", "imageID": ""},
    "io.k8s.api.core.v1.PodTemplateSpec": {"metadata": {}},
    "io.k8s.api.batch.v1.JobTemplateSpec": {"metadata": {}},
    "io.k8s.api.core.v1.NodeStatus": {"daemonEndpoints": {}, "nodeInfo": {}},
    "io.k8s.api.core.v1.NodeDaemonEndpoints": {"kubeletEndpoint": {}},
    "io.k8s.api.core.v1.DaemonEndpoint": {"Port": 0},
    "io.k8s.api.core.v1.NodeSystemInfo": {k: "" for k in (
        "machineID", "systemUUID", "bootID", "kernelVersion", "osImage", "containerRuntimeVersion",
        "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture")},
    "io.k8s.api.core.v1.NodeCondition": {"lastHeartbeatTime": None, "lastTransitionTime": None},
    "io.k8s.api.core.v1.ServiceStatus": {"loadBalancer": {}},
    "io.k8s.api.networking.v1.IngressStatus": {"loadBalancer": {}},
    "io.k8s.api.core.v1.Event": {"involvedObject": {}, "source": {}, "eventTime": None,
                                 "reportingComponent": "", "reportingInstance": ""},
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
}
_GO_ZERO.update({
    "io.k8s.api.policy.v1.PodDisruptionBudgetStatus": {"disruptionsAllowed": 0, "currentHealthy": 0,
                                                       "desiredHealthy": 0, "expectedPods": 0},
    "io.k8s.api.storage.v1.CSINodeDriver": {"topologyKeys": None},
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
                    "core.v1.ResourceQuota", "storage.v1.CSINode", "networking.v1.IPAddress",
                    "networking.v1.ServiceCIDR", "resource.v1.DeviceClass", "resource.v1.ResourceClaim",
                    "storage.v1.VolumeAttachment", "autoscaling.v2.HorizontalPodAutoscaler"):
    _GO_ZERO.setdefault("io.k8s.api." + _definition, {})["spec"] = {}


def always_written(definition: str) -> dict[str, Any]:
    """The fields of a definition Go writes even when unset, with the value it writes."""
    return _GO_ZERO.get(definition, {})


def _spec(obj: Obj) -> Obj:
    """The object's spec, made an empty one where the body left it out or sent null (Go's zero value)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    return spec


# -- pod templates and pods ----------------------------------------------------------------------

def _image_pull_policy(image: str) -> str:
    # A digest pins the image; otherwise an image without a tag, or tagged latest, is pulled every time.
    if "@" in image:
        return "IfNotPresent"
    last = image.rsplit("/", 1)[-1]
    tag = last.partition(":")[2]
    return "Always" if tag in ("", "latest") else "IfNotPresent"


def _probe(probe: Any) -> None:
    if isinstance(probe, dict):
        http_get = probe.get("httpGet")
        if isinstance(http_get, dict):
            http_get.setdefault("path", "/")
            http_get.setdefault("scheme", "HTTP")
        probe.setdefault("timeoutSeconds", 1)
        probe.setdefault("periodSeconds", 10)
        probe.setdefault("successThreshold", 1)
        probe.setdefault("failureThreshold", 3)


def _container(c: Obj) -> None:
    c.setdefault("terminationMessagePath", "/dev/termination-log")
    c.setdefault("terminationMessagePolicy", "File")
    c.setdefault("imagePullPolicy", _image_pull_policy(str(c.get("image") or "")))
    for port in c.get("ports") or ():
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")
    for env in c.get("env") or ():
        field_ref = (env.get("valueFrom") or {}).get("fieldRef") if isinstance(env, dict) else None
        if isinstance(field_ref, dict):
            field_ref.setdefault("apiVersion", "v1")
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        _probe(c.get(probe))
    resources = c.get("resources")
    if isinstance(resources, dict) and isinstance(resources.get("limits"), dict):
        # Requests default to the limits they are missing from.
        requests = resources.setdefault("requests", {})
        for name, amount in resources["limits"].items():
            requests.setdefault(name, amount)


def _volume(v: Obj) -> None:
    for source in ("configMap", "secret", "downwardAPI", "projected"):
        if isinstance(v.get(source), dict):
            v[source].setdefault("defaultMode", 420)
    if isinstance(v.get("hostPath"), dict):
        v["hostPath"].setdefault("type", "")


@functools.cache
def _volume_sources() -> frozenset[str]:
    return frozenset(schemas.definitions()["io.k8s.api.core.v1.Volume"]["properties"]) - {"name"}


def pod_spec(spec: Obj) -> None:
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for c in spec.get(key) or ():
            if isinstance(c, dict):
                _container(c)
    for v in spec.get("volumes") or ():
        if isinstance(v, dict):
            if all(v.get(source) is None for source in _volume_sources()):
                v["emptyDir"] = {}  # SetDefaults_Volume: a volume that names no source is an emptyDir
            _volume(v)
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")


def _template(owner: Obj) -> None:
    template = (owner.get("spec") or {}).get("template")
    if isinstance(template, dict) and isinstance(template.get("spec"), dict):
        pod_spec(template["spec"])


_NOT_READY_TOLERATIONS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")


def _pod(obj: Obj) -> None:
    spec = _spec(obj)
    pod_spec(spec)
    spec.setdefault("enableServiceLinks", True)


def default_toleration_seconds(spec: Obj) -> None:
    """DefaultTolerationSeconds admission: tolerate a not-ready or unreachable node for 300s."""
    tolerations = spec.setdefault("tolerations", [])
    for key in _NOT_READY_TOLERATIONS:
        if not any(isinstance(t, dict) and t.get("key") == key and t.get("effect") in ("NoExecute", None)
                   for t in tolerations):
            tolerations.append({"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300})


def _admit_pod(obj: Obj) -> None:
    spec = _spec(obj)
    default_toleration_seconds(spec)
    # The pod strategy starts every pod Pending, in the QoS class its resources give it.
    status = obj.setdefault("status", {})
    status.setdefault("phase", "Pending")
    status.setdefault("qosClass", _qos_class(spec))


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


# -- workloads -----------------------------------------------------------------------------------

def _deployment(obj: Obj) -> None:
    spec = _spec(obj)
    spec.setdefault("replicas", 1)
    strategy = spec.setdefault("strategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.setdefault("rollingUpdate", {})
        rolling.setdefault("maxUnavailable", "25%")
        rolling.setdefault("maxSurge", "25%")
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("progressDeadlineSeconds", 600)
    _template(obj)


def _replica_set(obj: Obj) -> None:
    _spec(obj).setdefault("replicas", 1)
    _template(obj)


def _stateful_set(obj: Obj) -> None:
    spec = _spec(obj)
    spec.setdefault("replicas", 1)
    spec.setdefault("podManagementPolicy", "OrderedReady")
    strategy = spec.setdefault("updateStrategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        strategy.setdefault("rollingUpdate", {}).setdefault("partition", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    retention = spec.setdefault("persistentVolumeClaimRetentionPolicy", {})
    retention.setdefault("whenDeleted", "Retain")
    retention.setdefault("whenScaled", "Retain")
    for claim in spec.get("volumeClaimTemplates") or ():
        if isinstance(claim, dict):
            claim.setdefault("apiVersion", "v1")
            claim.setdefault("kind", "PersistentVolumeClaim")
            _claim(claim)
    _template(obj)


def _daemon_set(obj: Obj) -> None:
    spec = _spec(obj)
    strategy = spec.setdefault("updateStrategy", {})
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.setdefault("rollingUpdate", {})
        rolling.setdefault("maxUnavailable", 1)
        rolling.setdefault("maxSurge", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    _template(obj)


def _unset(obj: Obj, key: str) -> bool:
    """Go reads a field sent as null as never sent: both are defaulted."""
    return obj.get(key) is None


def _job(obj: Obj) -> None:
    """SetDefaults_Job, which runs on every decode: of a request body and of every read from storage."""
    spec = _spec(obj)
    if _unset(spec, "completions") and _unset(spec, "parallelism"):
        spec["completions"] = 1
    if _unset(spec, "parallelism"):
        spec["parallelism"] = 1
    if _unset(spec, "backoffLimit"):
        spec["backoffLimit"] = 6 if spec.get("backoffLimitPerIndex") is None else 2147483647
    template = spec.get("template")
    template_meta = template.get("metadata") if isinstance(template, dict) else None
    template_labels = template_meta.get("labels") if isinstance(template_meta, dict) else None
    if isinstance(template_labels, dict) and not obj["metadata"].get("labels"):
        # Go assigns the template's map itself: labels the create strategy adds to the template later
        # (the generated selector's) show on the job too. The same dict keeps that true here.
        obj["metadata"]["labels"] = template_labels
    if _unset(spec, "completionMode"):
        spec["completionMode"] = "NonIndexed"
    if _unset(spec, "suspend"):
        spec["suspend"] = False
    if _unset(spec, "podReplacementPolicy"):
        failure_policy = spec.get("podFailurePolicy")
        spec["podReplacementPolicy"] = "TerminatingOrFailed" if failure_policy is None else "Failed"
    _pod_failure_policy(spec.get("podFailurePolicy"))
    if _unset(spec, "manualSelector"):
        spec["manualSelector"] = False
    if isinstance(template, dict) and isinstance(template.get("spec"), dict):
        pod_spec(template["spec"])


def _pod_failure_policy(policy: Any) -> None:
    """A rule's pod condition pattern matches the condition being True unless it says otherwise."""
    if not isinstance(policy, dict):
        return
    for rule in policy.get("rules") or ():
        for pattern in (rule.get("onPodConditions") or ()) if isinstance(rule, dict) else ():
            if isinstance(pattern, dict) and not pattern.get("status"):
                pattern["status"] = "True"


def _cron_job(obj: Obj) -> None:
    spec = _spec(obj)
    spec.setdefault("concurrencyPolicy", "Allow")
    spec.setdefault("suspend", False)
    spec.setdefault("successfulJobsHistoryLimit", 3)
    spec.setdefault("failedJobsHistoryLimit", 1)
    template = (spec.get("jobTemplate") or {}).get("spec")
    if isinstance(template, dict):
        _pod_failure_policy(template.get("podFailurePolicy"))
        pod = (template.get("template") or {}).get("spec")
        if isinstance(pod, dict):
            pod_spec(pod)


# -- services, storage, the rest -----------------------------------------------------------------

def _service(obj: Obj) -> None:
    spec = _spec(obj)
    kind = spec.setdefault("type", "ClusterIP")
    spec.setdefault("sessionAffinity", "None")
    if kind == "ExternalName":
        return
    for port in spec.get("ports") or ():
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")
            port.setdefault("targetPort", port.get("port"))
    if kind in ("NodePort", "LoadBalancer"):
        spec.setdefault("externalTrafficPolicy", "Cluster")
    if kind == "LoadBalancer":
        spec.setdefault("allocateLoadBalancerNodePorts", True)
    spec.setdefault("internalTrafficPolicy", "Cluster")


def _claim(obj: Obj) -> None:
    _spec(obj).setdefault("volumeMode", "Filesystem")
    obj.setdefault("status", {}).setdefault("phase", "Pending")


def _persistent_volume(obj: Obj) -> None:
    spec = _spec(obj)
    spec.setdefault("persistentVolumeReclaimPolicy", "Retain")
    spec.setdefault("volumeMode", "Filesystem")
    _volume(spec)
    obj.setdefault("status", {}).setdefault("phase", "Pending")


def _protect(obj: Obj, finalizer: str) -> None:
    # StorageObjectInUseProtection admission: a claim or volume in use is not removed under its pod.
    finalizers = obj["metadata"].setdefault("finalizers", [])
    if finalizer not in finalizers:
        finalizers.append(finalizer)


def _admit_node(obj: Obj) -> None:
    # TaintNodesByCondition admission: a new node is not ready until its kubelet says so.
    taints = _spec(obj).setdefault("taints", [])
    taint = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}
    if not any(t.get("key") == taint["key"] and t.get("effect") == taint["effect"] for t in taints):
        taints.append(taint)


def _namespace(obj: Obj) -> None:
    # A namespace can always be selected by its name.
    obj["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = obj["metadata"].get("name", "")
    obj.setdefault("status", {}).setdefault("phase", "Active")


def _secret(obj: Obj) -> None:
    obj.setdefault("type", "Opaque")


def _storage_class(obj: Obj) -> None:
    obj.setdefault("reclaimPolicy", "Delete")
    obj.setdefault("volumeBindingMode", "Immediate")


def _endpoint_slice(obj: Obj) -> None:
    for port in obj.get("ports") or ():
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")


def _endpoints(obj: Obj) -> None:
    for subset in obj.get("subsets") or ():
        for port in (subset or {}).get("ports") or ():
            if isinstance(port, dict):
                port.setdefault("protocol", "TCP")


def _rbac_subjects(obj: Obj) -> None:
    """A User or Group subject without apiGroup is RBAC's own (a ServiceAccount's stays core's)."""
    for subject in obj.get("subjects") or ():
        if isinstance(subject, dict) and not subject.get("apiGroup") and subject.get("kind") in ("User", "Group"):
            subject["apiGroup"] = "rbac.authorization.k8s.io"


def _replication_controller(obj: Obj) -> None:
    spec = _spec(obj)
    template = spec.get("template")
    labels = ((template or {}).get("metadata") or {}).get("labels") if isinstance(template, dict) else None
    if labels:
        if not spec.get("selector"):
            spec["selector"] = dict(labels)
        if not obj["metadata"].get("labels"):
            obj["metadata"]["labels"] = dict(labels)
    spec.setdefault("replicas", 1)
    _template(obj)


def _pod_template(obj: Obj) -> None:
    template = obj.get("template")
    if isinstance(template, dict) and isinstance(template.get("spec"), dict):
        pod_spec(template["spec"])


# Defaulting runs on every write, as upstream decodes every body through its defaulters.
_DEFAULTERS: dict[str, Callable[[Obj], None]] = {
    "Pod": _pod, "Deployment": _deployment, "ReplicaSet": _replica_set, "StatefulSet": _stateful_set,
    "DaemonSet": _daemon_set, "Job": _job, "CronJob": _cron_job, "Service": _service,
    "PersistentVolumeClaim": _claim, "PersistentVolume": _persistent_volume, "Namespace": _namespace,
    "Secret": _secret, "StorageClass": _storage_class, "EndpointSlice": _endpoint_slice,
    "Endpoints": _endpoints, "RoleBinding": _rbac_subjects, "ClusterRoleBinding": _rbac_subjects,
    "ReplicationController": _replication_controller, "PodTemplate": _pod_template,
    "HorizontalPodAutoscaler": autoscaling.default, **admission_defaults.DEFAULTERS, **config_defaults.DEFAULTERS,
}
# Admission plugins and create strategies: only when an object is created, after its managed fields.
_ADMISSION: dict[str, Callable[[Obj], None]] = {
    "Pod": _admit_pod, "Node": _admit_node,
    "PersistentVolumeClaim": lambda obj: _protect(obj, "kubernetes.io/pvc-protection"),
    "PersistentVolume": lambda obj: _protect(obj, "kubernetes.io/pv-protection"),
    "VolumeAttributesClass": lambda obj: _protect(obj, "kubernetes.io/vac-protection"),
}


def default(kind: str, obj: Obj) -> None:
    defaulter = _DEFAULTERS.get(kind)
    if defaulter is not None:
        defaulter(obj)


def admit(kind: str, obj: Obj) -> None:
    admission = _ADMISSION.get(kind)
    if admission is not None:
        admission(obj)
