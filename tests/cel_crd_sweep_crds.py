"""The CRDs of the CRD-rule sweep (tests/cel_crd_sweep.py), written for these tests in the image of
Gateway API, cert-manager, cluster-api, Karpenter and Crossplane, and the CRDs kube-apiserver refuses.
"""

from __future__ import annotations

import copy
import json
from typing import Any

Obj = dict[str, Any]
NAMESPACE = "cel-sweep"


def string(max_length: int | None = 253, **more: Any) -> Obj:
    return {"type": "string", **({"maxLength": max_length} if max_length is not None else {}), **more}


def integer(**more: Any) -> Obj:
    return {"type": "integer", **more}


def obj(properties: Obj, *rules: Obj, **more: Any) -> Obj:
    schema: Obj = {"type": "object", "properties": properties, **more}
    if rules:
        schema["x-kubernetes-validations"] = list(rules)
    return schema


def array(items: Obj, max_items: int | None = 16, *rules: Obj, **more: Any) -> Obj:
    schema: Obj = {"type": "array", "items": items, **({"maxItems": max_items} if max_items is not None else {}),
                   **more}
    if rules:
        schema["x-kubernetes-validations"] = list(rules)
    return schema


def rule(text: str, message: str = "", **more: Any) -> Obj:
    return {"rule": text, **({"message": message} if message else {}), **more}


def crd(plural: str, kind: str, group: str, spec: Obj, *root_rules: Obj, status: Obj | None = None,
        scope: str = "Namespaced", scale: Obj | None = None) -> Obj:
    properties: Obj = {"spec": spec}
    if status is not None:
        properties["status"] = status
    root = obj(properties, *root_rules)
    subresources: Obj = {}
    if status is not None:
        subresources["status"] = {}
    if scale is not None:
        subresources["scale"] = scale
    version: Obj = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": root}}
    if subresources:
        version["subresources"] = subresources
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{group}"},
            "spec": {"group": group, "scope": scope,
                     "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
                     "versions": [version]}}


HOSTNAME = r"^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"

_PATH_MATCH = obj(
    {"type": string(32, enum=["Exact", "PathPrefix", "RegularExpression"], default="PathPrefix"),
     "value": string(1024, default="/")},
    rule("(self.type in ['Exact', 'PathPrefix']) ? self.value.startsWith('/') : true",
         "value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']"),
    rule("(self.type in ['Exact', 'PathPrefix']) ? !self.value.contains('//') : true",
         "must not contain '//' when type one of ['Exact', 'PathPrefix']"),
    rule("self.type != 'RegularExpression' || self.value.size() > 1",
         "a regular expression must be more than one character"),
    default={"type": "PathPrefix", "value": "/"})

_FILTER = obj(
    {"type": string(64, enum=["RequestHeaderModifier", "RequestRedirect", "URLRewrite"]),
     "requestRedirect": obj({"scheme": string(8, enum=["http", "https"]),
                             "statusCode": integer(default=302, enum=[301, 302]),
                             "port": integer(minimum=1, maximum=65535)}),
     "urlRewrite": obj({"hostname": string(253)})},
    rule("!(has(self.requestRedirect) && self.type != 'RequestRedirect')",
         "filter.requestRedirect must be nil if the filter.type is not RequestRedirect"),
    rule("!(!has(self.requestRedirect) && self.type == 'RequestRedirect')",
         "filter.requestRedirect must be specified for RequestRedirect filter.type"),
    required=["type"])

_BACKEND = obj(
    {"group": string(253, default=""), "kind": string(63, default="Service"), "name": string(253),
     "port": integer(minimum=1, maximum=65535), "weight": integer(default=1, minimum=0, maximum=1000000)},
    rule("(size(self.group) == 0 && self.kind == 'Service') ? has(self.port) : true",
         "Must have port for Service reference", reason="FieldValueRequired", fieldPath=".port"),
    required=["name"])

HTTPROUTES = crd("httproutes", "HTTPRoute", "gateway.sweep.example.io", obj({
    "parentRefs": array(obj({"group": string(253), "kind": string(63, default="Gateway"), "name": string(253),
                             "sectionName": string(253), "port": integer(minimum=1, maximum=65535)},
                            required=["name"]), 32,
                        rule("self.all(p1, self.exists_one(p2, p1.name == p2.name && "
                             "p1.?sectionName.orValue('') == p2.?sectionName.orValue('')))",
                             "sectionName must be unique when parentRefs includes 2 or more references to the "
                             "same parent")),
    "hostnames": array(string(253, **{"x-kubernetes-validations": [rule(
        f"self.matches(r'{HOSTNAME}')",
        "hostname must be a lowercase RFC 1123 subdomain, optionally with a leading wildcard")]}),
        16, **{"x-kubernetes-list-type": "set"}),
    "rules": array(obj({
        "matches": array(obj({
            "path": _PATH_MATCH,
            "headers": array(obj({"name": string(256), "type": string(32, enum=["Exact", "RegularExpression"],
                                                                        default="Exact"),
                                  "value": string(4096)}, required=["name", "value"]), 16,
                             **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]})}), 8,
            default=[{"path": {"type": "PathPrefix", "value": "/"}}]),
        "filters": array(_FILTER, 16,
                         rule("self.filter(f, f.type == 'URLRewrite').size() <= 1",
                              messageExpression="'at most one URLRewrite filter is allowed, found ' + "
                                                "string(self.filter(f, f.type == 'URLRewrite').size())")),
        "backendRefs": array(_BACKEND, 16, rule("self.size() == 0 || self.map(b, b.weight).sum() > 0",
                                                "at least one backendRef must have a positive weight")),
        "timeouts": obj({"request": string(32), "backendRequest": string(32)}),
    },
        rule("!(has(self.timeouts) && has(self.timeouts.request) && has(self.timeouts.backendRequest) && "
             "duration(self.timeouts.request) != duration('0s') && "
             "duration(self.timeouts.backendRequest) > duration(self.timeouts.request))",
             "backendRequest timeout cannot be longer than request timeout", fieldPath=".timeouts.backendRequest"),
        rule("!has(self.filters) || !self.filters.exists(f, f.type == 'RequestRedirect') || "
             "!has(self.backendRefs) || self.backendRefs.size() == 0",
             "RequestRedirect filter must not be used together with backendRefs")), 8),
}), rule("self.metadata.name.size() <= 40", messageExpression="'route name ' + self.metadata.name + ' is longer "
                                                              "than 40 characters'"))

