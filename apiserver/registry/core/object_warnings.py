"""What valid core objects are warned of (the strategies' WarningsOnCreate/Update): Services
(pkg/api/service/warnings.go), Nodes, Endpoints, PersistentVolumes and their claims
(pkg/api/persistentvolume(claim)/util.go) and ServiceAccounts. Pods' are `pod_warnings.py`'s.

Not ported: node selector term warnings of a volume's node affinity.
"""

from __future__ import annotations

from typing import Any

from apiserver.registry.core import ip_validation, resource_names

Obj = dict[str, Any]

_TOPOLOGY_HINTS = "service.kubernetes.io/topology-aware-hints"
_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
_VOLUME_ANNOTATIONS = (
    (_STORAGE_CLASS, 'deprecated since v1.8; use "storageClassName" attribute instead'),
    ("volume.beta.kubernetes.io/mount-options", 'deprecated since v1.31; use "mountOptions" attribute instead'),
)
_DEPRECATED_SOURCES = (
    ("cephfs", "cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("photonPersistentDisk", "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"),
    ("scaleIO", "scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("storageos", "storageOS", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
    ("rbd", "rbd", "deprecated in v1.28, non-functional in v1.31+"),
)
_MOUNTABLE_SECRETS = "kubernetes.io/enforce-mountable-secrets"


def _annotations(obj: Obj) -> Obj:
    return (obj.get("metadata") or {}).get("annotations") or {}


def service(obj: Obj, old: Obj | None = None) -> list[str]:
    """GetWarningsForService."""
    spec = obj.get("spec") or {}
    found: list[str] = []
    if _TOPOLOGY_HINTS in _annotations(obj):
        found.append(f"annotation {_TOPOLOGY_HINTS} is deprecated, please use service.kubernetes.io/topology-mode "
                     "instead")
    if spec.get("clusterIP") and spec["clusterIP"] != "None":
        for i, ip in enumerate(spec.get("clusterIPs") or []):
            found += ip_validation.ip_warnings(ip, f"spec.clusterIPs[{i}]")
    kind = spec.get("type") or ""
    headless = kind == "ClusterIP" and spec.get("clusterIP") == "None"
    external_ips = spec.get("externalIPs") or []
    if headless:
        if spec.get("loadBalancerIP"):
            found.append("spec.loadBalancerIP is ignored for headless services")
        if external_ips:
            found.append("spec.externalIPs is ignored for headless services")
        if spec.get("sessionAffinity") != "None":
            found.append("spec.SessionAffinity is ignored for headless services")
    for i, ip in enumerate(external_ips):
        found += ip_validation.ip_warnings(ip, f"spec.externalIPs[{i}]")
    if external_ips and not headless and kind != "ExternalName":
        found.append("spec.externalIPs is deprecated and may no longer be implemented in some clusters")
    if spec.get("loadBalancerIP"):
        found += ip_validation.ip_warnings(spec["loadBalancerIP"], "spec.loadBalancerIP")
    for i, cidr in enumerate(spec.get("loadBalancerSourceRanges") or []):
        found += ip_validation.cidr_warnings(cidr, f"spec.loadBalancerSourceRanges[{i}]")
    if kind == "ExternalName" and external_ips:
        found.append('spec.externalIPs is ignored when spec.type is "ExternalName"')
    if kind != "ExternalName" and spec.get("externalName"):
        found.append('spec.externalName is ignored when spec.type is not "ExternalName"')
    if spec.get("trafficDistribution") == "PreferClose":
        found.append('spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"')
    return found



def load_balancer_status(subresource: str, new: Obj, old: Obj) -> list[str]:
    """The Service and Ingress status strategies' WarningsOnUpdate: their load balancer's ingress IPs."""
    ingress = ((new.get("status") or {}).get("loadBalancer") or {}).get("ingress") or ()
    found: list[str] = []
    for i, point in enumerate(ingress):
        if isinstance(point, dict) and point.get("ip"):
            found += ip_validation.ip_warnings(point["ip"], f"status.loadBalancer.ingress[{i}]")
    return found


def node(obj: Obj, old: Obj | None = None) -> list[str]:
    """The node strategy's nodeWarnings."""
    spec = obj.get("spec") or {}
    found: list[str] = []
    if spec.get("configSource") is not None:
        found.append("spec.configSource: the feature is removed")
    if spec.get("externalID"):
        found.append("spec.externalID: this field is deprecated, and is unused by Kubernetes")
    for i, cidr in enumerate(spec.get("podCIDRs") or []):
        found += ip_validation.cidr_warnings(cidr, f"spec.podCIDRs[{i}]")
    return found


def endpoints(obj: Obj, old: Obj | None = None) -> list[str]:
    """The endpoints strategy's endpointsWarnings (skipped for the endpoints controller's own objects)."""
    labels = (obj.get("metadata") or {}).get("labels") or {}
    if labels.get("endpoints.kubernetes.io/managed-by") == "endpoint-controller":
        return []
    found: list[str] = []
    for i, subset in enumerate(obj.get("subsets") or []):
        for key in ("addresses", "notReadyAddresses"):
            for j, address in enumerate((subset or {}).get(key) or []):
                found += ip_validation.ip_warnings((address or {}).get("ip") or "", f"subsets[{i}].{key}[{j}].ip")
    return found


def persistent_volume(obj: Obj, old: Obj | None = None) -> list[str]:
    """GetWarningsForPersistentVolume."""
    spec, annotations = obj.get("spec") or {}, _annotations(obj)
    found = [f"metadata.annotations[{key}]: {message}" for key, message in _VOLUME_ANNOTATIONS if key in annotations]
    if spec.get("persistentVolumeReclaimPolicy") == "Recycle":
        found.append("spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the "
                     "recommended approach is to use dynamic provisioning.")
    return found + [f"spec.{shown}: {message}" for key, shown, message in _DEPRECATED_SOURCES
                    if spec.get(key) is not None]


def claim_spec(spec: Obj, path: str) -> list[str]:
    """GetWarningsForPersistentVolumeClaimSpec: storage is a whole number of bytes."""
    found = []
    for kind in ("requests", "limits"):
        value = resource_names.parsed(((spec.get("resources") or {}).get(kind) or {}).get("storage", "0"))
        if value is not None and value.milli_value() % 1000 != 0:
            found.append(f'{path}.resources.{kind}[storage]: fractional byte value "{value}" is invalid, '
                         "must be an integer")
    return found


def persistent_volume_claim(obj: Obj, old: Obj | None = None) -> list[str]:
    """GetWarningsForPersistentVolumeClaim."""
    deprecated = f'metadata.annotations[{_STORAGE_CLASS}]: deprecated since v1.8; use "storageClassName" attribute instead'
    found = [deprecated] if _STORAGE_CLASS in _annotations(obj) else []
    return found + claim_spec(obj.get("spec") or {}, "spec")


def service_account(obj: Obj, old: Obj | None = None) -> list[str]:
    """warnIfHasEnforceMountableSecretsAnnotation: only when the annotation is newly set."""
    if old is not None and _MOUNTABLE_SECRETS in _annotations(old):
        return []
    if _MOUNTABLE_SECRETS in _annotations(obj):
        return [(f"metadata.annotations[{_MOUNTABLE_SECRETS}]: deprecated in v1.32+; prefer separate namespaces to "
                 "isolate access to mounted secrets")]
    return []
