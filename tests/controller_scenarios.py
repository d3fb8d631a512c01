"""Scenarios for the volume, CSR, IPAM and autoscaler controllers, run the same way against kube-apiserver
with kube-controller-manager (tools/capture_controller_answers.py records its answers in
tests/data/controller_answers.json) and against this server (tests/test_controller_answers.py compares).

Each scenario drives a cluster with kubectl and returns what it saw, with what differs between any two
runs (uids, times, versions, generated names, keys) left out.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import subprocess
import time
from typing import Any, Callable

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

Kubectl = Callable[..., subprocess.CompletedProcess[str]]
Obj = dict[str, Any]


def _json(kubectl: Kubectl, *args: str) -> Any:
    found = kubectl(*args, "-o", "json", check=False)
    return json.loads(found.stdout) if found.returncode == 0 else None


def _wait(what: str, probe: Callable[[], Any], seconds: float = 60.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _apply(kubectl: Kubectl, *objects: Obj) -> None:
    kubectl("apply", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)}))


def _events(kubectl: Kubectl, name: str) -> list[list[str]]:
    """[type, reason, message] of the events about an object, without repeats, sorted."""
    listed = _json(kubectl, "get", "events", "-A", "--field-selector", f"involvedObject.name={name}")
    seen = {(e.get("type", ""), e.get("reason", ""), e.get("message", "")) for e in (listed or {}).get("items", ())}
    return [list(event) for event in sorted(seen)]


def _claim(name: str, size: str, storage_class: str) -> Obj:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": storage_class,
                     "resources": {"requests": {"storage": size}}}}


def _annotations(obj: Obj) -> Obj:
    annotations = dict(obj["metadata"].get("annotations", {}))
    annotations.pop("kubectl.kubernetes.io/last-applied-configuration", None)
    return annotations


def _shape_volume(pv: Obj) -> Obj:
    status = pv.get("status") or {}
    return {"annotations": _annotations(pv), "finalizers": pv["metadata"].get("finalizers"),
            "claimRef": sorted((pv["spec"].get("claimRef") or {}).keys()),
            "status": {"phase": status.get("phase"), "fields": sorted(status)}}


def _shape_claim(pvc: Obj) -> Obj:
    return {"annotations": _annotations(pvc), "finalizers": pvc["metadata"].get("finalizers"),
            "volumeName": pvc["spec"].get("volumeName"), "status": pvc.get("status")}


def volumes(kubectl: Kubectl) -> Obj:
    """A static volume bound to a claim, waiting claims' events, and deletes held by the protection controllers."""
    _apply(kubectl, {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "scenario-static"},
                     "spec": {"capacity": {"storage": "5Gi"}, "accessModes": ["ReadWriteOnce"],
                              "storageClassName": "scenario-manual", "persistentVolumeReclaimPolicy": "Retain",
                              "hostPath": {"path": "/srv/scenario"}}},
           _claim("scenario-claim", "1Gi", "scenario-manual"))
    claim = _wait("the claim bound", lambda: (c := _json(kubectl, "get", "pvc", "scenario-claim"))
                  and c.get("status", {}).get("phase") == "Bound" and c)
    volume = _wait("the volume bound", lambda: (v := _json(kubectl, "get", "pv", "scenario-static"))
                   and v.get("status", {}).get("phase") == "Bound" and v)
    _apply(kubectl,
           {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "scenario-later"},
            "provisioner": "example.com/nothing", "volumeBindingMode": "WaitForFirstConsumer"},
           {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "scenario-external"},
            "provisioner": "example.com/nothing"},
           _claim("scenario-huge", "50Gi", "scenario-manual"), _claim("scenario-waits", "1Gi", "scenario-later"),
           _claim("scenario-provisioned", "1Gi", "scenario-external"))
    waiting = {}
    for name in ("scenario-huge", "scenario-waits", "scenario-provisioned"):
        waiting[name] = _wait(f"{name}'s event", lambda name=name: _events(kubectl, name))
    provisioned = _wait("the provisioner named", lambda: (c := _json(kubectl, "get", "pvc", "scenario-provisioned"))
                        and c["metadata"].get("annotations", {}).get("volume.kubernetes.io/storage-provisioner") and c)

    _apply(kubectl, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "scenario-node"}},
           {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "scenario-user"},
            "spec": {"nodeName": "scenario-node", "containers": [{"name": "app", "image": "nginx"}],
                     "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "scenario-claim"}}]}})
    kubectl("delete", "pvc", "scenario-claim", "--wait=false")
    kubectl("delete", "pv", "scenario-static", "--wait=false")
    time.sleep(3)  # long enough for a controller to have let the deletes through, if it were going to
    held = {"claim": (_json(kubectl, "get", "pvc", "scenario-claim") or {}).get("metadata", {}).get("finalizers"),
            "volume": (_json(kubectl, "get", "pv", "scenario-static") or {}).get("metadata", {}).get("finalizers")}
    kubectl("delete", "pod", "scenario-user", "--grace-period=0", "--force")
    _wait("the claim gone", lambda: _json(kubectl, "get", "pvc", "scenario-claim") is None)
    _wait("the volume gone", lambda: _json(kubectl, "get", "pv", "scenario-static") is None)
    return {"bound_claim": _shape_claim(claim), "bound_volume": _shape_volume(volume),
            "bound_claim_events": _events(kubectl, "scenario-claim"), "waiting_events": waiting,
            "provisioned_claim": _shape_claim(provisioned), "held_by": held}


def _certificate_facts(pem: bytes) -> Obj:
    certificate = x509.load_pem_x509_certificate(pem)
    extensions = {}
    for extension in certificate.extensions:
        value = extension.value
        if isinstance(value, x509.KeyUsage):
            shown: Any = sorted(k for k in ("digital_signature", "content_commitment", "key_encipherment",
                                            "data_encipherment", "key_agreement", "key_cert_sign", "crl_sign")
                                if getattr(value, k))
        elif isinstance(value, x509.ExtendedKeyUsage):
            shown = [oid.dotted_string for oid in value]
        elif isinstance(value, x509.BasicConstraints):
            shown = [value.ca, value.path_length]
        elif isinstance(value, x509.SubjectAlternativeName):
            shown = [str(n.value) for n in value]
        else:
            shown = True
        extensions[extension.oid.dotted_string] = [extension.critical, shown]
    return {"subject": certificate.subject.rfc4514_string(),
            "lifetime_seconds": int((certificate.not_valid_after_utc - certificate.not_valid_before_utc)
                                    .total_seconds()),
            "extensions": extensions, "version": certificate.version.name}


def _request(common_name: str, organizations: tuple[str, ...], dns: tuple[str, ...] = ()) -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in organizations]
    subject.append(x509.NameAttribute(NameOID.COMMON_NAME, common_name))
    builder = x509.CertificateSigningRequestBuilder().subject_name(x509.Name(subject))
    if dns:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(d) for d in dns]), critical=False)
    return base64.b64encode(builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)).decode()