_CONDITION = obj({"type": string(316), "status": string(8, enum=["True", "False", "Unknown"]),
                  "lastTransitionTime": string(None, format="date-time"), "reason": string(1024),
                  "message": string(32768)},
                 rule("self.status == oldSelf.status || self.lastTransitionTime != oldSelf.lastTransitionTime",
                      "lastTransitionTime must change when status changes", fieldPath=".lastTransitionTime"),
                 required=["type", "status", "lastTransitionTime"])

CERTIFICATES = crd("certificates", "Certificate", "certs.sweep.example.io", obj({
    "secretName": string(253),
    "duration": string(None, format="duration"),
    "renewBefore": string(None, format="duration"),
    "notBefore": string(None, format="date-time"),
    "notAfter": string(None, format="date-time"),
    "csr": string(4096, format="byte", **{"x-kubernetes-validations": [rule(
        "size(self) >= 4", messageExpression="'csr has only ' + string(size(self)) + ' bytes'")]}),
    "isCA": {"type": "boolean", "default": False},
    "usages": array(string(64, enum=["digital signature", "key encipherment", "server auth", "client auth",
                                     "cert sign"]), 8,
                    rule("sets.intersects(self, ['digital signature', 'key encipherment'])",
                         "usages must include digital signature or key encipherment"),
                    **{"x-kubernetes-list-type": "set"}),
    "ipAddresses": array(string(45, **{"x-kubernetes-validations": [
        rule("isIP(self) && ip.isCanonical(self)", messageExpression="self + ' is not a canonical IP address'"),
        rule("ip(self).family() == 4 || !isIP(self)", "only IPv4 addresses are supported")]}), 10),
    "uris": array(string(256, **{"x-kubernetes-validations": [
        rule("isURL(self) && url(self).getScheme() in ['spiffe', 'https']",
             messageExpression="'unsupported URI scheme in ' + self")]}), 10),
    "issuerRef": obj({"name": string(253), "kind": string(32, enum=["Issuer", "ClusterIssuer"], default="Issuer"),
                      "group": string(253, default="certs.sweep.example.io")},
                     rule("self.kind != 'ClusterIssuer' || self.group == 'certs.sweep.example.io'",
                          "a ClusterIssuer must be in group certs.sweep.example.io", fieldPath=".group"),
                     required=["name"]),
    "privateKey": obj({"algorithm": string(16, enum=["RSA", "ECDSA", "Ed25519"], default="RSA"),
                       "size": integer()},
                      rule("self.algorithm != 'RSA' || !has(self.size) || self.size in [2048, 3072, 4096]",
                           messageExpression="'RSA key size ' + string(self.size) + ' is not one of 2048, 3072, "
                                             "4096'"),
                      rule("self.algorithm != 'Ed25519' || !has(self.size)", "size must not be set for Ed25519",
                           fieldPath=".size", reason="FieldValueForbidden"),
                      rule("self.algorithm != 'ECDSA' || self.size in [256, 384]",
                           messageExpression="'ECDSA key size ' + string(self.size) + ' is not 256 or 384'")),
},
    rule("self.secretName == oldSelf.secretName",
         messageExpression="'secretName is immutable (was ' + oldSelf.secretName + ')'", fieldPath=".secretName"),
    rule("!has(self.renewBefore) || self.renewBefore < self.duration", "renewBefore must be shorter than duration"),
    rule("!has(self.duration) || self.duration >= duration('1h')",
         messageExpression="'duration must be at least 1h, got ' + string(self.duration)"),
    rule("!has(self.notAfter) || !has(self.notBefore) || self.notAfter > self.notBefore",
         "notAfter must be after notBefore"),
    rule("!has(self.notAfter) || !has(self.notBefore) || self.notAfter - self.notBefore <= duration('8760h')",
         messageExpression="'validity ' + string(self.notAfter - self.notBefore) + ' exceeds a year'"),
    rule("!self.isCA || !has(self.usages) || !('server auth' in self.usages)",
         "a CA certificate cannot be used for server auth", reason="FieldValueForbidden", fieldPath=".usages"),
    required=["secretName", "issuerRef"]),
    status=obj({
        "conditions": array(_CONDITION, 8, **{"x-kubernetes-list-type": "map",
                                              "x-kubernetes-list-map-keys": ["type"]}),
        "revision": integer(),
        "notAfter": string(None, format="date-time"),
    }, rule("!has(oldSelf.revision) || !has(self.revision) || self.revision >= oldSelf.revision",
            messageExpression="'revision must not decrease from ' + string(oldSelf.revision)")))

_MACHINE_DEPLOYMENT = obj({
    "name": string(63), "class": string(63), "replicas": integer(minimum=0),
    "maxSurge": {"x-kubernetes-int-or-string": True, "x-kubernetes-validations": [rule(
        "type(self) == int ? self >= 0 : self.matches('^[0-9]+%$')",
        messageExpression="'maxSurge must be a non-negative integer or a percentage, got ' + string(self)")]},
}, rule("self.class == oldSelf.class", "class is immutable"), required=["name", "class"])

