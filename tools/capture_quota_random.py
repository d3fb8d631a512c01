"""Records kube-apiserver's ResourceQuota answers to sequences of writes drawn at random: each namespace
holds one or two ResourceQuotas drawn over the pod, storage, service and object-count names a quota may
limit (some scoped by Terminating, BestEffort, CrossNamespacePodAffinity, a PriorityClass or a
VolumeAttributesClass selector, some refused by ValidateResourceQuota), then takes a sequence of creates
(pods, services, claims, config maps, secrets; a few dry runs), updates that change what an object uses
(a service's type, a bound claim's storage or its status' allocated storage, a pod's deadline or its
resize) or what a quota limits, and deletes. Every answer is recorded in order, so what admission
charged to the quotas decides the next answer.

Every write but a create is followed by the quotas' status (hard and used) once the controller has
settled, and each sequence ends with it. Quota admission lists a namespace's quotas from
an informer, in Go's map order: when two quotas would each refuse a write, either may be named, so a
refused write in a namespace of two quotas is sent again until both wordings have been seen (or the
tries run out) and the fixture keeps every wording seen.

Usage: python tools/capture_quota_random.py KUBECONFIG  (a reference started by
../shared/reference/start.sh with --controllers: the quota controller fills status.hard and recounts
after deletes). tests/test_quota_random.py holds ours to them (apiserver/admissionplugins/resourcequota.py,
quotausage.py, apiserver/controllers/resourcequota.py).
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import capture_patch_decoding as patching
from quota_fixed_scenarios import FIXED

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "quota_random.json")
Send = patching.Send
NAMESPACES = 12
# the drawn namespaces, then the hand-written ones (tools/quota_fixed_scenarios.py)
SCENARIOS = NAMESPACES + len(FIXED)
STEPS = 32
JSON = "application/json"
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
# the reference's controller settles within a second; a replay waits this long for the recorded usage
SETTLE_SECONDS = 1.5
PATIENCE_SECONDS = 10.0
RECOUNT_SECONDS = 0.25
# Go's small maps start their walk at a random one of eight slots, so the second of two quotas comes
# first only about one time in eight: sixty tries miss it once in three thousand
REPEATS = 60

PRIORITY_CLASSES = {"pc-high": 1000, "pc-low": 100, "pc-batch": 10}
ATTRIBUTE_CLASSES = ["vac-a", "vac-b"]
# a claim of this class is bound to a volume made for it, so that its storage can grow (the class
# allows expansion); claims of other classes stay pending
BOUND_CLASS = "gold"
RUNTIME_CLASS = "kata"
_OVERHEAD = {"cpu": "250m", "memory": "120Mi"}
_CLASS = ".storageclass.storage.k8s.io/"
_HARD: dict[str, list[str]] = {
    "pods": ["1", "2", "3", "5"],
    "requests.cpu": ["500m", "1", "2"], "limits.cpu": ["1", "2", "3"], "cpu": ["500m", "1500m"],
    "requests.memory": ["256Mi", "512Mi", "1Gi"], "limits.memory": ["512Mi", "1Gi"], "memory": ["300Mi", "1Gi"],
    "requests.ephemeral-storage": ["1Gi", "2Gi"], "limits.ephemeral-storage": ["1Gi", "3Gi"],
    "ephemeral-storage": ["1500Mi"], "requests.nvidia.com/gpu": ["1", "2"],
    "requests.storage": ["3Gi", "5Gi", "10Gi"], "persistentvolumeclaims": ["1", "2", "3"],
    f"gold{_CLASS}requests.storage": ["2Gi", "5Gi"], f"gold{_CLASS}persistentvolumeclaims": ["1", "2"],
    f"silver{_CLASS}requests.storage": ["3Gi"], f"silver{_CLASS}persistentvolumeclaims": ["1"],
    "services": ["1", "2", "3"], "services.nodeports": ["0", "1", "2"], "services.loadbalancers": ["0", "1"],
    "count/configmaps": ["1", "2", "3"], "count/secrets": ["0", "1", "2"], "configmaps": ["2"],
    "count/pods": ["2", "4"], "count/services": ["2"], "count/persistentvolumeclaims": ["1", "3"],
    "requests.hugepages-2Mi": ["4Mi"], "hugepages-2Mi": ["2Mi", "6Mi"],
}
# what a scoped quota may limit (IsResourceQuotaScopeValidForResource), drawn from most of the time
_POD_NAMES = ["pods", "requests.cpu", "limits.cpu", "cpu", "requests.memory", "limits.memory", "memory"]
_SCOPES = ["Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "CrossNamespacePodAffinity",
           "PriorityClass"]
_CLAIM_NAMES = ["requests.storage", "persistentvolumeclaims", f"gold{_CLASS}requests.storage",
                f"gold{_CLASS}persistentvolumeclaims", "count/persistentvolumeclaims"]

_CPU = ["100m", "250m", "500m", "1"]
_MEMORY = ["64Mi", "128Mi", "256Mi", "512Mi"]
_EPHEMERAL = ["100Mi", "500Mi", "1Gi"]
_STORAGE = ["1Gi", "2Gi", "3Gi"]
_SERVICE_CA = "openshift-service-ca.crt"


def _quota(rng: random.Random, name: str) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    requirement: dict[str, Any]
    scoped = rng.random() < 0.4
    pool = _POD_NAMES if scoped and rng.random() < 0.85 else sorted(_HARD)
    spec["hard"] = {key: rng.choice(_HARD[key]) for key in rng.sample(pool, rng.randint(2, min(6, len(pool))))}
    if scoped and rng.random() < 0.3:
        spec["hard"] = {key: rng.choice(_HARD[key]) for key in rng.sample(_CLAIM_NAMES, rng.randint(1, 3))}
        operator = rng.choice(["In", "NotIn", "Exists", "DoesNotExist"])
        requirement = {"scopeName": "VolumeAttributesClass", "operator": operator}
        if operator in ("In", "NotIn"):
            requirement["values"] = rng.sample(ATTRIBUTE_CLASSES, 1)
        spec["scopeSelector"] = {"matchExpressions": [requirement]}
    elif scoped:
        if rng.random() < 0.5:
            scope = rng.choice(_SCOPES)
            spec["scopes"] = [scope]
            if scope == "BestEffort" and rng.random() < 0.7:
                spec["hard"] = {"pods": rng.choice(_HARD["pods"])}
        if "scopes" not in spec or rng.random() < 0.2:
            operator = rng.choice(["In", "NotIn", "Exists", "DoesNotExist"])
            requirement = {"scopeName": "PriorityClass", "operator": operator}
            if operator in ("In", "NotIn"):
                requirement["values"] = rng.sample(sorted(PRIORITY_CLASSES), rng.randint(1, 2))
            spec["scopeSelector"] = {"matchExpressions": [requirement]}
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name}, "spec": spec}


def namespace(index: int) -> tuple[str, list[dict[str, Any]]]:
    """The index-th namespace's name and quotas."""
    if index >= NAMESPACES:
        return f"quota-f-{index - NAMESPACES}", FIXED[index - NAMESPACES][0]
    rng = random.Random(f"quota/ns/{index}")
    return f"quota-r-{index}", [_quota(rng, name) for name in ("qa", "qb")[:rng.choice([1, 2, 2])]]


