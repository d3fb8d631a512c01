"""The objects every benchmark stores: ConfigMaps and Pods shaped like those of shared/bench/apiload.sh.

A ConfigMap is about 500 bytes with 5 labels and 3 data keys, one in ten labelled tier=gold; a Pod has
two containers and a Running status, about 4-6 KB once served. The same shapes in the micro benchmarks
and the load runs keep their figures comparable with each other and with the reference script.
"""

from __future__ import annotations

from typing import Any

GOLD_EVERY = 10
_TIME = "2026-11-29T10:00:00Z"


def tier(i: int) -> str:
    return "gold" if i % GOLD_EVERY == 0 else ("silver" if i % 3 else "bronze")


def configmap(namespace: str, name: str, i: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace,
                     "labels": {"app": "loadtest", "tier": tier(i), "shard": f"s{i % 16:02d}",
                                "team": f"team-{i % 7}", "index": str(i)}},
        "data": {"mode": "production" if i % 2 else "staging",
                 "config.yaml": f"server:\n  port: {8000 + i % 100}\n  workers: {1 + i % 8}\n  log: info\n"
                                f"  upstream: http://backend-{i % 13}.svc.cluster.local:9000\n",
                 "payload": (f"{i:04d}-" + "abcdef0123456789" * 10)[:160]},
    }


def _container_status(i: int, name: str, image: str) -> dict[str, Any]:
    return {"name": name, "image": image, "imageID": image + "@sha256:" + "1" * 64,
            "containerID": f"containerd://{i:04d}" + "a" * 60, "ready": True, "started": True,
            "restartCount": i % 3, "lastState": {}, "state": {"running": {"startedAt": _TIME}}}


def _container(name: str, image: str, port: int | None) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": name, "image": image, "imagePullPolicy": "IfNotPresent",
        "args": ["--log-level=info", f"--listen=:{port or 15001}", "--config=/etc/app/config.yaml"],
        "env": [{"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
                {"name": "POD_NAMESPACE",
                 "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}},
                {"name": "GOMAXPROCS", "value": "2"}],
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
        "volumeMounts": [{"name": "config", "mountPath": "/etc/app", "readOnly": True},
                         {"name": "kube-api-access", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                          "readOnly": True}],
        "readinessProbe": {"httpGet": {"path": "/healthz", "port": port or 15021, "scheme": "HTTP"},
                           "periodSeconds": 10, "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3},
        "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
    }
    if port is not None:
        container["ports"] = [{"name": "http", "containerPort": port, "protocol": "TCP"}]
    return container


def pod(namespace: str, name: str, i: int) -> dict[str, Any]:
    """A Pod as a controller would create it, without status."""
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace,
                     "labels": {"app": "loadtest", "tier": tier(i), "index": str(i),
                                "pod-template-hash": f"{i % 97:05x}abc"},
                     "annotations": {"kubectl.kubernetes.io/default-container": "app"}},
        "spec": {
            "nodeName": f"load-node-{i % 4}", "restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
            "serviceAccountName": "default", "terminationGracePeriodSeconds": 30, "schedulerName": "default-scheduler",
            "containers": [_container("app", "registry.example.com/web:2.3.1", 8080),
                           _container("sidecar", "registry.example.com/proxy:1.9", None)],
            "volumes": [{"name": "config", "configMap": {"name": f"app-config-{i % 10}", "defaultMode": 420}},
                        {"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
                            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                        ]}}],
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                             "tolerationSeconds": 300},
                            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
                             "tolerationSeconds": 300}],
        },
    }


def pod_status(i: int) -> dict[str, Any]:
    """The status a kubelet reports for a running `pod(..., i)`: the body of a merge patch to /status."""
    ip = f"10.244.{i // 250 % 256}.{i % 250 + 2}"
    return {"status": {
        "phase": "Running", "hostIP": f"192.168.1.{10 + i % 4}", "podIP": ip, "podIPs": [{"ip": ip}],
        "startTime": _TIME, "qosClass": "Burstable",
        "conditions": [{"type": c, "status": "True", "lastProbeTime": None, "lastTransitionTime": _TIME}
                       for c in ("Initialized", "Ready", "ContainersReady", "PodScheduled")],
        "containerStatuses": [_container_status(i, "app", "registry.example.com/web:2.3.1"),
                              _container_status(i, "sidecar", "registry.example.com/proxy:1.9")],
    }}


def running_pod(namespace: str, name: str, i: int) -> dict[str, Any]:
    return {**pod(namespace, name, i), **pod_status(i)}