CLUSTERS = crd("clusters", "Cluster", "infra.sweep.example.io", obj({
    "paused": {"type": "boolean"},
    "replicas": integer(format="int32"),
    "clusterNetwork": obj({
        "pods": obj({"cidrBlocks": array(string(43), 4)},
                    rule("self.cidrBlocks.all(c, isCIDR(c))", "cidrBlocks must be CIDRs"),
                    rule("self.cidrBlocks.all(c, !isCIDR(c) || cidr(c).prefixLength() <= 24)",
                         messageExpression="'pod CIDR blocks must be /24 or larger'")),
        "services": obj({"cidrBlocks": array(string(43), 4)}),
        "serviceDomain": string(253, default="cluster.local"),
    }, rule("!has(self.pods) || !has(self.services) || !self.pods.cidrBlocks.exists(p, "
            "self.services.cidrBlocks.exists(s, isCIDR(p) && isCIDR(s) && "
            "(cidr(p).containsCIDR(s) || cidr(s).containsCIDR(p))))", "pod and service CIDR blocks must not overlap")),
    "controlPlaneEndpoint": obj({"host": string(512), "port": integer(format="int32")},
                                rule("self.host == '' || (self.port > 0 && self.port < 65536)",
                                     "port must be within 1-65535 when host is set", fieldPath=".port"),
                                rule("oldSelf.host == '' || self == oldSelf",
                                     "controlPlaneEndpoint is immutable once set")),
    "topology": obj({
        "class": string(253),
        "version": string(64),
        "workers": obj({"machineDeployments": array(_MACHINE_DEPLOYMENT, 32, **{
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]})}),
    },
        rule("isSemver(self.version, true) && semver(self.version, true).major() == 1",
             messageExpression="'version ' + self.version + ' is not a Kubernetes 1.x version'"),
        rule("!isSemver(oldSelf.version, true) || !isSemver(self.version, true) || "
             "!semver(self.version, true).isLessThan(semver(oldSelf.version, true))",
             "version must not be downgraded", fieldPath=".version"),
        required=["class", "version"]),
    "infrastructureRef": {"type": "object", "x-kubernetes-embedded-resource": True,
                          "x-kubernetes-preserve-unknown-fields": True,
                          "x-kubernetes-validations": [
                              rule("self.kind.endsWith('Cluster')",
                                   messageExpression="'infrastructureRef kind ' + self.kind + ' must end with "
                                                     "Cluster'"),
                              rule("self.apiVersion.startsWith('infrastructure.')",
                                   "infrastructureRef must be an infrastructure provider's resource"),
                              rule("!has(self.metadata.name) || self.metadata.name.size() <= 63",
                                   "infrastructureRef name is too long")]},
    "labels": {"type": "object", "maxProperties": 32, "additionalProperties": string(63, **{
        "x-kubernetes-validations": [rule("self != ''", "label values must not be empty")]}),
        "x-kubernetes-validations": [rule("self.all(k, !k.startsWith('cluster.x-k8s.io/'))",
                                          "labels under cluster.x-k8s.io/ are reserved")]},
}, rule("!has(self.paused) || !self.paused || !has(self.topology)",
        "a cluster with a topology cannot be paused", reason="FieldValueForbidden", fieldPath=".paused")),
    rule("self.metadata.name.matches('^[a-z]')", "cluster names must start with a letter"),
    status=obj({
        "phase": string(32, enum=["Pending", "Provisioning", "Provisioned", "Deleting", "Failed"], **{
            "x-kubernetes-validations": [rule("oldSelf != 'Provisioned' || self in ['Provisioned', 'Deleting']",
                                              messageExpression="'phase cannot go from Provisioned to ' + self")]}),
        "failureDomains": {"type": "object", "maxProperties": 8, "additionalProperties": obj(
            {"controlPlane": {"type": "boolean"}, "attributes": {"type": "object", "maxProperties": 8,
                                                                 "additionalProperties": string(63)}})},
        "replicas": integer(format="int32"),
    }, rule("!has(self.failureDomains) || self.failureDomains.exists(k, self.failureDomains[k].?controlPlane"
            ".orValue(false))", "at least one failure domain must allow control plane machines")),
    scale={"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"})

_REQUIREMENT = obj({
    "key": string(316), "operator": string(16, enum=["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]),
    "values": array(string(63), 32), "minValues": integer(minimum=1, maximum=50),
},
    rule("self.operator == 'In' ? self.values.size() != 0 : true",
         "requirements with operator 'In' must have a value defined"),
    rule("(self.operator == 'Gt' || self.operator == 'Lt') ? (self.values.size() == 1 && int(self.values[0]) >= 0) "
         ": true", "requirements operator 'Gt' or 'Lt' must have a single positive integer value"),
    rule("has(self.minValues) ? self.operator == 'In' && self.values.size() >= self.minValues : true",
         messageExpression="'requirement ' + self.key + ' needs at least ' + string(self.minValues) + ' values'"),
    rule("!self.key.startsWith('kubernetes.io/') || self.key in ['kubernetes.io/arch', 'kubernetes.io/os']",
         messageExpression="'label domain \"kubernetes.io\" is restricted: ' + self.key", fieldPath=".key"),
    required=["key", "operator"])

_QUANTITY = {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}],
             "pattern": r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+"
                        r"(\.[0-9]*)?)|(\.[0-9]+))))?$"}