def _container(rng: random.Random, name: str) -> dict[str, Any]:
    container: dict[str, Any] = {"name": name, "image": "registry.example.com/app:1"}
    resources: dict[str, Any] = {}
    for resource, values in (("cpu", _CPU), ("memory", _MEMORY), ("ephemeral-storage", _EPHEMERAL)):
        chance = rng.random()
        if chance < 0.45:
            continue
        low = rng.randrange(len(values))
        if chance < 0.7 or chance >= 0.9:
            resources.setdefault("requests", {})[resource] = values[low]
        if chance >= 0.7:
            resources.setdefault("limits", {})[resource] = values[rng.randrange(low, len(values))]
    if rng.random() < 0.1:
        resources.setdefault("limits", {})["nvidia.com/gpu"] = rng.choice(["1", "2"])
    if rng.random() < 0.06:  # huge pages need memory or cpu asked for beside them
        resources.setdefault("limits", {}).update({"hugepages-2Mi": rng.choice(["2Mi", "4Mi"]), "cpu": _CPU[-1]})
    if resources:
        container["resources"] = resources
    return container


def _pod(rng: random.Random, name: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [_container(rng, f"c{i}") for i in range(rng.choice([1, 1, 2]))]}
    if rng.random() < 0.2:
        spec["initContainers"] = [_container(rng, "init")]
    if rng.random() < 0.25:
        spec["activeDeadlineSeconds"] = rng.choice([30, 600])
    if rng.random() < 0.35:
        spec["priorityClassName"] = rng.choice(sorted(PRIORITY_CLASSES))
    if rng.random() < 0.1:
        spec["runtimeClassName"] = RUNTIME_CLASS
    if rng.random() < 0.08:
        spec["resources"] = {"requests": {"cpu": rng.choice(["2", "3"])}, "limits": {"memory": "2Gi"}}
    if rng.random() < 0.08:
        term = {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "x"}},
                "namespaces": ["elsewhere"]}
        spec["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def _service(rng: random.Random, name: str) -> dict[str, Any]:
    ports = [{"name": f"p{i}", "port": 80 + i} for i in range(rng.choice([1, 1, 2]))]
    kind = rng.choice(["ClusterIP", "ClusterIP", "NodePort", "LoadBalancer"])
    spec: dict[str, Any] = {"type": kind, "selector": {"app": name}, "ports": ports}
    if kind == "LoadBalancer" and rng.random() < 0.3:
        spec["allocateLoadBalancerNodePorts"] = False
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec}


