"""One small valid object per kind: the object every generated case starts from.

The OpenAPI schemas say which fields are required, but not the rules validation adds (a Pod needs a
container, a Deployment's selector must match its template); these seeds add what kube-apiserver 1.36
refuses to create without and nothing more. Objects that could reach outside their case are kept
harmless: webhooks and admission policies match only a resource nobody serves, a FlowSchema only a
user nobody is, and nothing claims to be a cluster-wide default.
"""

from __future__ import annotations

import copy
from typing import Any

from tools.differential.kinds import Kind

Obj = dict[str, Any]

CSR_PEM_BASE64 = (
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIU01Ia0NBUUF3RnpFVk1CTUdBMVVFQXd3TVpHbG1abVZ5Wlc1MGFXRn"
    "NNRmt3RXdZSEtvWkl6ajBDQVFZSQpLb1pJemowREFRY0RRZ0FFSXpnSjV0YjNxOURzdXpmOCtKM21WNHVVakJrWURBMERlVTY1U2IyRUsr"
    "dTJzVjNDCjBkVHdvR1g4YnMwMWp3ZFRhRVAzM2VWZ1BxVEx5MnNmc21FQlM2QUFNQW9HQ0NxR1NNNDlCQU1DQTBrQU1FWUMKSVFDNThUej"
    "FPZEU1RXlLQ1pxalNXd1dLOFI3R0NIbjIwMWplTHVGYmcyMG1tUUloQUx6SktBdUg2Z0RmbnkxbQo0c3BZUmxLcTY4TitIY3hTRDVZNkZt"
    "cHNycSthCi0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo="
)

_CONTAINER: Obj = {"name": "c", "image": "registry.example.com/app:1"}
_LABELS = {"app": "demo"}
_NOTHING_RULE: Obj = {"apiGroups": ["example.com"], "apiVersions": ["v1"], "operations": ["CREATE"],
                      "resources": ["nothings"]}


def _pod_template(restart: str | None = None) -> Obj:
    spec: Obj = {"containers": [dict(_CONTAINER)]}
    if restart:
        spec["restartPolicy"] = restart
    return {"metadata": {"labels": dict(_LABELS)}, "spec": spec}


def _workload() -> Obj:
    return {"spec": {"selector": {"matchLabels": dict(_LABELS)}, "template": _pod_template()}}


def _webhooks() -> Obj:
    return {"webhooks": [{"name": "w.example.com", "clientConfig": {"url": "https://hooks.example.com/x"},
                          "rules": [dict(_NOTHING_RULE)], "sideEffects": "None",
                          "admissionReviewVersions": ["v1"]}]}