NODEPOOLS = crd("nodepools", "NodePool", "karpenter.sweep.example.io", obj({
    "weight": integer(minimum=1, maximum=100),
    "limits": {"type": "object", "maxProperties": 8, "additionalProperties": _QUANTITY, "x-kubernetes-validations": [
        rule("self.all(k, k in ['cpu', 'memory', 'nvidia.com/gpu', 'pods'])",
             "limits may only name cpu, memory, nvidia.com/gpu and pods"),
        rule("!has(self.cpu) || quantity(string(self.cpu)).isGreaterThan(quantity('0'))",
             messageExpression="'cpu limit must be positive, got ' + string(self.cpu)")]},
    "disruption": obj({
        "consolidationPolicy": string(32, enum=["WhenEmpty", "WhenEmptyOrUnderutilized"],
                                      default="WhenEmptyOrUnderutilized"),
        "consolidateAfter": string(32, default="0s"),
        "budgets": array(obj({"nodes": string(16, default="10%", pattern=r"^((100|[0-9]{1,2})%|[0-9]+)$"),
                              "schedule": string(64), "duration": string(32, pattern=r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))"
                                                                                     r"(0s)?)$"),
                              "reasons": array(string(32, enum=["Underutilized", "Empty", "Drifted"]), 3)},
                             rule("has(self.schedule) == has(self.duration)", "'schedule' must be set with 'duration'")),
                         50),
    },
        rule("self.consolidateAfter == 'Never' || duration(self.consolidateAfter) <= duration('720h')",
             "consolidateAfter must be at most 30 days"),
        rule("self.consolidationPolicy != 'WhenEmpty' || !has(self.budgets) || "
             "self.budgets.all(b, !has(b.reasons) || b.reasons.all(r, r != 'Underutilized'))",
             "budget reasons cannot include Underutilized when consolidationPolicy is WhenEmpty")),
    "template": obj({
        "metadata": obj({"labels": {"type": "object", "maxProperties": 100, "additionalProperties": string(63),
                                    "x-kubernetes-validations": [
                                        rule("self.all(x, x != 'karpenter.sh/nodepool')",
                                             'label "karpenter.sh/nodepool" is restricted'),
                                        rule("self.all(x, x.size() <= 316 && (!x.contains('/') || "
                                             "x.split('/').size() == 2))",
                                             messageExpression="'label keys may hold one slash: ' + self.filter(x, "
                                                               "x.contains('/') && x.split('/').size() != 2)"
                                                               ".join(', ')")]}}),
        "spec": obj({
            "requirements": array(_REQUIREMENT, 100),
            "expireAfter": string(32, default="720h"),
            "nodeClassRef": obj({"group": string(253), "kind": string(63), "name": string(253)},
                                rule("self.group == oldSelf.group && self.kind == oldSelf.kind",
                                     "nodeClassRef.group and nodeClassRef.kind are immutable"),
                                required=["group", "kind", "name"]),
            "taints": array(obj({"key": string(316), "value": string(63),
                                 "effect": string(16, enum=["NoSchedule", "PreferNoSchedule", "NoExecute"])},
                                required=["key", "effect"]), 16),
        }, required=["nodeClassRef"]),
    }),
}, required=["template"]), scope="Cluster")

_PARAMETERS = obj({"storageGB": integer(minimum=10), "region": string(32), "version": string(16)},
                  rule("!has(oldSelf.storageGB) || self.storageGB >= oldSelf.storageGB",
                       messageExpression="'storageGB cannot shrink from ' + string(oldSelf.storageGB) + ' to ' + "
                                         "string(self.storageGB)"),
                  rule("oldSelf.hasValue() ? (!has(oldSelf.value().region) || "
                       "self.?region == oldSelf.value().?region) : "
                       "(!has(self.region) || self.region.matches('^[a-z]+-[a-z]+-[0-9]$'))",
                       "region is immutable, and must look like us-east-1", optionalOldSelf=True,
                       fieldPath=".region"),
                  **{"x-kubernetes-preserve-unknown-fields": True})

XPOSTGRES = crd("xpostgresinstances", "XPostgresInstance", "db.sweep.example.io", obj({
    "parameters": _PARAMETERS,
    "compositionRef": obj({"name": string(253)}, rule("self.name == oldSelf.name", "compositionRef is immutable",
                                                      reason="FieldValueForbidden")),
    "compositionUpdatePolicy": string(16, enum=["Automatic", "Manual"], default="Automatic"),
    "deletionPolicy": string(16, enum=["Delete", "Orphan"], default="Delete"),
    "writeConnectionSecretToRef": obj({"name": string(253), "namespace": string(63)},
                                      rule("self.name.size() > 0", "the secret needs a name"),
                                      rule("!has(self.__namespace__) || self.__namespace__ != 'kube-system'",
                                           "connection secrets cannot be written to kube-system",
                                           fieldPath=".namespace"),
                                      nullable=True, required=["name"]),
    "description": string(200, nullable=True, **{"x-kubernetes-validations": [
        rule("self.size() >= 3", "a description must have at least 3 characters")]}),
    "resourceRefs": array(obj({"apiVersion": string(253), "kind": string(63), "name": string(253)}), 32,
                          rule("self.size() >= oldSelf.size()", "resourceRefs cannot be removed"),
                          **{"x-kubernetes-list-type": "atomic"}),
    "tags": {"type": "object", "maxProperties": 16, "additionalProperties": string(128),
             "x-kubernetes-map-type": "granular", "x-kubernetes-validations": [
                 rule("self.all(k, k.matches('^[a-z][a-z0-9-]*$'))", "tag keys must be lowercase"),
                 rule("!has(oldSelf.owner) || (has(self.owner) && self.owner == oldSelf.owner)",
                      "the owner tag cannot be changed or removed", reason="FieldValueForbidden")]},
},
    rule("self.deletionPolicy != 'Orphan' || has(self.writeConnectionSecretToRef)",
         "an orphaned instance must write its connection secret")),
    status=obj({"ready": {"type": "boolean"}, "endpoint": string(253, **{"x-kubernetes-validations": [
        rule("isURL(self) && url(self).getHostname() != ''",
             messageExpression="'endpoint ' + self + ' must be a URL with a host'")]})}))