def certificates(kubectl: Kubectl) -> Obj:
    """Signed certificates of the three built-in signers, and a kubelet CSR the signer refuses."""
    requests = {
        "scenario-client": ("kubernetes.io/kube-apiserver-client", _request("jane", ("dev",)),
                            ["digital signature", "key encipherment", "client auth"], 3600),
        "scenario-serving": ("kubernetes.io/kubelet-serving", _request("system:node:n1", ("system:nodes",), ("n1",)),
                             ["digital signature", "server auth"], None),
        "scenario-refused": ("kubernetes.io/kube-apiserver-client-kubelet", _request("system:node:n1", ("wheel",)),
                             ["digital signature", "client auth"], None)}
    for name, (signer, encoded, usages, expiration) in requests.items():
        spec: Obj = {"request": encoded, "signerName": signer, "usages": usages}
        if expiration is not None:
            spec["expirationSeconds"] = expiration
        kubectl("create", "-f", "-", stdin=json.dumps({"apiVersion": "certificates.k8s.io/v1",
                                                       "kind": "CertificateSigningRequest",
                                                       "metadata": {"name": name}, "spec": spec}))
        kubectl("certificate", "approve", name)
    found = {}
    for name in ("scenario-client", "scenario-serving"):
        encoded = _wait(f"{name} signed", lambda name=name: _json(kubectl, "get", "csr", name)["status"].get(
            "certificate"))
        found[name] = _certificate_facts(base64.b64decode(encoded))
    refused = _wait("the refusal", lambda: next((c for c in _json(kubectl, "get", "csr", "scenario-refused")["status"]
                                                 .get("conditions", ()) if c["type"] == "Failed"), None))
    found["scenario-refused"] = {k: refused[k] for k in ("type", "status", "reason", "message")}
    return found


def nodes_and_autoscalers(kubectl: Kubectl) -> Obj:
    """A new Node's podCIDR from the cluster CIDR, and an HPA whose target does not exist."""
    _apply(kubectl, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "scenario-cidr"}},
           {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "scenario-hpa"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "scenario-missing"},
                     "maxReplicas": 3}})
    node = _wait("a podCIDR", lambda: (n := _json(kubectl, "get", "node", "scenario-cidr"))
                 and n["spec"].get("podCIDR") and n)
    able = _wait("the HPA's condition", lambda: next(
        (c for c in (_json(kubectl, "get", "hpa.v2.autoscaling", "scenario-hpa") or {}).get("status", {})
         .get("conditions", ()) if c["type"] == "AbleToScale"), None), seconds=60)
    cidr = ipaddress.ip_network(node["spec"]["podCIDR"])
    # Which block it gets depends on the nodes before it; the block's size and range do not.
    return {"podCIDR": {"prefix": cidr.prefixlen, "in_cluster_cidr": cidr.subnet_of(ipaddress.ip_network("10.244.0.0/16")),
                        "podCIDRs": node["spec"].get("podCIDRs") == [str(cidr)]},
            "hpa_condition": {k: able[k] for k in ("type", "status", "reason", "message")},
            "hpa_events": _wait("the HPA's events", lambda: _events(kubectl, "scenario-hpa"))}


SCENARIOS: dict[str, Callable[[Kubectl], Obj]] = {
    "volumes": volumes, "certificates": certificates, "nodes_and_autoscalers": nodes_and_autoscalers}