def _seed_body(kind: str, group: str, version: str, namespace: str | None, token: str) -> Obj:
    match (group, kind):
        case ("", "ConfigMap"):
            return {"data": {"key": "value"}}
        case ("", "Endpoints"):
            return {"subsets": [{"addresses": [{"ip": "192.168.10.1"}], "ports": [{"port": 80}]}]}
        case ("", "Event"):
            return {"involvedObject": {"kind": "Pod", "namespace": namespace, "name": "p"}, "reason": "Seen",
                    "message": "seen", "type": "Normal"}
        case ("", "LimitRange"):
            return {"spec": {"limits": [{"type": "Container", "max": {"cpu": "1"}}]}}
        case ("", "Namespace") | ("", "Node") | ("", "ServiceAccount") | ("", "ComponentStatus"):
            return {}
        case ("", "PersistentVolumeClaim"):
            return {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
        case ("", "PersistentVolume"):
            return {"spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                             "hostPath": {"path": "/data/pv"}}}
        case ("", "Pod"):
            return {"spec": {"containers": [dict(_CONTAINER)]}}
        case ("", "PodTemplate"):
            return {"template": _pod_template()}
        case ("", "ReplicationController"):
            return {"spec": {"selector": dict(_LABELS), "template": _pod_template()}}
        case ("", "ResourceQuota"):
            return {"spec": {"hard": {"pods": "10"}}}
        case ("", "Secret"):
            return {"data": {"key": "dmFsdWU="}}
        case ("", "Service"):
            return {"spec": {"ports": [{"port": 80}], "selector": dict(_LABELS)}}
        case ("", "Binding"):
            return {"target": {"kind": "Node", "name": "node-1"}}
        case ("apiregistration.k8s.io", "APIService"):
            return {"spec": {"group": f"g{token}.example.com", "version": "v1", "groupPriorityMinimum": 100,
                             "versionPriority": 100}}
        case ("apps", "ControllerRevision"):
            return {"revision": 1, "data": {}}
        case ("apps", "DaemonSet" | "Deployment" | "ReplicaSet" | "StatefulSet"):
            return _workload()
        case ("events.k8s.io", "Event"):
            return {"eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "example.com/ctl",
                    "reportingInstance": "ctl-1", "action": "Act", "reason": "Seen", "type": "Normal",
                    "regarding": {"kind": "Pod", "namespace": namespace, "name": "p"}}
        case ("authentication.k8s.io", "SelfSubjectReview"):
            return {}
        case ("authentication.k8s.io", "TokenReview"):
            return {"spec": {"token": "not-a-known-token"}}
        case ("authorization.k8s.io", "LocalSubjectAccessReview"):
            return {"spec": {"user": "alice", "resourceAttributes": {"namespace": namespace, "verb": "get",
                                                                     "resource": "pods"}}}
        case ("authorization.k8s.io", "SelfSubjectAccessReview"):
            return {"spec": {"resourceAttributes": {"verb": "get", "resource": "pods"}}}
        case ("authorization.k8s.io", "SelfSubjectRulesReview"):
            return {"spec": {"namespace": "default"}}
        case ("authorization.k8s.io", "SubjectAccessReview"):
            return {"spec": {"user": "alice", "resourceAttributes": {"verb": "get", "resource": "pods"}}}
        case ("autoscaling", "HorizontalPodAutoscaler"):
            return {"spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
                             "maxReplicas": 3}}
        case ("batch", "CronJob"):
            return {"spec": {"schedule": "*/5 * * * *",
                             "jobTemplate": {"spec": {"template": _pod_template("OnFailure")}}}}
        case ("batch", "Job"):
            template = _pod_template("Never")
            template["metadata"] = {}
            return {"spec": {"template": template}}
        case ("certificates.k8s.io", "CertificateSigningRequest"):
            return {"spec": {"request": CSR_PEM_BASE64, "signerName": "example.com/signer",
                             "usages": ["digital signature"]}}
        case ("networking.k8s.io", "IngressClass"):
            return {"spec": {"controller": "example.com/ingress"}}
        case ("networking.k8s.io", "Ingress"):
            return {"spec": {"defaultBackend": {"service": {"name": "s", "port": {"number": 80}}}}}
        case ("networking.k8s.io", "IPAddress"):
            return {"spec": {"parentRef": {"group": "", "resource": "services", "namespace": "default",
                                           "name": "s"}}}
        case ("networking.k8s.io", "NetworkPolicy"):
            return {"spec": {"podSelector": {}}}
        case ("networking.k8s.io", "ServiceCIDR"):
            number = int(token[:4], 16)
            return {"spec": {"cidrs": [f"172.{16 + number % 16}.{(number >> 4) % 256}.0/24"]}}
        case ("policy", "PodDisruptionBudget"):
            return {"spec": {"minAvailable": 1, "selector": {"matchLabels": dict(_LABELS)}}}
        case ("rbac.authorization.k8s.io", "ClusterRoleBinding" | "RoleBinding"):
            rbac = "rbac.authorization.k8s.io"
            return {"roleRef": {"apiGroup": rbac, "kind": "ClusterRole", "name": "view"},
                    "subjects": [{"kind": "User", "name": "alice", "apiGroup": rbac}]}
        case ("rbac.authorization.k8s.io", "ClusterRole") | ("rbac.authorization.k8s.io", "Role"):
            return {"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}
        case ("storage.k8s.io", "CSIDriver"):
            return {"spec": {"attachRequired": True}}
        case ("storage.k8s.io", "CSINode"):
            return {"spec": {"drivers": [{"name": "csi.example.com", "nodeID": "node-1"}]}}
        case ("storage.k8s.io", "CSIStorageCapacity"):
            return {"storageClassName": "standard"}
        case ("storage.k8s.io", "StorageClass"):
            return {"provisioner": "example.com/provisioner"}
        case ("storage.k8s.io", "VolumeAttachment"):
            return {"spec": {"attacher": "csi.example.com", "nodeName": "node-1",
                             "source": {"persistentVolumeName": "pv"}}}
        case ("storage.k8s.io", "VolumeAttributesClass"):
            return {"driverName": "csi.example.com", "parameters": {"iops": "100"}}
        case ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"):
            return {"spec": {"matchConstraints": {"resourceRules": [dict(_NOTHING_RULE)]},
                             "mutations": [{"patchType": "ApplyConfiguration",
                                            "applyConfiguration": {"expression": "Object{}"}}],
                             "reinvocationPolicy": "Never"}}
        case ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"):
            return {"spec": {"policyName": "policy"}}
        case ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"):
            return {"spec": {"matchConstraints": {"resourceRules": [dict(_NOTHING_RULE)]},
                             "validations": [{"expression": "true"}]}}
        case ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"):
            return {"spec": {"policyName": "policy", "validationActions": ["Deny"]}}
        case ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"):
            return _webhooks()
        case ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"):
            return _webhooks()
        case ("apiextensions.k8s.io", "CustomResourceDefinition"):
            return {"spec": {"group": f"g{token}.example.com", "names": {"plural": "things", "kind": "Thing"},
                             "scope": "Namespaced",
                             "versions": [{"name": "v1", "served": True, "storage": True,
                                           "schema": {"openAPIV3Schema": {"type": "object"}}}]}}
        case ("scheduling.k8s.io", "PriorityClass"):
            return {"value": 1000}
        case ("coordination.k8s.io", "Lease"):
            return {"spec": {"holderIdentity": "holder"}}
        case ("node.k8s.io", "RuntimeClass"):
            return {"handler": "runc"}
        case ("discovery.k8s.io", "EndpointSlice"):
            return {"addressType": "IPv4", "endpoints": [{"addresses": ["192.168.10.1"]}],
                    "ports": [{"port": 80}]}
        case ("resource.k8s.io", "DeviceClass"):
            return {"spec": {}}
        case ("resource.k8s.io", "ResourceClaim"):
            return {"spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "dc"}}]}}}
        case ("resource.k8s.io", "ResourceClaimTemplate"):
            return {"spec": {"spec": {"devices": {"requests": [{"name": "r",
                                                                "exactly": {"deviceClassName": "dc"}}]}}}}
        case ("resource.k8s.io", "ResourceSlice"):
            return {"spec": {"driver": "dra.example.com", "nodeName": "node-1",
                             "pool": {"name": "pool", "generation": 1, "resourceSliceCount": 1},
                             "devices": [{"name": "dev-0"}]}}
        case ("flowcontrol.apiserver.k8s.io", "FlowSchema"):
            return {"spec": {"priorityLevelConfiguration": {"name": "global-default"},
                             "matchingPrecedence": 5000,
                             "rules": [{"subjects": [{"kind": "User", "user": {"name": "nobody-at-all"}}],
                                        "resourceRules": [{"verbs": ["get"], "apiGroups": [""],
                                                           "resources": ["pods"], "namespaces": ["*"]}]}]}}
        case ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"):
            return {"spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 5,
                                                            "limitResponse": {"type": "Reject"}}}}
    raise KeyError(f"no seed for {group}/{version} {kind}")


def seed(kind: Kind, name: str, namespace: str | None, token: str) -> Obj:
    """The kind's smallest valid object, named, with apiVersion and kind as a client would send them."""
    body = copy.deepcopy(_seed_body(kind.kind, kind.group, kind.version, namespace, token))
    meta: Obj = {"name": name} if name else {}
    if kind.namespaced:
        meta["namespace"] = namespace
    return {"apiVersion": kind.api_version, "kind": kind.kind, "metadata": meta, **body}