# Formats and the CEL libraries on their own fields: timestamps, durations, dates, quantities, URLs,
# regular expressions, lists and the strings extension.
PROBES = crd("probes", "Probe", "lab.sweep.example.io", obj({
    "at": string(None, format="date-time", **{"x-kubernetes-validations": [
        rule("self.getFullYear() >= 2020", messageExpression="'year ' + string(self.getFullYear()) + ' is too early'"),
        rule("self < timestamp('2100-01-01T00:00:00Z')", "must be in this century")]}),
    "day": string(None, format="date", **{"x-kubernetes-validations": [
        rule("self.getDayOfWeek() != 0", "no Sundays")]}),
    "window": string(None, format="duration", **{"x-kubernetes-validations": [
        rule("self.getHours() < 24", messageExpression="'window ' + string(self) + ' is a day or longer'")]}),
    "memory": string(32, **{"x-kubernetes-validations": [
        rule("isQuantity(self) && quantity(self).isLessThan(quantity('64Gi'))",
             messageExpression="'memory ' + self + ' must be a quantity under 64Gi'"),
        rule("!isQuantity(self) || quantity(self).sign() >= 0", "memory must not be negative")]}),
    "endpoint": string(256, **{"x-kubernetes-validations": [
        rule("url(self).getPort() == '' || int(url(self).getPort()) >= 1024",
             messageExpression="'privileged port ' + url(self).getPort() + ' in ' + self")]}),
    "image": string(256, **{"x-kubernetes-validations": [
        rule("self.find('[:@][^/]*$') != ''", "images must carry a tag or a digest"),
        rule("self.findAll('/').size() <= 2", "at most two slashes in an image reference")]}),
    "ports": array(integer(), 16,
                   rule("self.isSorted()", "ports must be sorted"),
                   rule("self.size() == 0 || self.max() <= 65535",
                        messageExpression="'highest port ' + string(self.max()) + ' is out of range'"),
                   rule("self.indexOf(22) < 0", "port 22 is not allowed")),
    "names": array(string(63), 16,
                   rule("self.all(n, n.lowerAscii() == n)", "names must be lower case"),
                   rule("self.map(n, n.split('-')[0]).all(p, p != 'tmp')",
                        messageExpression="'temporary names: ' + self.filter(n, n.startsWith('tmp-')).join(',')")),
    "ratio": {"type": "number", "x-kubernetes-validations": [
        rule("self >= 0.0 && self <= 1.0", messageExpression="'ratio ' + string(self) + ' must be within [0, 1]'")]},
    "mode": string(16, **{"x-kubernetes-validations": [
        rule("self.upperAscii() in ['RO', 'RW']", messageExpression="'mode %s is not RO or RW'.format([self])")]}),
    "counter": integer(**{"x-kubernetes-validations": [
        rule("self >= oldSelf", messageExpression="'counter went back from ' + string(oldSelf) + ' to ' + "
                                                  "string(self)", reason="FieldValueInvalid")]}),
    "sizes": {"type": "object", "maxProperties": 8, "additionalProperties": integer(**{
        "x-kubernetes-validations": [rule("self % 2 == 0", "sizes must be even")]})},
    "blob": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    "labels": {"type": "object", "maxProperties": 8, "additionalProperties": string(63),
               "x-kubernetes-validations": [rule("'team' in self", "a team label is required",
                                                 reason="FieldValueRequired")]},
    "release": string(32, **{"x-kubernetes-validations": [
        rule("semver(self, true).major() >= 1", "releases start at 1.0.0")]}),
    "tags": array(string(16), 8, rule("self.all(t, self.exists_one(u, u == t))", "tags must be unique",
                                      reason="FieldValueDuplicate")),
    "quota": obj({"limit": integer(), "used": integer(), "unit": string(8), "note": string(64)},
                 rule("!has(self.used) || self.used <= self.limit", "quota exceeded",
                      messageExpression="self.unit + ' over quota'"),
                 rule("!has(self.used) || self.used >= 0", messageExpression="has(self.note) ? self.note : ''"),
                 rule("!has(self.limit) || self.limit < 1000", messageExpression="'limit\\nis too high'")),
}, rule("!has(self.blob) || !has(self.ratio) || self.ratio < 0.5", "a blob needs a ratio under 0.5"),
    rule("!has(self.sizes) || !('a' in self.sizes) || self.sizes['a'] < 100", "size a must be under 100",
         fieldPath=".sizes['a']")))


def _renamed(source: Obj, group: str) -> Obj:
    renamed = copy.deepcopy(source)
    renamed["spec"]["group"] = group
    renamed["metadata"]["name"] = f"{renamed['spec']['names']['plural']}.{group}"
    return renamed


def _tamed(source: Obj, replacements: dict[str, str | None]) -> Obj:
    """The CRD with the rules and messageExpressions the reference finds too costly replaced by cheaper
    ones (None: the messageExpression dropped for the rule's message)."""
    text = json.dumps(source)
    for old, new in replacements.items():
        quoted = json.dumps(old)
        if new is None:
            text = text.replace(f', "messageExpression": {quoted}', ', "message": "failed"')
        elif old.startswith('"'):
            text = text.replace(old, new)
        else:
            text = text.replace(quoted, json.dumps(new))
    return dict(json.loads(text))


_FIRST_DRAFTS = [HTTPROUTES, CERTIFICATES, CLUSTERS, NODEPOOLS, XPOSTGRES, PROBES]
# Runtime edges of CEL itself, each rule on a field of its own: errors (division by zero, overflow,
# indexes, conversions, empty lists, bad regular expressions), error absorption by && and ||, time
# zones, the strings and lists extensions, optional selection.
EDGES = crd("edges", "Edge", "edge.sweep.example.io", obj({
    "divisor": integer(**{"x-kubernetes-validations": [rule("100 / self > 1", "quotient must exceed 1")]}),
    "factor": integer(**{"x-kubernetes-validations": [
        rule("self * 4611686018427387904 != 0", "product must not be zero")]}),
    "ports": array(integer(), 8,
                   rule("self[2] > 0", "the third port must be positive"),
                   rule("self.min() > 0", "ports must be positive"),
                   rule("self.all(p, 10 / p > 0) || self.size() > 3", "ports must divide 10"),
                   rule("self.exists(p, p == 80) && self.all(p, 100 / p > 0)", "port 80 and no zero port")),
    "ratio": string(16, **{"x-kubernetes-validations": [
        rule("double(self) < 1.0", "ratio must be under one"),
        rule("uint(self) >= 0u || true", "ratio must convert")]}),
    "pattern": string(16, **{"x-kubernetes-validations": [rule("'abc'.matches(self)", "must match abc")]}),
    "at": string(None, format="date-time", **{"x-kubernetes-validations": [
        rule("self.getHours('America/New_York') < 20", "too late in New York"),
        rule("self.getDayOfMonth('+02:00') != 0", "first day of the month east of UTC"),
        rule("self + duration('24h') > timestamp('2026-01-02T00:00:00Z')", "must be after new year's day")]}),
    "word": string(16, **{"x-kubernetes-validations": [
        rule("self.charAt(0) != 'x'", "must not start with x"),
        rule("self.indexOf('z') != 2", "no z third"),
        rule("self.substring(1, 3) != 'bc'", "no bc second"),
        rule("self.lastIndexOf('q') < 5", "no late q")]}),
    "words": array(string(16), 8,
                   rule("self.join('-').size() < 20", "joined too long"),
                   rule("self.distinct().size() == self.size()", "words repeat"),
                   rule("self.sort() == self", "words must be sorted"),
                   rule("self.slice(0, 1) != ['stop']", "must not start with stop")),
    "nested": obj({"inner": obj({"value": string(16)})}, rule(
        "self.?inner.?value.orValue('none') != 'bad'", "inner value must not be bad"), rule(
        "!has(self.inner) || self.inner.value.size() > 0", "inner value required when inner is set")),
    "flags": {"type": "object", "maxProperties": 8, "additionalProperties": {"type": "boolean"},
              "x-kubernetes-validations": [rule("self.all(k, self[k] || k.startsWith('opt'))",
                                                "only optional flags may be false"),
                                           rule("self['required']", "the required flag must be set")]},
    "levels": {"type": "object", "maxProperties": 8, "additionalProperties": integer(**{
        "x-kubernetes-validations": [rule("self >= oldSelf", "levels must not go down")]})},
    # within the static budget, but a long list costs more than one call may spend
    "grid": array(integer(), 1000, rule("self.all(a, self.all(b, a <= b || a > b))", "the grid is inconsistent")),
}))

