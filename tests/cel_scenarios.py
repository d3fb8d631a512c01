"""The steps the CRD-rule tests take, shared by the test and the script that recorded the reference's answers.

Each step is a kubectl invocation (with a manifest on stdin) and its answer is the exit code and the
error lines kubectl prints. tools/capture_cel_fixtures.py runs these steps against kube-apiserver 1.36.2
(/work/shared/reference/start.sh) and writes tests/fixtures/cel_crd_rules.json; tests/test_cel_crd_rules.py
runs them against ours and compares.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

MANIFESTS = Path(__file__).parent / "cel_manifests"
FIXTURE = Path(__file__).parent / "fixtures" / "cel_crd_rules.json"
CRDS = ("gateways.yaml", "certificates.yaml", "machinedeployments.yaml")


def _obj(kind: str, group: str, name: str, spec: dict[str, Any], status: dict[str, Any] | None = None) -> str:
    body: dict[str, Any] = {"apiVersion": f"{group}/v1", "kind": kind, "metadata": {"name": name, "namespace": "default"},
                            "spec": spec}
    if status is not None:
        body["status"] = status
    return json.dumps(body)


GW, PKI, CL = "net.example.io", "pki.example.io", "cluster.example.io"
LISTENER = {"name": "web", "port": 80, "protocol": "HTTP", "hostname": "a.example.com"}
TCP = {"name": "db", "port": 5432, "protocol": "TCP"}

# (step name, kubectl verb and flags, manifest on stdin)
STEPS: list[tuple[str, list[str], str]] = [
    ("gateway-good", ["create", "-f", "-"], _obj("Gateway", GW, "gw", {"gatewayClassName": "eg", "listeners": [LISTENER, TCP]})),
    ("gateway-bad-create", ["create", "-f", "-"], _obj("Gateway", GW, "gw-bad", {"gatewayClassName": "eg", "listeners": [
        {"name": "a", "port": 0, "protocol": "HTTPS"}, {"name": "b", "port": 0, "protocol": "HTTPS"},
        {"name": "c", "port": 9000, "protocol": "TCP", "hostname": "x.example.com"}]})),
    ("gateway-transition", ["replace", "-f", "-"], _obj("Gateway", GW, "gw", {"gatewayClassName": "other", "listeners": [
        LISTENER, {**TCP, "port": 5433}]})),
    ("gateway-unchanged-ok", ["replace", "-f", "-"], _obj("Gateway", GW, "gw", {"gatewayClassName": "eg", "listeners": [
        LISTENER, TCP, {"name": "alt", "port": 8080, "protocol": "HTTP"}]})),
    ("gateway-status-bad", ["replace", "--subresource=status", "-f", "-"], _obj(
        "Gateway", GW, "gw", {"gatewayClassName": "eg", "listeners": [LISTENER, TCP]},
        {"addresses": [{"value": "10.0.0.1"}, {"value": "Not A Host!"}]})),
    ("certificate-good", ["create", "-f", "-"], _obj("Certificate", PKI, "cert-web", {
        "secretName": "web-tls", "duration": "2160h", "renewBefore": "360h", "issuerURL": "https://ca.example.com/acme",
        "dnsNames": ["a.example.com", "b.example.com"]})),
    ("certificate-bad-create", ["create", "-f", "-"], _obj("Certificate", PKI, "web", {
        "secretName": "web-tls", "duration": "1h", "renewBefore": "2h", "issuerURL": "http://ca.example.com",
        "keySize": "1Ki", "revoked": True, "dnsNames": ["a.example.com", "a.example.com"]})),
    ("certificate-immutable", ["replace", "-f", "-"], _obj("Certificate", PKI, "cert-web", {
        "secretName": "other-tls", "duration": "2160h", "revoked": True})),
    ("certificate-bad-quantity", ["create", "-f", "-"], _obj("Certificate", PKI, "cert-q", {
        "secretName": "q", "duration": "1h", "keySize": "lots"})),
    ("machinedeployment-good", ["create", "-f", "-"], _obj("MachineDeployment", CL, "md", {
        "clusterName": "prod", "replicas": 3, "minReplicas": 1, "maxReplicas": 5, "version": "v1.36.2", "cpuRatio": 0.5,
        "podCIDR": "10.244.0.0/16", "labels": {"tier": "workers"}})),
    ("machinedeployment-bad-create", ["create", "-f", "-"], _obj("MachineDeployment", CL, "md-bad", {
        "clusterName": "prod", "replicas": 9, "minReplicas": 6, "maxReplicas": 5, "version": "1.36", "cpuRatio": 2,
        "podCIDR": "10.244.0.0/28", "labels": {"tier": ""}})),
    ("machinedeployment-cluster-immutable", ["replace", "-f", "-"], _obj("MachineDeployment", CL, "md", {
        "clusterName": "staging", "replicas": 3, "version": "v1.36.2"})),
    ("machinedeployment-status-bad", ["replace", "--subresource=status", "-f", "-"], _obj(
        "MachineDeployment", CL, "md", {"clusterName": "prod"}, {"readyReplicas": -1})),
]


def kubectl(kubeconfig: str, args: list[str], stdin: str) -> tuple[int, str]:
    result = subprocess.run(["kubectl", "--kubeconfig", kubeconfig, *args], input=stdin, capture_output=True,
                            text=True, timeout=60, check=False)
    return result.returncode, result.stderr


def error_lines(stderr: str) -> list[str]:
    """kubectl's error as a sorted list of lines: the order of causes follows Go's map order upstream."""
    lines = []
    for line in stderr.strip().splitlines():
        line = line.removeprefix("* ").strip()
        head, invalid, cause = line.partition(" is invalid: ")
        lines += [head + " is invalid:", cause] if invalid and cause else [line] if line else []
    return sorted(lines)


def apply_crds(kubeconfig: str) -> list[tuple[str, int, list[str]]]:
    answers = []
    for name in (*CRDS, "broken.yaml", "costly.yaml"):
        code, stderr = kubectl(kubeconfig, ["create", "-f", str(MANIFESTS / name)], "")
        answers.append((name, code, error_lines(stderr)))
    return answers


def run_steps(kubeconfig: str) -> list[tuple[str, int, list[str]]]:
    return [(name, *_answer(kubectl(kubeconfig, args, stdin))) for name, args, stdin in STEPS]


def _answer(result: tuple[int, str]) -> tuple[int, list[str]]:
    return result[0], error_lines(result[1])


POLICIES = MANIFESTS / "policies.yaml"
POLICY_FIXTURE = Path(__file__).parent / "fixtures" / "cel_policies.json"
_POD = json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "floating", "namespace": "default"},
                   "spec": {"containers": [{"name": "c", "image": "busybox:latest"}]}})
_BROKEN_POLICY = json.dumps({
    "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "broken"},
    "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                                                     "resources": ["pods"]}]},
             "validations": [{"expression": "object.spec.replicas <"}, {"expression": "'a string'"}]}})


def _deployment(name: str, namespace: str, replicas: int) -> str:
    labels = {"app": name}
    return json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": namespace},
                       "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                                "template": {"metadata": {"labels": labels},
                                             "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}})


POLICY_STEPS: list[tuple[str, list[str], str]] = [
    ("deployment-over-limit", ["create", "-f", "-"], _deployment("too-many", "vap-prod", 7)),
    ("deployment-within-limit", ["create", "-f", "-"], _deployment("just-enough", "vap-prod", 5)),
    ("deployment-unbound-namespace", ["create", "-f", "-"], _deployment("unbound", "default", 9)),
    ("deployment-update-over-limit", ["-n", "vap-prod", "patch", "deployment", "just-enough", "-p",
                                      '{"spec":{"replicas":8}}'], ""),
    ("deployment-scale-subresource", ["-n", "vap-prod", "scale", "deployment", "just-enough", "--replicas=8"], ""),
    ("configmap-warned", ["-n", "vap-prod", "create", "configmap", "unlabelled", "--from-literal=a=b"], ""),
    ("configmap-elsewhere", ["-n", "default", "create", "configmap", "elsewhere", "--from-literal=a=b"], ""),
    ("pod-latest-tag", ["create", "-f", "-"], _POD),
    ("policy-does-not-compile", ["create", "-f", "-"], _BROKEN_POLICY),
]


def run_policy_steps(kubeconfig: str) -> list[tuple[str, int, list[str]]]:
    return [(name, *_answer(kubectl(kubeconfig, args, stdin))) for name, args, stdin in POLICY_STEPS]


MUTATING = MANIFESTS / "mutating.yaml"


def _labelled_deployment(name: str, replicas: int, labels: dict[str, str] | None = None,
                         annotations: dict[str, str] | None = None) -> str:
    body = json.loads(_deployment(name, "vap-prod", replicas))
    if labels is not None:
        body["metadata"]["labels"] = labels
    if annotations is not None:
        body["metadata"]["annotations"] = annotations
    return json.dumps(body)


MUTATING_STEPS: list[tuple[str, list[str], str]] = [
    ("mutated-no-labels", ["create", "-o", "jsonpath={.metadata.labels} {.spec.replicas}", "-f", "-"],
     _labelled_deployment("defaults-a", 1)),
    ("mutated-with-team", ["create", "-o", "jsonpath={.metadata.labels} {.spec.replicas}", "-f", "-"],
     _labelled_deployment("defaults-b", 3, {"team": "payments"})),
    ("opted-out", ["create", "-o", "jsonpath={.metadata.labels} {.spec.replicas}", "-f", "-"],
     _labelled_deployment("defaults-c", 1, annotations={"defaults.example.io/skip": "yes"})),
    ("reinvoked", ["-n", "vap-prod", "create", "configmap", "reinvoked", "--from-literal=team=x",
                   "-o", "jsonpath={.metadata.labels} {.metadata.annotations}"], ""),
]


def run_mutating_steps(kubeconfig: str) -> list[tuple[str, int, str, list[str]]]:
    steps = []
    for name, args, stdin in MUTATING_STEPS:
        result = subprocess.run(["kubectl", "--kubeconfig", kubeconfig, *args], input=stdin, capture_output=True,
                                text=True, timeout=60, check=False)
        steps.append((name, result.returncode, result.stdout, error_lines(result.stderr)))
    return steps


TYPECHECK = MANIFESTS / "typecheck.yaml"
TYPECHECK_FIXTURE = Path(__file__).parent / "fixtures" / "cel_typechecking.json"
TYPECHECK_SWEEP = MANIFESTS / "typecheck_sweep.yaml"
TYPECHECK_SWEEP_FIXTURE = Path(__file__).parent / "fixtures" / "cel_typechecking_sweep.json"
TYPECHECK_SWEEP_POLICIES = ("tc-variables", "tc-order", "tc-wildcards", "tc-params")


def typechecking_statuses(kubeconfig: str) -> dict[str, Any] | None:
    """Each typecheck_sweep.yaml policy's status, once the status controller has written every one."""
    result = subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "get", "validatingadmissionpolicies", "-o", "json"],
                            capture_output=True, text=True, timeout=60, check=True)
    found = {item["metadata"]["name"]: item.get("status") or {} for item in json.loads(result.stdout)["items"]
             if item["metadata"]["name"] in TYPECHECK_SWEEP_POLICIES}
    if len(found) < len(TYPECHECK_SWEEP_POLICIES) or not all(s.get("observedGeneration") for s in found.values()):
        return None
    return found
