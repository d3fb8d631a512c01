"""Records kube-apiserver's PodSecurity answers to pods drawn at random: each pod sets a few of the
fields the Pod Security Standards judge (host namespaces, privileged, capabilities, runAsNonRoot and
runAsUser, seccomp and AppArmor profiles and annotations, SELinux options, procMount, sysctls, host
ports and paths, volume types, Windows host processes), at the pod's and at each container's level,
and is created (a dry run) in a namespace that enforces, warns or audits a level at a version.

The hand-written scenarios (tests/admission_sweep_scenarios.py) name the rules one by one; these draw
their combinations, where the order of the checks, which container each names and the versions'
differences show. The pods come from a seeded generator, so the same ones are sent every time.

Usage: python tools/capture_podsecurity_random.py KUBECONFIG  (a reference started by
../shared/reference/start.sh). An answer keeps the status, a refusal's message and the Warning lines;
tests/test_podsecurity_random.py holds ours to them (apiserver/admissionplugins/).
"""

from __future__ import annotations

import json
import os
import random
import sys
from typing import Any

import capture_patch_decoding as patching

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "podsecurity_random.json")
Send = patching.Send
PODS = 400
JSON = "application/json"
_LABEL = "pod-security.kubernetes.io/"

# Namespaces by name: their Pod Security labels.
NAMESPACES: dict[str, dict[str, str]] = {
    "psr-restricted": {"enforce": "restricted", "enforce-version": "latest"},
    "psr-restricted-v122": {"enforce": "restricted", "enforce-version": "v1.22"},
    "psr-restricted-v118": {"enforce": "restricted", "enforce-version": "v1.18"},
    "psr-baseline": {"enforce": "baseline", "warn": "restricted", "warn-version": "v1.30"},
    "psr-baseline-v10": {"enforce": "baseline", "enforce-version": "v1.0", "warn": "baseline"},
    "psr-warn": {"warn": "restricted", "warn-version": "latest", "audit": "baseline"},
}

_CAPABILITIES = ["NET_RAW", "NET_BIND_SERVICE", "SYS_ADMIN", "CHOWN", "KILL", "AUDIT_WRITE", "ALL"]
_SECCOMP = [{"type": "RuntimeDefault"}, {"type": "Unconfined"}, {"type": "Localhost", "localhostProfile": "p.json"}]
_APPARMOR = [{"type": "RuntimeDefault"}, {"type": "Unconfined"}, {"type": "Localhost", "localhostProfile": "k8s-x"}]
_APPARMOR_ANNOTATION = ["runtime/default", "unconfined", "localhost/k8s-x"]
_SELINUX = [{"type": "container_t"}, {"type": "spc_t"}, {"type": "container_kvm_t"}, {"user": "sysadm_u"},
            {"role": "sysadm_r"}, {"level": "s0:c1,c2"}]
_SYSCTLS = ["kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies",
            "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start", "net.ipv4.tcp_keepalive_time",
            "net.core.somaxconn", "kernel.msgmax"]
_VOLUMES: list[dict[str, Any]] = [
    {"configMap": {"name": "c"}}, {"emptyDir": {}}, {"secret": {"secretName": "s"}}, {"hostPath": {"path": "/var"}},
    {"nfs": {"server": "nas", "path": "/"}}, {"projected": {"sources": []}}, {"downwardAPI": {"items": []}},
    {"csi": {"driver": "csi.example.com"}}, {"persistentVolumeClaim": {"claimName": "c"}},
    {"iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:x", "lun": 0}},
    {"gcePersistentDisk": {"pdName": "d"}}, {"cephfs": {"monitors": ["10.0.0.2"]}},
]


def _maybe(rng: random.Random, chance: float = 0.2) -> bool:
    return rng.random() < chance