# An Argo Rollouts-like CRD: a list-type map keyed by two fields (one defaulted), a nullable field with
# a default, a messageExpression too long to show, and a root rule reading the status.
ROLLOUTS = crd("rollouts", "Rollout", "rollouts.sweep.example.io", obj({
    "replicas": integer(default=1, minimum=0),
    "strategy": obj({
        "canary": obj({"steps": array(obj({"setWeight": integer(), "pause": obj({"duration": string(16)})}), 20,
                                      rule("self.all(s, !has(s.setWeight) || (s.setWeight >= 0 && s.setWeight <= 100))",
                                           "setWeight must be between 0 and 100")),
                       "maxSurge": {"x-kubernetes-int-or-string": True, "maxLength": 8, "default": "25%"}}),
        "blueGreen": obj({"activeService": string(63), "previewService": string(63)},
                         rule("!has(self.previewService) || self.previewService != self.activeService",
                              "the preview service must differ from the active one", fieldPath=".previewService")),
    }, rule("has(self.canary) != has(self.blueGreen)", "exactly one of canary or blueGreen must be set")),
    "ports": array(obj({"name": string(15), "containerPort": integer(), "protocol": string(8, default="TCP")},
                       rule("self.name == oldSelf.name", "a port's name is immutable"),
                       required=["containerPort"]), 16,
                   **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["containerPort", "protocol"]}),
    "notes": string(64, nullable=True, default="none", **{"x-kubernetes-validations": [
        rule("self != ''", "notes must not be empty")]}),
    "banner": string(8000, **{"x-kubernetes-validations": [rule("self.size() < 10", messageExpression="self")]}),
}), rule("!has(self.status) || !has(self.status.phase) || self.status.phase != 'Degraded' || self.spec.replicas > 0",
         "a degraded rollout needs replicas", fieldPath=".spec.replicas"),
    status=obj({"phase": string(16, enum=["Progressing", "Healthy", "Degraded", "Paused"])}))

def _versioned(plural: str, kind: str, group: str, schemas: dict[str, Obj]) -> Obj:
    """A CRD served at several versions, each with a schema of its own (v1 stored)."""
    base = crd(plural, kind, group, obj({}))
    base["spec"]["versions"] = [{"name": name, "served": True, "storage": name == "v1",
                                 "schema": {"openAPIV3Schema": obj({"spec": spec})}}
                                for name, spec in schemas.items()]
    return base


# A cert-manager-like Issuer served at v1 and v1beta1, each version with rules of its own.
ISSUERS = _versioned("issuers", "Issuer", "issuers.sweep.example.io", {
    "v1": obj({"acme": obj({"server": string(256), "email": string(256)}),
               "ca": obj({"secretName": string(253)})},
              rule("has(self.acme) != has(self.ca)", "exactly one of acme or ca must be set"),
              rule("!has(self.acme) || self.acme.server.startsWith('https://')", "the ACME server must use https",
                   fieldPath=".acme.server")),
    "v1beta1": obj({"acme": obj({"server": string(256), "email": string(256)}),
                    "ca": obj({"secretName": string(253)})},
                   rule("!has(self.acme) || self.acme.email.contains('@')", "the ACME email must be an address",
                        fieldPath=".acme.email")),
})

