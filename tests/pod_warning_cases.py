"""Valid pods and pod templates that kube-apiserver warns of (pkg/api/pod/warnings.go
warningsForPodSpecAndMeta), created with dryRun=All; the answer kept is the status and the warning texts
in order. `tools/capture_pod_warnings.py` records the reference's answers into
tests/fixtures/pod_warnings.json; `test_pod_warnings.py` holds ours to them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from email.message import Message
from typing import Any

FIXTURE = "pod_warnings.json"
Exchange = Callable[[str, str, "bytes | None", str], tuple[int, bytes, Message]]
_TEXT = re.compile(r'299 - "((?:[^"\\]|\\.)*)"')
_PODS = "/api/v1/namespaces/default/pods"
_JOBS = "/apis/batch/v1/namespaces/default/jobs"


def _pod(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def _job(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"template": {"spec": {"restartPolicy": "Never", **spec}}}}


# Ports of all containers together: the same number and protocol twice (the same host binding, one without
# a host port, the same host port with and without a host IP), a host IP without a host port, a name twice.
_PORTS = [{"containerPort": 80}, {"containerPort": 80}, {"containerPort": 81, "hostIP": "1.2.3.4", "name": "web"},
          {"containerPort": 82, "hostPort": 8082}, {"containerPort": 82},
          {"containerPort": 83, "hostPort": 8083, "hostIP": "1.2.3.4"},
          {"containerPort": 83, "hostPort": 8083, "protocol": "UDP"},
          {"containerPort": 84, "hostPort": 8084, "hostIP": "1.2.3.4"}]
_OTHER_PORTS = [{"containerPort": 84, "hostPort": 8084}, {"containerPort": 80, "name": "web"},
                {"containerPort": 85, "hostPort": 8085}]

# name -> (collection, object); besides ports: node affinity terms of deprecated labels (and a preferred term of
# values no label holds), IPs not written canonically, an ephemeral volume's claim asking fractional bytes, volume
# items written to one path or over one another (a ClusterTrustBundle source, its gate off, is dropped: empty).
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "pod-ports-across-containers": (_PODS, _pod(
        "ports", initContainers=[{"name": "init", "image": "i", "ports": [
            {"containerPort": 85, "hostPort": 8086, "name": "web"}]}],
        containers=[{"name": "a", "image": "i", "ports": _PORTS}, {"name": "b", "image": "i", "ports": _OTHER_PORTS}])),
    "pod-node-affinity-terms-and-ips": (_PODS, _pod(
        "affinity", containers=[{"name": "c", "image": "i"}],
        affinity={"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
                {"key": "beta.kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]}]},
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {"matchExpressions": [
                {"key": "failure-domain.beta.kubernetes.io/zone", "operator": "In",
                 "values": ["ok", "bad value!", "x" * 64]}]}}]}},
        dnsPolicy="None", dnsConfig={"nameservers": ["2001:DB8::1", "10.0.0.10", "2001:db8:0:0::2"]},
        hostAliases=[{"ip": "2001:db8:0::5", "hostnames": ["h"]}, {"ip": "10.0.0.1", "hostnames": ["g"]}])),
    "pod-ephemeral-claim-fractional-storage": (_PODS, _pod(
        "claims", containers=[{"name": "c", "image": "i"}], volumes=[{"name": "scratch", "ephemeral": {
            "volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {
                "requests": {"storage": "1500m"}, "limits": {"storage": "2500m"}}}}}}])),
    "pod-overlapping-volume-paths": (_PODS, _pod(
        "paths", serviceAccountName="default", containers=[{"name": "c", "image": "i"}], volumes=[
            {"name": "cm", "configMap": {"name": "conf", "items": [
                {"key": "a", "path": "p"}, {"key": "b", "path": "p/q/"}, {"key": "c", "path": "p"},
                {"key": "d", "path": "pq"}]}},
            {"name": "sec", "secret": {"secretName": "s", "items": [{"key": "a", "path": "x/y"}, {"key": "b", "path": "x"}]}},
            {"name": "down", "downwardAPI": {"items": [
                {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}},
                {"path": "labels", "fieldRef": {"fieldPath": "metadata.annotations"}}]}},
            {"name": "proj", "projected": {"sources": [
                {"configMap": {"name": "conf", "items": [{"key": "a", "path": "token"}]}},
                {"secret": {"name": "s", "items": [{"key": "a", "path": "dir/file"}]}},
                {"downwardAPI": {"items": [{"path": "dir", "fieldRef": {"fieldPath": "metadata.name"}}]}},
                {"serviceAccountToken": {"path": "token"}},
                {"clusterTrustBundle": {"signerName": "example.com/signer", "path": "token/"}}]}}])),
    "job-template-duplicate-port": (_JOBS, _job("ports", containers=[
        {"name": "c", "image": "i", "ports": [{"containerPort": 1}, {"containerPort": 1}]}])),
}


def texts(headers: Message) -> list[str]:
    """The warnings' texts in order, across every Warning header line."""
    return [m.group(1) for line in headers.get_all("Warning") or [] for m in _TEXT.finditer(line)]


def run(send: Exchange) -> dict[str, dict[str, Any]]:
    answers = {}
    for name, (collection, obj) in CASES.items():
        status, _, headers = send("POST", collection + "?dryRun=All", json.dumps(obj).encode(), "application/json")
        answers[name] = {"status": status, "warnings": texts(headers)}
    return answers