def _context(rng: random.Random, container: bool) -> dict[str, Any]:
    """A securityContext setting a few fields (pod level, or a container's)."""
    out: dict[str, Any] = {}
    if _maybe(rng, 0.35):
        out["runAsNonRoot"] = rng.random() < 0.7
    if _maybe(rng):
        out["runAsUser"] = rng.choice([0, 1000])
    if _maybe(rng, 0.35):
        out["seccompProfile"] = dict(rng.choice(_SECCOMP))
    if _maybe(rng, 0.1):
        out["appArmorProfile"] = dict(rng.choice(_APPARMOR))
    if _maybe(rng, 0.1):
        out["seLinuxOptions"] = dict(rng.choice(_SELINUX))
    if _maybe(rng, 0.01):
        out["windowsOptions"] = {"hostProcess": True}
    if container:
        if _maybe(rng, 0.15):
            out["privileged"] = rng.random() < 0.2  # true is refused: no --allow-privileged
        if _maybe(rng, 0.4):
            out["allowPrivilegeEscalation"] = rng.random() < 0.3
        if _maybe(rng, 0.4):
            caps: dict[str, Any] = {}
            if rng.random() < 0.7:
                caps["drop"] = rng.sample(["ALL", "NET_RAW", "KILL"], rng.randint(1, 2))
            if rng.random() < 0.5:
                caps["add"] = rng.sample(_CAPABILITIES, rng.randint(1, 2))
            out["capabilities"] = caps
        if _maybe(rng, 0.05):
            out["procMount"] = rng.choice(["Unmasked", "Default"])
    elif _maybe(rng, 0.1):
        out["sysctls"] = [{"name": name, "value": "1"} for name in rng.sample(_SYSCTLS, rng.randint(1, 2))]
    return out


def pod(index: int) -> tuple[str, dict[str, Any]]:
    """The index-th pod and the namespace it is sent to."""
    rng = random.Random(f"podsecurity/{index}")
    namespace = rng.choice(sorted(NAMESPACES))
    containers = []
    for i in range(rng.choice([1, 1, 2])):
        container: dict[str, Any] = {"name": f"c{i}", "image": "registry.example.com/app:1"}
        context = _context(rng, True)
        if context:
            container["securityContext"] = context
        if _maybe(rng, 0.1):
            container["ports"] = [{"containerPort": 80, "hostPort": rng.choice([0, 8080])}]
        containers.append(container)
    spec: dict[str, Any] = {"containers": containers}
    if _maybe(rng, 0.15):
        init = {"name": "init", "image": "registry.example.com/app:1"}
        context = _context(rng, True)
        if context:
            init["securityContext"] = context
        spec["initContainers"] = [init]
    context = _context(rng, False)
    if context:
        spec["securityContext"] = context
    for host in ("hostNetwork", "hostPID", "hostIPC"):
        if _maybe(rng, 0.06):
            spec[host] = True
    if _maybe(rng, 0.25):
        spec["volumes"] = [{"name": f"v{i}", **volume} for i, volume in
                           enumerate(rng.sample(_VOLUMES, rng.randint(1, 2)))]
    if _maybe(rng, 0.02):
        spec["os"] = {"name": "windows"}
    metadata: dict[str, Any] = {"name": f"p{index}"}
    if _maybe(rng, 0.08):
        metadata["annotations"] = {f"container.apparmor.security.beta.kubernetes.io/{containers[0]['name']}":
                                   rng.choice(_APPARMOR_ANNOTATION)}
    if _maybe(rng, 0.05):
        metadata.setdefault("annotations", {})["seccomp.security.alpha.kubernetes.io/pod"] = rng.choice(
            ["runtime/default", "unconfined"])
    return namespace, {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def prepare(send: Send) -> None:
    for name, labels in NAMESPACES.items():
        send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {
            "name": name, "labels": {_LABEL + k: v for k, v in labels.items()}}}).encode(), JSON)


def answer(send: Send, index: int) -> dict[str, Any]:
    """The index-th pod's dry-run create: status, a refusal's message, the Warning lines."""
    namespace, obj = pod(index)
    status, body, warnings = send("POST", f"/api/v1/namespaces/{namespace}/pods?dryRun=All",
                                  json.dumps(obj).encode(), JSON)
    out: dict[str, Any] = {"status": status, "warnings": warnings}
    if status >= 300:
        out["message"] = body.get("message") if isinstance(body, dict) else body
    return out


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    prepare(send)
    patching.record(FIXTURE, {str(i): answer(send, i) for i in range(PODS)})


if __name__ == "__main__":
    main(sys.argv[1])