CRDS = [
    _tamed(HTTPROUTES, {
        "self.all(p1, self.exists_one(p2, p1.name == p2.name && p1.?sectionName.orValue('') == "
        "p2.?sectionName.orValue('')))": "self.all(p1, self.exists_one(p2, p1.name == p2.name && "
                                          "(has(p1.sectionName) ? p1.sectionName : '') == "
                                          "(has(p2.sectionName) ? p2.sectionName : '')))",
        "'at most one URLRewrite filter is allowed, found ' + string(self.filter(f, f.type == 'URLRewrite').size())":
            "'at most one URLRewrite filter is allowed, found ' + (self.filter(f, f.type == 'URLRewrite').size() "
            "> 2 ? 'more than two' : 'two')"}),
    _tamed(CERTIFICATES, {
        "'csr has only ' + string(size(self)) + ' bytes'": "'csr has only ' + (size(self) == 0 ? 'no' : 'a few') "
                                                            "+ ' bytes'",
        "'RSA key size ' + string(self.size) + ' is not one of 2048, 3072, 4096'":
            "'RSA key size is not one of 2048, 3072, 4096' + (self.size < 2048 ? ': too small' : '')",
        "'ECDSA key size ' + string(self.size) + ' is not 256 or 384'": None,
        "'duration must be at least 1h, got ' + string(self.duration)":
            "'duration must be at least 1h, got ' + (self.duration < duration('1m') ? 'seconds' : 'minutes')",
        "'validity ' + string(self.notAfter - self.notBefore) + ' exceeds a year'": None,
        "'revision must not decrease from ' + string(oldSelf.revision)": "'revision must not decrease'"}),
    _tamed(CLUSTERS, {'"x-kubernetes-int-or-string": true, "x-kubernetes-validations"':
                      '"x-kubernetes-int-or-string": true, "maxLength": 8, "x-kubernetes-validations"'}),
    _tamed(NODEPOOLS, {
        "!has(self.cpu) || quantity(string(self.cpu)).isGreaterThan(quantity('0'))":
            "!has(self.cpu) || type(self.cpu) != int || self.cpu > 0",
        "'cpu limit must be positive, got ' + string(self.cpu)": "'cpu limit must be positive'",
        "'label keys may hold one slash: ' + self.filter(x, x.contains('/') && x.split('/').size() != 2).join(', ')":
            None,
        "'requirement ' + self.key + ' needs at least ' + string(self.minValues) + ' values'":
            "'requirement ' + self.key + ' needs at least minValues values'"}),
    _tamed(XPOSTGRES, {
        "'storageGB cannot shrink from ' + string(oldSelf.storageGB) + ' to ' + string(self.storageGB)":
            "'storageGB cannot shrink'",
        "oldSelf.hasValue() ? (!has(oldSelf.value().region) || self.?region == oldSelf.value().?region) : "
        "(!has(self.region) || self.region.matches('^[a-z]+-[a-z]+-[0-9]$'))":
            "oldSelf.hasValue() ? (!has(oldSelf.value().region) || (has(self.region) && "
            "self.region == oldSelf.value().region)) : (!has(self.region) || self.region.split('-').size() == 3)",
        "!has(oldSelf.owner) || (has(self.owner) && self.owner == oldSelf.owner)":
            "!('owner' in oldSelf) || ('owner' in self && self['owner'] == oldSelf['owner'])"}),
    _tamed(PROBES, {
        "'year ' + string(self.getFullYear()) + ' is too early'": None,
        "'counter went back from ' + string(oldSelf) + ' to ' + string(self)": "'counter went back'",
        "'privileged port ' + url(self).getPort() + ' in ' + self": "'privileged port in ' + self",
        "!isQuantity(self) || quantity(self).sign() >= 0": "!isQuantity(self) || !quantity(self).isLessThan("
                                                           "quantity('0'))",
        "'temporary names: ' + self.filter(n, n.startsWith('tmp-')).join(',')": None,
        "'highest port ' + string(self.max()) + ' is out of range'": None,
        "'ratio ' + string(self) + ' must be within [0, 1]'": None,
        "'window ' + string(self) + ' is a day or longer'": None}),
    EDGES,
    ROLLOUTS,
    ISSUERS,
]


def _refused(name: str, spec_schema: Obj, root_rules: tuple[Obj, ...] = ()) -> tuple[str, Obj]:
    return name, crd("refuseds", "Refused", f"{name}.refused.sweep.example.io", spec_schema, *root_rules)


_TEN_K = array(string(1000), 1000)

