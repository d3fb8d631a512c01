"""Fields that may not be set together, per kind: the unions and one-ofs of the built-in types.

A schema does not say which of its optional fields exclude each other (a volume has one source, a
probe one handler, a PodDisruptionBudget minAvailable or maxUnavailable); this table does, read off
the types' comments in staging/src/k8s.io/api. Each entry sets a few paths on the kind's seed; most
are refused by kube-apiserver, a few are accepted and show which one wins.
"""

from __future__ import annotations

import copy
from typing import Any

Path = tuple[str | int, ...]
Setting = list[tuple[Path, Any]]

_POD = ("spec",)
_TEMPLATE = ("spec", "template", "spec")
_PROBE_BOTH = {"exec": {"command": ["true"]}, "httpGet": {"port": 80}}
_VOLUME_BOTH = {"name": "v", "emptyDir": {}, "hostPath": {"path": "/data"}}
_ENV_BOTH = {"name": "E", "value": "v", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}


def _pod_spec(prefix: Path) -> dict[str, Setting]:
    ports = [{"name": "p", "containerPort": 80}, {"name": "p", "containerPort": 81}]
    return {
        "probe-two-handlers": [(prefix + ("containers", 0, "livenessProbe"), _PROBE_BOTH)],
        "volume-two-sources": [(prefix + ("volumes",), [_VOLUME_BOTH])],
        "env-value-and-valueFrom": [(prefix + ("containers", 0, "env"), [_ENV_BOTH])],
        "hostNetwork-and-dns-none": [(prefix + ("hostNetwork",), True), (prefix + ("dnsPolicy",), "None")],
        "ports-duplicate-name": [(prefix + ("containers", 0, "ports"), ports)],
    }


def _strategy(key: str, kind: str, rolling: dict[str, Any]) -> Setting:
    return [(("spec", key), {"type": kind, "rollingUpdate": rolling})]


_CLIENT_BOTH = {"url": "https://hooks.example.com/x", "service": {"namespace": "default", "name": "s"}}
_WEBHOOK_BOTH: Setting = [(("webhooks", 0, "clientConfig"), _CLIENT_BOTH)]
_CONVERSION = {"strategy": "None", "webhook": {"conversionReviewVersions": ["v1"],
                                               "clientConfig": {"url": "https://hooks.example.com/convert"}}}
_BOTH_ZERO = {"maxSurge": 0, "maxUnavailable": 0}
_BACKEND_RESOURCE = {"apiGroup": "example.com", "kind": "Thing", "name": "t"}
_USER_AND_GROUP = {"kind": "User", "user": {"name": "u"}, "group": {"name": "g"}}
_PEERS = [{"from": [{"ipBlock": {"cidr": "10.0.0.0/8"}, "podSelector": {}}]}]

EXCLUSIVE: dict[str, dict[str, Setting]] = {
    "Pod": _pod_spec(_POD),
    "PodTemplate": _pod_spec(("template", "spec")),
    "ReplicationController": _pod_spec(_TEMPLATE),
    "Deployment": {
        **_pod_spec(_TEMPLATE),
        "recreate-with-rollingUpdate": _strategy("strategy", "Recreate", {"maxSurge": 1}),
        "rollingUpdate-both-zero": _strategy("strategy", "RollingUpdate", _BOTH_ZERO),
    },
    "DaemonSet": {
        **_pod_spec(_TEMPLATE),
        "ondelete-with-rollingUpdate": _strategy("updateStrategy", "OnDelete", {"maxUnavailable": 1}),
    },
    "ReplicaSet": _pod_spec(_TEMPLATE),
    "StatefulSet": {**_pod_spec(_TEMPLATE),
                    "ondelete-with-rollingUpdate": _strategy("updateStrategy", "OnDelete", {"partition": 1})},
    "Job": {**_pod_spec(_TEMPLATE),
            "indexed-without-completions": [(("spec", "completionMode"), "Indexed")],
            "backoffLimitPerIndex-nonindexed": [(("spec", "backoffLimitPerIndex"), 1)]},
    "PodDisruptionBudget": {"minAvailable-and-maxUnavailable": [(("spec", "maxUnavailable"), 1)]},
    "Service": {
        "externalName-with-clusterIP-type": [(("spec", "externalName"), "db.example.com")],
        "headless-with-nodePort": [(("spec", "clusterIP"), "None"), (("spec", "type"), "NodePort")],
        "nodePort-on-clusterIP": [(("spec", "ports"), [{"port": 80, "nodePort": 30080}])],
        "loadBalancerIP-on-clusterIP": [(("spec", "loadBalancerIP"), "192.168.20.1")],
    },
    "Ingress": {"service-and-resource": [(("spec", "defaultBackend", "resource"), _BACKEND_RESOURCE)]},
    "NetworkPolicy": {"peer-ipBlock-and-podSelector": [(("spec", "ingress"), _PEERS)]},
    "PersistentVolume": {"two-sources": [(("spec", "nfs"), {"server": "nfs.example.com", "path": "/x"})]},
    "ConfigMap": {"data-and-binaryData-same-key": [(("binaryData",), {"key": "dmFsdWU="})]},
    "Secret": {"data-and-stringData-same-key": [(("stringData",), {"key": "other"})]},
    "MutatingWebhookConfiguration": {"url-and-service": _WEBHOOK_BOTH},
    "ValidatingWebhookConfiguration": {"url-and-service": _WEBHOOK_BOTH},
    "CustomResourceDefinition": {"none-strategy-with-webhook": [(("spec", "conversion"), _CONVERSION)]},
    "FlowSchema": {"user-subject-with-group": [(("spec", "rules", 0, "subjects", 0), _USER_AND_GROUP)]},
    "PriorityLevelConfiguration": {"exempt-with-limited": [(("spec", "type"), "Exempt")]},
    "ResourceClaim": {"exactly-and-firstAvailable": [(("spec", "devices", "requests", 0, "firstAvailable"),
                                                      [{"name": "s", "deviceClassName": "dc"}])]},
    "HorizontalPodAutoscaler": {"min-above-max": [(("spec", "minReplicas"), 5)]},
    "APIService": {"local-with-caBundle": [(("spec", "caBundle"), "Y2E=")]},
    "LimitRange": {"min-above-max": [(("spec", "limits", 0, "min"), {"cpu": "2"})]},
}


def settings(kind: str) -> dict[str, Setting]:
    return EXCLUSIVE.get(kind, {})


def apply_setting(obj: dict[str, Any], setting: Setting) -> dict[str, Any]:
    """A copy of obj with each path set, dicts (and a list's first item) made on the way."""
    out = copy.deepcopy(obj)
    for path, value in setting:
        node: Any = out
        for seg, nxt in zip(path, path[1:]):
            if isinstance(seg, int):
                while len(node) <= seg:
                    node.append({})
                node = node[seg]
            else:
                if not isinstance(node.get(seg), (dict, list)):
                    node[seg] = [] if isinstance(nxt, int) else {}
                node = node[seg]
        last = path[-1]
        if isinstance(last, int):
            while len(node) <= last:
                node.append({})
        node[last] = copy.deepcopy(value)
    return out