def _claim(rng: random.Random, name: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"],
                            "resources": {"requests": {"storage": rng.choice(_STORAGE)}}}
    if rng.random() < 0.6:
        spec["storageClassName"] = rng.choice([BOUND_CLASS, BOUND_CLASS, "silver"])
    if spec.get("storageClassName") != BOUND_CLASS and rng.random() < 0.3:
        spec["volumeAttributesClassName"] = rng.choice(ATTRIBUTE_CLASSES)
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": spec}


def _plain(kind: str, name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": name}, "data": {"k": "dg=="}}


# a step: (method, resource, name, body, content type); settled after deletes and recounted updates
Step = tuple[str, str, str, dict[str, Any] | None, str]


def _update(rng: random.Random, target: tuple[str, str]) -> Step:
    """A change to what the object uses: a service's type, a claim's storage (or, in its status, the
    storage allocated), a pod's deadline (which moves it into the Terminating scope)."""
    resource, name = target
    if resource == "services":
        return "PATCH", resource, name, {"spec": {"type": rng.choice(["ClusterIP", "NodePort", "LoadBalancer"])}}, MERGE
    if resource == "persistentvolumeclaims":
        if rng.random() < 0.3:
            return "PATCH", resource, f"{name}/status", {"status": {"allocatedResources": {
                "storage": rng.choice(["4Gi", "6Gi"])}}}, MERGE
        return "PATCH", resource, name, {"spec": {"resources": {"requests": {"storage": rng.choice(["4Gi", "8Gi", "20Gi"])}}}}, MERGE
    if resource == "pods" and rng.random() < 0.5:
        resized = {"name": "c0", "resources": {"requests": {"cpu": rng.choice(_CPU), "memory": rng.choice(_MEMORY)}}}
        return "PATCH", resource, f"{name}/resize", {"spec": {"containers": [resized]}}, STRATEGIC
    if resource == "pods":
        return "PATCH", resource, name, {"spec": {"activeDeadlineSeconds": 60}}, MERGE
    return "PATCH", resource, name, {"data": {"k": "eA=="}}, MERGE


def _quota_change(rng: random.Random, quota: dict[str, Any]) -> Step:
    """One of a quota's hard limits raised or lowered (the controller copies it to status.hard)."""
    key = rng.choice(sorted(quota["spec"]["hard"]))
    return ("PATCH", "resourcequotas", quota["metadata"]["name"],
            {"spec": {"hard": {key: rng.choice(_HARD[key])}}}, MERGE)


def sequence(index: int) -> list[Step]:
    """The index-th namespace's writes, in order. A create is now and then a dry run (its name then
    carries ?dryRun=All), which refuses as the write would but charges nothing."""
    if index >= NAMESPACES:
        return FIXED[index - NAMESPACES][1]
    rng = random.Random(f"quota/seq/{index}")
    _, quotas = namespace(index)
    created: list[tuple[str, str]] = []
    steps: list[Step] = []
    for step in range(STEPS):
        roll, name = rng.random(), f"o{step}"
        if rng.random() < 0.05:
            steps.append(_quota_change(rng, rng.choice(quotas)))
            continue
        if roll < 0.36:
            steps.append(("POST", "pods", name, _pod(rng, name), JSON))
        elif roll < 0.54:
            steps.append(("POST", "services", name, _service(rng, name), JSON))
        elif roll < 0.68:
            steps.append(("POST", "persistentvolumeclaims", name, _claim(rng, name), JSON))
        elif roll < 0.75:
            steps.append(("POST", "configmaps", name, _plain("ConfigMap", name), JSON))
        elif roll < 0.81:
            steps.append(("POST", "secrets", name, _plain("Secret", name), JSON))
        elif roll < 0.91 and created:
            claims = [c for c in created if c[0] == "persistentvolumeclaims"]
            services = [c for c in created if c[0] == "services"]
            chance = rng.random()
            pool = claims if claims and chance < 0.5 else services if services and chance < 0.8 else created
            steps.append(_update(rng, rng.choice(pool)))
            continue
        elif created:
            resource, target = rng.choice(created)
            steps.append(("DELETE", resource, target, None, JSON))
            continue
        else:
            steps.append(("POST", "configmaps", name, _plain("ConfigMap", name), JSON))
        if rng.random() < 0.08:
            steps[-1] = (*steps[-1][:2], f"{name}?dryRun=All", *steps[-1][3:])
            continue
        created.append((steps[-1][1], name))
    return steps


def _post(send: Send, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    status, answer, _ = send("POST", path, json.dumps(body).encode(), JSON)
    return status, answer


def _until(what: str, probe: Callable[[], bool], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not probe():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.1)


def _quotas(send: Send, ns: str) -> list[dict[str, Any]]:
    status, body, _ = send("GET", f"/api/v1/namespaces/{ns}/resourcequotas", None, JSON)
    assert status == 200, body
    return sorted(body["items"], key=lambda q: q["metadata"]["name"])


def usage(send: Send, ns: str) -> dict[str, Any]:
    """Each quota's status (hard and used), by name."""
    return {q["metadata"]["name"]: q.get("status") for q in _quotas(send, ns)}


def _volumes(index: int) -> list[dict[str, Any]]:
    """A volume bound ahead to each claim of the bound class the namespace's sequence creates."""
    ns, _ = namespace(index)
    return [{"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"pv-{ns}-{name}"},
             "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                      "persistentVolumeReclaimPolicy": "Retain", "storageClassName": BOUND_CLASS,
                      "hostPath": {"path": f"/tmp/quota/{ns}/{name}"}, "claimRef": {"namespace": ns, "name": name}}}
            for _, _, name, _, _ in filter(_binds, sequence(index))]


def prepare(send: Send) -> None:
    """The priority, storage, runtime and volume attributes classes, the volumes claims bind to, and
    the namespaces, each once its root CA config map is there (it counts in count/configmaps, and a
    quota made before it would race the controller's first count). The reference is OpenShift's
    build, whose controller manager also publishes a service CA config map in every namespace; it is
    made here where no controller made it, so both count the same two."""
    for name, value in PRIORITY_CLASSES.items():
        _post(send, "/apis/scheduling.k8s.io/v1/priorityclasses", {
            "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value})
    _post(send, "/apis/storage.k8s.io/v1/storageclasses", {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": BOUND_CLASS},
        "provisioner": "kubernetes.io/no-provisioner", "allowVolumeExpansion": True})
    for name in ATTRIBUTE_CLASSES:
        _post(send, "/apis/storage.k8s.io/v1/volumeattributesclasses", {
            "apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttributesClass", "metadata": {"name": name},
            "driverName": "csi.example.com", "parameters": {"iops": "100"}})
    _post(send, "/apis/node.k8s.io/v1/runtimeclasses", {
        "apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": RUNTIME_CLASS},
        "handler": RUNTIME_CLASS, "overhead": {"podFixed": _OVERHEAD}})
    for index in range(SCENARIOS):
        for volume in _volumes(index):
            _post(send, "/api/v1/persistentvolumes", volume)
    for index in range(SCENARIOS):
        ns, _ = namespace(index)
        _post(send, "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    for index in range(SCENARIOS):
        ns, _ = namespace(index)
        root_ca = f"/api/v1/namespaces/{ns}/configmaps/kube-root-ca.crt"
        _until(f"{ns}'s root CA", lambda: send("GET", root_ca, None, JSON)[0] == 200)  # noqa: B023 (called here)
        _post(send, f"/api/v1/namespaces/{ns}/configmaps", {
            "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": _SERVICE_CA}, "data": {"service-ca.crt": ""}})


def _refusal(body: Any) -> str:
    return str(body.get("message") if isinstance(body, dict) else body)


def _send_step(send: Send, ns: str, step: Step) -> tuple[int, Any]:
    method, resource, name, body, content_type = step
    path = f"/api/v1/namespaces/{ns}/{resource}"
    if method != "POST":
        path += f"/{name}"
    elif "?" in name:
        path += name[name.index("?"):]
    status, answer, _ = send(method, path, json.dumps(body).encode() if body is not None else None, content_type)
    return status, answer


def _await_bound(send: Send, ns: str, name: str) -> None:
    """A claim of the bound class, once the binder has bound it (its storage can grow only then)."""
    def bound() -> bool:
        status, claim, _ = send("GET", f"/api/v1/namespaces/{ns}/persistentvolumeclaims/{name}", None, JSON)
        return status != 200 or claim["spec"].get("storageClassName") != BOUND_CLASS or \
            (claim.get("status") or {}).get("phase") == "Bound"
    _until(f"claim {ns}/{name} bound", bound)


def _binds(step: Step) -> bool:
    method, resource, name, body, _ = step
    return method == "POST" and resource == "persistentvolumeclaims" and "?" not in name and \
        body is not None and body["spec"].get("storageClassName") == BOUND_CLASS


def _settle(send: Send, ns: str, expected: dict[str, Any] | None) -> dict[str, Any]:
    """The quotas' usage once the controller has recounted: the recorded usage when it comes within the
    patience, otherwise (and when recording) what is there after the reference's settling time. A
    replay first gives the recount a moment even when the usage is already what was recorded: a
    recount still under way when the next create is charged could count without that object (its
    charge is written before it is), on either server."""
    if expected is None:
        time.sleep(SETTLE_SECONDS)
        return usage(send, ns)
    time.sleep(RECOUNT_SECONDS)
    deadline = time.monotonic() + PATIENCE_SECONDS
    while (found := usage(send, ns)) != expected and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def quotas_answer(send: Send, index: int) -> list[dict[str, Any]]:
    """The namespace's quotas created, then awaited until the controller has filled their status."""
    ns, quotas = namespace(index)
    out = []
    for quota in quotas:
        status, body = _post(send, f"/api/v1/namespaces/{ns}/resourcequotas", quota)
        out.append({"status": status, **({"message": _refusal(body)} if status >= 300 else {})})
    _until(f"{ns}'s quotas' status", lambda: all(
        (q.get("status") or {}).get("hard") is not None and (q.get("status") or {}).get("used") is not None
        for q in _quotas(send, ns)))
    return out


def answer(send: Send, index: int, expected: dict[str, Any] | None = None) -> dict[str, Any]:
    """The index-th namespace's quotas and sequence: each write's status and refusal, the usage after
    each delete or recounted update and at the end. Given the recorded answer (a replay), waits for the
    controller until the usage recorded is reached."""
    ns, _ = namespace(index)
    recorded = (expected or {}).get("steps") or []
    out: dict[str, Any] = {"quotas": quotas_answer(send, index), "steps": []}
    several = sum(1 for a in out["quotas"] if a["status"] == 201) > 1
    for number, step in enumerate(sequence(index)):
        if step[0] == "PATCH" and step[1] == "persistentvolumeclaims":
            _await_bound(send, ns, step[2].split("/")[0])
        status, body = _send_step(send, ns, step)
        entry: dict[str, Any] = {"write": f"{step[0]} {step[1]}/{step[2]}", "status": status}
        if status >= 300:
            entry["message"] = _refusal(body)
            if several and status == 403 and expected is None:
                seen = {entry["message"]}
                for _ in range(REPEATS):
                    seen.add(_refusal(_send_step(send, ns, step)[1]))
                    if len(seen) > 1:
                        break
                if len(seen) > 1:
                    entry["or"] = sorted(seen - {entry["message"]})
        if status < 300 and (step[0] != "POST" or _binds(step)):
            if step[0] == "POST":  # the binder's writes to the claim make the controller recount
                _await_bound(send, ns, step[2])
            if step[2].endswith("/status"):  # admission charges a status write before it answers
                entry["charged"] = usage(send, ns)
            wanted = recorded[number].get("usage") if number < len(recorded) else None
            entry["usage"] = _settle(send, ns, wanted if expected is not None else None)
        out["steps"].append(entry)
    out["usage"] = _settle(send, ns, expected.get("usage") if expected is not None else None)
    return out


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    prepare(send)
    patching.record(FIXTURE, {str(i): answer(send, i) for i in range(SCENARIOS)})


if __name__ == "__main__":
    main(sys.argv[1])