# Each a CRD kube-apiserver refuses for its rules: what it says, and where. The first drafts of the
# CRDs above, before their costliest rules were tamed, first.
BROKEN: list[tuple[str, Obj]] = [
    *[(f"draft {draft['metadata']['name']}", _renamed(draft, "drafts." + draft["spec"]["group"]))
      for draft in _FIRST_DRAFTS],
    _refused("undefined-field", obj({"size": integer()}, rule("self.replicas > 0"))),
    _refused("syntax", obj({"size": integer()}, rule("self.size =="))),
    _refused("message-expression-syntax", obj({"size": integer()}, rule("self.size > 0",
                                                                         messageExpression="'size ' +"))),
    _refused("message-expression-dyn", obj({"surge": {"x-kubernetes-int-or-string": True}},
                                           rule("true", messageExpression="self.surge"))),
    _refused("reason-unknown", obj({"size": integer()}, rule("self.size > 0", reason="FieldValueTooLong"))),
    _refused("field-path-unknown", obj({"size": integer()}, rule("self.size > 0", fieldPath=".count"))),
    _refused("field-path-no-dot", obj({"size": integer()}, rule("self.size > 0", fieldPath="size"))),
    _refused("field-path-index", obj({"items": array(string(8), 4)}, rule("true", fieldPath=".items[0]"))),
    _refused("field-path-into-map", obj({"labels": {"type": "object", "additionalProperties": string(8)}},
                                        rule("true", fieldPath=".labels['a.b'].x"))),
    _refused("message-line-break", obj({"size": integer()}, rule("self.size > 0", "too\nsmall"))),
    _refused("message-blank", obj({"size": integer()}, rule("self.size > 0", "   "))),
    _refused("rule-line-break", obj({"size": integer()}, rule("self.size > 0 &&\nself.size < 10"))),
    _refused("rule-empty", obj({"size": integer()}, rule(""))),
    _refused("old-self-in-set", obj({"items": array(string(8, **{"x-kubernetes-validations": [
        rule("self == oldSelf")]}), 4, **{"x-kubernetes-list-type": "set"})})),
    _refused("old-self-in-atomic-map", obj({"labels": {"type": "object", "x-kubernetes-map-type": "atomic",
                                                       "additionalProperties": string(8, **{
                                                           "x-kubernetes-validations": [rule("self == oldSelf")]})}})),
    _refused("optional-old-self-false", obj({"size": integer()}, rule("self.size > 0", optionalOldSelf=False))),
    _refused("double-equals-int", obj({"ratio": {"type": "number"}}, rule("self.ratio == 1"))),
    _refused("has-on-scalar", obj({"size": integer()}, rule("has(self.size.value)"))),
    _refused("embedded-labels", obj({"ref": {"type": "object", "x-kubernetes-embedded-resource": True,
                                             "x-kubernetes-preserve-unknown-fields": True,
                                             "x-kubernetes-validations": [rule("'a' in self.metadata.labels")]}})),
    _refused("root-metadata-labels", obj({"size": integer()}), (rule("has(self.metadata.labels)"),)),
    _refused("preserved-unknown-field", obj({"knobs": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                                                       "x-kubernetes-validations": [rule("self.tier == 'gold'")]}})),
    _refused("undeclared-function", obj({"version": string(16)}, rule("semverish(self.version)"))),
    _refused("wrong-argument-type", obj({"size": integer()}, rule("isQuantity(self.size)"))),
    *[_refused(f"int-or-string-{name}", obj({"surge": array({"x-kubernetes-int-or-string": True,
                                                          "x-kubernetes-validations": [rule(text)]}, 32)}))
      for name, text in (("matches", "type(self) == int ? self >= 0 : self.matches('^[0-9]+%$')"),
                         ("ends-with", "type(self) == int ? self >= 0 : string(self).endsWith('%')"),
                         ("in-list", "type(self) == int ? self >= 0 : self in ['0%', '10%', '25%', '50%']"))],
    _refused("optional-equality", obj({"refs": array(obj({"name": string(253), "section": string(253)}), 32,
                                                      rule("self.all(a, self.exists_one(b, a.?section == b.?section))"))})),
    _refused("string-of-int", obj({"size": integer()}, rule("self.size > 0",
                                                           messageExpression="'size ' + string(self.size)"))),
    _refused("cost-factor-small", obj({"hosts": array(string(100), 300, rule(
        "self.all(a, self.all(b, a == b || !a.startsWith(b)))"))})),
    _refused("cost-factor-large", obj({"hosts": _TEN_K}, rule("self.hosts.all(a, self.hosts.exists(b, a < b))"))),
    _refused("cost-message-expression", obj({"names": array(string(None), None)}, rule(
        "true", messageExpression="self.names.map(n, n + n).join(', ')"))),
    _refused("rule-on-metadata", {"type": "object", "properties": {"name": string(8)}},
             (rule("self.metadata.name.size() < 10"),)),
    _refused("field-path-duplicate-reason", obj({"names": array(string(8), 4)},
                                                rule("true", reason="FieldValueDuplicate", fieldPath=".names[0]"))),
    _refused("message-expression-bool", obj({"size": integer()}, rule("true", messageExpression="self.size > 1"))),
    _refused("optional-old-self-wrong-default", obj({"size": integer(**{"x-kubernetes-validations": [
        rule("oldSelf.orValue('none') == self", optionalOldSelf=True)]})})),
    _refused("old-self-in-list-items", obj({"ports": array(obj({"port": integer()}, rule(
        "self.port == oldSelf.port")), 4, **{"x-kubernetes-list-type": "atomic"})})),
    _refused("embedded-kind-size", obj({"template": {"type": "object", "x-kubernetes-embedded-resource": True,
                                                     "x-kubernetes-preserve-unknown-fields": True,
                                                     "x-kubernetes-validations": [rule(
                                                         "self.kind.size() < 10 && self.metadata.generateName == ''")]}})),
    _refused("string-reverse", obj({"word": string(16)}, rule("self.word.reverse() != self.word"))),
    _refused("lists-range-index", obj({"words": array(string(16), 8, rule(
        "lists.range(self.size()).all(i, self[i].size() > i)"))})),
    ("versions-differ", _versioned("refuseds", "Refused", "versions-differ.refused.sweep.example.io", {
        "v1": obj({"size": integer()}, rule("self.size > 'a'")),
        "v2": obj({"size": integer()}, rule("self.size", reason="FieldValueUnknown"))})),
    _refused("message-and-expression", obj({"size": integer()}, rule("self.size > 0", "plain message",
                                                                      messageExpression="'size ' + 'too small'"))),
    _refused("message-expression-blank", obj({"size": integer()}, rule("self.size > 0", messageExpression="  "))),
    _refused("message-expression-undefined", obj({"size": integer()}, rule(
        "self.size > 0", messageExpression="'size ' + self.count"))),
    _refused("rule-whitespace", obj({"size": integer()}, rule("   "))),
    _refused("field-path-blank", obj({"size": integer()}, rule("self.size > 0", fieldPath="  "))),
    _refused("field-path-line-break", obj({"size": integer()}, rule("self.size > 0", fieldPath=".size\n"))),
    _refused("field-path-quoted-key", obj({"labels": {"type": "object", "additionalProperties": string(8)}},
                                          rule("true", fieldPath=".labels['app.kubernetes.io/name']"))),
    _refused("untyped-preserved", obj({"blob": {"x-kubernetes-preserve-unknown-fields": True,
                                                "x-kubernetes-validations": [rule("self.size() > 0")]}})),
    _refused("int-or-string-ops", obj({"port": {"x-kubernetes-int-or-string": True, "maxLength": 8,
                                                "x-kubernetes-validations": [rule("self > 0 || self.startsWith('p')")]}})),
    _refused("escaped-names", obj({"x-name": string(8), "namespace": string(8), "a.b": string(8)},
                                  rule("self.x__dash__name == self.__namespace__ && self.a__dot__b != ''"))),
    _refused("unescaped-reserved", obj({"namespace": string(8)}, rule("self.namespace != ''"))),
    _refused("timestamp-duration-types", obj({"at": string(None, format="date-time"), "every": string(
        None, format="duration")}, rule("self.at + self.every > self.at && self.at < '2026-01-01'"))),
    _refused("bytes-size", obj({"blob": string(16, format="byte")}, rule("size(self.blob) > 0 && self.blob != ''"))),
    _refused("list-of-lists", obj({"matrix": array(array(integer(), 4), 4)},
                                  rule("self.matrix.all(row, row.all(x, x >= 0))"),
                                  rule("self.matrix[0].size() == 'two'"))),
    _refused("map-of-objects", obj({"pools": {"type": "object", "maxProperties": 4, "additionalProperties": obj(
        {"size": integer()})}}, rule("self.pools.all(k, self.pools[k].size > 0 && self.pools[k].nope)"))),
    _refused("several-levels", obj({
        "size": integer(**{"x-kubernetes-validations": [rule("self.nope")]}),
        "items": array(obj({"name": string(8)}, rule("self.name == oldSelf.name"), rule("self.name > 2")), 4),
    }, rule("self.size", reason="Bogus"))),
]
