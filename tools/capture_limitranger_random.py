"""Records kube-apiserver's LimitRanger answers to pods and claims drawn at random against LimitRanges
drawn at random: each namespace holds one LimitRange whose Container, Pod and PersistentVolumeClaim
items set some of default, defaultRequest, min, max and maxLimitRequestRatio for cpu, memory and
storage; each pod's containers ask some requests and limits (or none), each claim some storage. The
answer shows the defaults the plugin wrote and the order and wording of its refusals.

Usage: python tools/capture_limitranger_random.py KUBECONFIG  (a reference started by
../shared/reference/start.sh). Every pod and claim is a dry run; an answer keeps the status, a
refusal's message, and an accepted object's resources. tests/test_limitranger_random.py holds ours to
them (apiserver/admissionplugins/).
"""

from __future__ import annotations

import json
import os
import random
import sys
from typing import Any

import capture_patch_decoding as patching

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "limitranger_random.json")
Send = patching.Send
NAMESPACES = 12
OBJECTS = 240
JSON = "application/json"

_CPU = ["50m", "100m", "250m", "500m", "1", "2"]
_MEMORY = ["32Mi", "64Mi", "128Mi", "256Mi", "1Gi"]
_STORAGE = ["1Gi", "2Gi", "5Gi", "10Gi"]
_RATIO = ["1", "2", "4", "1500m"]


def _quantities(rng: random.Random, names: dict[str, list[str]], chance: float) -> dict[str, str]:
    return {name: rng.choice(values) for name, values in names.items() if rng.random() < chance}



def _ordered(rng: random.Random, keys: tuple[str, ...], values: list[str]) -> dict[str, str]:
    """Some of `keys` (in their order of size) given values that do not decrease, as validation wants."""
    chosen = [key for key in keys if rng.random() < 0.45]
    picked = sorted(rng.choice(range(len(values))) for _ in chosen)
    return {key: values[i] for key, i in zip(chosen, picked)}


def namespace(index: int) -> tuple[str, dict[str, Any]]:
    """The index-th namespace's name and LimitRange (valid by construction: min <= defaultRequest <=
    default <= max, a ratio only where min and max are not both set)."""
    rng = random.Random(f"limitranger/ns/{index}")
    container: dict[str, Any] = {"type": "Container"}
    pod: dict[str, Any] = {"type": "Pod"}
    for name, values in (("cpu", _CPU), ("memory", _MEMORY)):
        for key, value in _ordered(rng, ("min", "defaultRequest", "default", "max"), values).items():
            container.setdefault(key, {})[name] = value
        if rng.random() < 0.3 and not ("min" in container and name in container["min"]
                                       and "max" in container and name in container["max"]):
            container.setdefault("maxLimitRequestRatio", {})[name] = rng.choice(_RATIO)
        for key, value in _ordered(rng, ("min", "max"), values).items():
            pod.setdefault(key, {})[name] = value
    limits: list[dict[str, Any]] = [container]
    if len(pod) > 1 and rng.random() < 0.5:
        limits.append(pod)
    claim = {"type": "PersistentVolumeClaim", **{k: {"storage": v} for k, v in _ordered(
        rng, ("min", "max"), _STORAGE).items()}}
    if len(claim) > 1:
        limits.append(claim)
    name = f"limited-{index}"
    return name, {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits"},
                  "spec": {"limits": limits}}


def _resources(rng: random.Random) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    compute = {"cpu": _CPU, "memory": _MEMORY}
    for key in ("requests", "limits"):
        if rng.random() < 0.5 and (values := _quantities(rng, compute, 0.6)):
            resources[key] = values
    return resources


def item(index: int) -> tuple[str, str, dict[str, Any]]:
    """The index-th object: its namespace, resource and body (a pod, or now and then a claim)."""
    rng = random.Random(f"limitranger/obj/{index}")
    ns, _ = namespace(rng.randrange(NAMESPACES))
    if rng.random() < 0.2:
        spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {}}
        if rng.random() < 0.8:
            spec["resources"]["requests"] = {"storage": rng.choice(_STORAGE)}
        if rng.random() < 0.3:
            spec["resources"]["limits"] = {"storage": rng.choice(_STORAGE)}
        return ns, "persistentvolumeclaims", {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                              "metadata": {"name": f"c{index}"}, "spec": spec}
    containers = []
    for i in range(rng.choice([1, 1, 2])):
        container: dict[str, Any] = {"name": f"c{i}", "image": "registry.example.com/app:1"}
        if resources := _resources(rng):
            container["resources"] = resources
        containers.append(container)
    spec = {"containers": containers}
    if rng.random() < 0.2:
        init: dict[str, Any] = {"name": "init", "image": "registry.example.com/app:1"}
        if resources := _resources(rng):
            init["resources"] = resources
        spec["initContainers"] = [init]
    return ns, "pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{index}"}, "spec": spec}


def prepare(send: Send) -> None:
    for index in range(NAMESPACES):
        name, limit_range = namespace(index)
        send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                       "metadata": {"name": name}}).encode(), JSON)
        status, body, _ = send("POST", f"/api/v1/namespaces/{name}/limitranges", json.dumps(limit_range).encode(),
                               JSON)
        assert status in (201, 409), body


def answer(send: Send, index: int) -> dict[str, Any]:
    """The index-th object's dry-run create: status, a refusal's message, or the resources written."""
    ns, resource, obj = item(index)
    status, body, _ = send("POST", f"/api/v1/namespaces/{ns}/{resource}?dryRun=All", json.dumps(obj).encode(), JSON)
    out: dict[str, Any] = {"status": status}
    if status >= 300:
        out["message"] = body.get("message") if isinstance(body, dict) else body
    elif resource == "pods":
        spec = body["spec"]
        out["resources"] = [c.get("resources") for c in (spec.get("initContainers") or []) + spec["containers"]]
        out["annotations"] = (body["metadata"].get("annotations") or {})
    else:
        out["resources"] = body["spec"].get("resources")
    return out


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    prepare(send)
    patching.record(FIXTURE, {str(i): answer(send, i) for i in range(OBJECTS)})


if __name__ == "__main__":
    main(sys.argv[1])
