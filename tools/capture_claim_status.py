"""Records kube-apiserver's answers to writes of a ResourceClaim's status (resourceclaims/status), as an
administrator and as users it must ask the authorizer about, into tests/fixtures/claim_status.json.

Usage: python tools/capture_claim_status.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
Each case creates the claim `rc`, makes its steps for real (merge patches of its status, or other writes),
answers its last step with dryRun=All and deletes the claim. The users are impersonated from the
kubeconfig's administrator: `drv` (a user allowed to get and patch claims and their status), and a
ServiceAccount of `dra-a` allowed that too, /binding, and `associated-node:patch` of gpu.example.com's
/driver, with or without the node-name extra a bound token carries.
tests/test_claim_status.py holds ours (apiserver/registry/resource/) to the answers.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import capture_patch_decoding as patching
import capture_validation

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "claim_status.json")
JSON = "application/json"
MERGE = "application/merge-patch+json"
NAMESPACE = "dra-a"
ADMIN_NAMESPACE = "dra-admin"  # labelled for admin access to devices
FLIPPED_NAMESPACE = "dra-flip"  # labelled, then unlabelled within a case
SERVICE_ACCOUNT = f"system:serviceaccount:{NAMESPACE}:drv"
NODE_NAME_EXTRA = "Impersonate-Extra-authentication.kubernetes.io%2fnode-name"
USERS: dict[str, dict[str, str]] = {
    "admin": {},
    "drv": {"Impersonate-User": "drv"},
    "sa": {"Impersonate-User": SERVICE_ACCOUNT},
    "sa-n1": {"Impersonate-User": SERVICE_ACCOUNT, NODE_NAME_EXTRA: "n1"},
    "sa-n2": {"Impersonate-User": SERVICE_ACCOUNT, NODE_NAME_EXTRA: "n2"},
}
# (method, path, body, content type, user) -> (status, decoded body)
Send = Callable[[str, str, Any, str, str], tuple[int, Any]]
Obj = dict[str, Any]
# (user, status patch) of the claim; or (user, method, path, body) of any object, the body merge-patched;
# PUT of "status" puts the claim as stored with the body's status.
Step = tuple[str, Obj] | tuple[str, str, str, Obj | None]

GPU = "gpu.example.com"
NIC = "nic.example.com"
ON_N1 = {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}


def _result(**fields: Any) -> Obj:
    return {"request": "req", "driver": GPU, "pool": "p", "device": "dev", **fields}


def _allocation(*results: Obj, config: list[Obj] | None = None, **fields: Any) -> Obj:
    devices: Obj = {"results": list(results) or [_result()]}
    if config is not None:
        devices["config"] = config
    return {"devices": devices, "nodeSelector": ON_N1, **fields}


def _device(**fields: Any) -> Obj:
    return {"driver": GPU, "pool": "p", "device": "dev", **fields}


def _status(**status: Any) -> Obj:
    return {"status": status}


_TWO = _allocation(_result(), _result(driver=NIC, device="nic"))
_CONSUMER = {"resource": "pods", "name": "p", "uid": "6b7e2f4c-0000-4000-8000-000000000001"}
_OTHER_CONSUMER = {**_CONSUMER, "name": "q", "uid": "6b7e2f4c-0000-4000-8000-000000000002"}
_CONDITION = {"type": "Ready", "status": "True", "reason": "Up", "message": "",
              "lastTransitionTime": "2026-01-01T00:00:00Z"}
_CLAIM_PATH = "/apis/resource.k8s.io/v1/namespaces/{namespace}/resourceclaims/rc"

# name -> (namespace, steps made for real, the step answered with dryRun=All)
CASES: dict[str, tuple[str, list[Step], Step]] = {
    # -- the rules that read other objects or ask the authorizer (pkg/registry/resource/utils.go) --
    "admin-access-unlabelled": (NAMESPACE, [], ("admin", _status(allocation=_allocation(_result(adminAccess=True))))),
    "admin-access-second-result": (NAMESPACE, [], ("admin", _status(allocation=_allocation(
        _result(adminAccess=False), _result(device="dev2", adminAccess=True), _result(device="dev3", adminAccess=True))))),
    "admin-access-labelled": (ADMIN_NAMESPACE, [], ("admin", _status(
        allocation=_allocation(_result(adminAccess=True))))),
    "admin-access-already-granted": (FLIPPED_NAMESPACE, [
        ("admin", "PATCH", f"/api/v1/namespaces/{FLIPPED_NAMESPACE}",
         {"metadata": {"labels": {"resource.kubernetes.io/admin-access": "true"}}}),
        ("admin", _status(allocation=_allocation(_result(adminAccess=True)))),
        ("admin", "PATCH", f"/api/v1/namespaces/{FLIPPED_NAMESPACE}",
         {"metadata": {"labels": {"resource.kubernetes.io/admin-access": None}}}),
    ], ("admin", _status(reservedFor=[_CONSUMER]))),
    "binding-drv-allocation": (NAMESPACE, [], ("drv", _status(allocation=_allocation()))),
    "binding-drv-reserved-for": (NAMESPACE, [("admin", _status(allocation=_allocation()))],
                                 ("drv", _status(reservedFor=[_CONSUMER]))),
    "binding-drv-with-validation": (NAMESPACE, [], ("drv", _status(allocation=_allocation(_result(driver="Bad_Driver")),
                                                                   reservedFor=[{}]))),
    "binding-drv-put": (NAMESPACE, [], ("drv", "PUT", "status", _status(allocation=_allocation()))),
    "devices-sa-put": (NAMESPACE, [("admin", _status(allocation=_allocation()))],
                       ("sa-n1", "PUT", "status", _status(allocation=_allocation(), devices=[
                           _device(driver=NIC, device="dev")]))),
    "binding-drv-admin-access-and-devices": (NAMESPACE, [], ("drv", _status(
        allocation=_allocation(_result(adminAccess=True)), devices=[_device(), _device(driver=NIC)]))),
    "binding-drv-deallocates": (NAMESPACE, [("admin", _status(allocation=_allocation(), devices=[_device()]))],
                                ("drv", _status(allocation=None))),
    "binding-sa-deallocates": (NAMESPACE, [("admin", _status(allocation=_allocation(), reservedFor=[_CONSUMER],
                                                             devices=[_device()]))],
                               ("sa", _status(allocation=None, reservedFor=None))),
    "binding-sa-reserved-for": (NAMESPACE, [("admin", _status(allocation=_allocation()))],
                                ("sa", _status(reservedFor=[_CONSUMER]))),
    "binding-sa-allowed": (NAMESPACE, [], ("sa", _status(allocation=_allocation()))),
    "binding-sa-allowed-with-devices": (NAMESPACE, [], ("sa", _status(allocation=_allocation(),
                                                                      devices=[_device()]))),
    "devices-drv-unallocated": (NAMESPACE, [], ("drv", _status(devices=[_device()]))),
    "devices-sa-arbitrary-node": (NAMESPACE, [("admin", _status(allocation=_allocation()))],
                                  ("sa", _status(devices=[_device()]))),
    "devices-sa-two-drivers": (NAMESPACE, [("admin", _status(allocation=_TWO))], ("sa", _status(devices=[
        _device(driver=NIC, device="nic", conditions=[{"type": "Ready", "status": "Maybe"}]), _device()]))),
    "devices-sa-associated-node": (NAMESPACE, [("admin", _status(allocation=_allocation()))],
                                   ("sa-n1", _status(devices=[_device()]))),
    "devices-sa-associated-node-other-driver": (NAMESPACE, [("admin", _status(allocation=_TWO))], (
        "sa-n1", _status(devices=[_device(), _device(driver=NIC, device="nic")]))),
    "devices-sa-other-node": (NAMESPACE, [("admin", _status(allocation=_allocation()))],
                              ("sa-n2", _status(devices=[_device()]))),
    "devices-sa-node-selector-with-expressions": (NAMESPACE, [("admin", _status(allocation=_allocation(nodeSelector={
        "nodeSelectorTerms": [{"matchFields": ON_N1["nodeSelectorTerms"][0]["matchFields"],
                               "matchExpressions": [{"key": "k", "operator": "Exists"}]}]})))],
        ("sa-n1", _status(devices=[_device()]))),
    "devices-drv-removed": (NAMESPACE, [("admin", _status(allocation=_TWO, devices=[_device(driver=NIC, device="nic")]))],
                            ("drv", _status(devices=None))),
    "devices-drv-unchanged-but-zero-values": (NAMESPACE, [("admin", _status(allocation=_allocation(), devices=[
        _device(conditions=[_CONDITION], networkData={"interfaceName": "eth0"})]))], ("drv", _status(devices=[
            _device(conditions=[{**_CONDITION, "observedGeneration": 0}], networkData={
                "interfaceName": "eth0", "ips": [], "hardwareAddress": ""})]))),
    "devices-drv-share-id-empty": (NAMESPACE, [("admin", _status(allocation=_allocation(), devices=[_device()]))],
                                   ("drv", _status(devices=[_device(shareID="")]))),
    "devices-drv-unchanged": (NAMESPACE, [("admin", _status(allocation=_allocation(), devices=[_device()]))],
                              ("drv", _status(devices=[_device()]))),
    # -- ValidateResourceClaimStatusUpdate --------------------------------------------------------
    "reserved-for-required-fields": (NAMESPACE, [], ("admin", _status(allocation=_allocation(), reservedFor=[{}]))),
    "reserved-for-duplicate-uid": (NAMESPACE, [], ("admin", _status(allocation=_allocation(),
                                                                      reservedFor=[_CONSUMER, {**_CONSUMER, "name": "x"}]))),
    "reserved-for-without-allocation": (NAMESPACE, [], ("admin", _status(reservedFor=[_CONSUMER]))),
    "reserved-for-too-many": (NAMESPACE, [], ("admin", _status(allocation=_allocation(), reservedFor=[
        {**_CONSUMER, "uid": f"6b7e2f4c-0000-4000-8000-{i:012d}"} for i in range(257)]))),
    "reserved-for-added-while-deleting": (NAMESPACE, [
        ("admin", _status(allocation=_allocation(), reservedFor=[_CONSUMER])),
        ("admin", "DELETE", "", None),
    ], ("admin", _status(reservedFor=[_CONSUMER, _OTHER_CONSUMER]))),
    "reserved-for-removed-while-deleting": (NAMESPACE, [
        ("admin", _status(allocation=_allocation(), reservedFor=[_CONSUMER, _OTHER_CONSUMER])),
        ("admin", "DELETE", "", None),
    ], ("admin", _status(reservedFor=[_CONSUMER]))),
    "allocation-request-names": (NAMESPACE, [], ("admin", _status(allocation=_allocation(
        _result(request="nope"), _result(request="req/x", device="d1"), _result(request="multi/a", device="d2"),
        _result(request="multi/zz", device="d3"), _result(request="a/b/c", device="d4"),
        _result(request="Bad_Name", device="d5"), _result(request="", device="d6"))))),
    "allocation-driver-pool-device": (NAMESPACE, [], ("admin", _status(allocation=_allocation(
        _result(driver="", pool="", device=""), _result(driver="Bad_Driver", pool="a//b", device="Bad.Dev"),
        _result(driver="d" * 64 + ".com", pool="p" * 254, device="d" * 64),
        _result(driver="GPU.example.com", pool="a/b.c/Bad", device="dev2"))))),
    "allocation-binding-conditions": (NAMESPACE, [], ("admin", _status(allocation=_allocation(
        _result(bindingConditions=["a", "a", "bad key"], bindingFailureConditions=["a", "f", "f"]),
        _result(device="d1", bindingConditions=["a"]),
        _result(device="d2", bindingFailureConditions=["f"]),
        _result(device="d3", bindingConditions=["a", "b", "c", "d", "e"], bindingFailureConditions=[
            "f", "g", "h", "i", "j"]))))),
    "allocation-share-id": (NAMESPACE, [], ("admin", _status(allocation=_allocation(
        _result(shareID="not-a-uid"), _result(device="d1", shareID="6B7E2F4C-0000-4000-8000-000000000001"),
        _result(device="d2", shareID="6b7e2f4c00004000800000000000000a"),
        _result(device="d3", shareID="6b7e2f4c-0000-4000-8000-000000000001"))))),
    "allocation-share-id-forms": (NAMESPACE, [], ("admin", _status(allocation=_allocation(
        _result(shareID="urn:uuid:6b7e2f4c-0000-4000-8000-000000000001"),
        _result(device="d1", shareID="{6b7e2f4c-0000-4000-8000-000000000001}"),
        _result(device="d2", shareID="x" * 45), _result(device="d3", shareID="(" + "6" * 36 + ")"),
        _result(device="d4", shareID="g" * 32), _result(device="d5", shareID="6b7e2f4c+0000-4000-8000-000000000001"),
        _result(device="d6", shareID="6b7e2f4c-0000-4000-8000-00000000000g"))))),
    "allocation-config": (NAMESPACE, [], ("admin", _status(allocation=_allocation(config=[
        {"source": "", "requests": ["req", "req", "nope"], "opaque": {"driver": GPU, "parameters": {"a": 1}}},
        {"source": "Bogus", "opaque": {"driver": "Bad_Driver", "parameters": [1]}},
        {"source": "FromClass"},
        {"source": "FromClaim", "requests": ["multi/a"], "opaque": {"driver": GPU}},
        {"source": "FromClaim", "opaque": {"driver": GPU, "parameters": {"x": "y" * 10240}}}])))),
    "allocation-config-too-many": (NAMESPACE, [], ("admin", _status(allocation=_allocation(config=[
        {"source": "FromClaim", "requests": ["nope"]}] * 65)))),
    "allocation-results-too-many": (NAMESPACE, [], ("admin", _status(allocation=_allocation(
        *[_result(device=f"d{i}", driver="Bad_Driver") for i in range(33)])))),
    "allocation-node-selector": (NAMESPACE, [], ("admin", _status(allocation=_allocation(nodeSelector={
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.uid", "operator": "Exists", "values": ["x"]}],
                               "matchExpressions": [{"key": "bad key", "operator": "In"}]}]})))),
    "allocation-node-selector-empty": (NAMESPACE, [], ("admin", _status(allocation=_allocation(
        nodeSelector={"nodeSelectorTerms": []})))),
    "allocation-without-results": (NAMESPACE, [], ("admin", _status(allocation={"devices": {}}))),
    "allocation-immutable": (NAMESPACE, [("admin", _status(allocation=_allocation(
        _result(tolerations=[{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]),
        config=[{"source": "FromClaim", "requests": ["req"], "opaque": {"driver": GPU, "parameters": {"a": 1}}}],
        allocationTimestamp="2026-01-01T00:00:00Z")))],
        ("admin", _status(allocation=_allocation(_result(device="other"))))),
    "allocation-immutable-unchanged-reserved": (NAMESPACE, [("admin", _status(allocation=_allocation()))],
                                                ("admin", _status(reservedFor=[_CONSUMER]))),
    "allocation-removed-drops-devices": (NAMESPACE, [("admin", _status(allocation=_TWO, devices=[
        _device(), _device(driver=NIC, device="nic")]))], ("admin", _status(allocation=None))),
    "allocation-changed-drops-devices": (NAMESPACE, [("admin", _status(allocation=_TWO, devices=[
        _device(), _device(driver=NIC, device="nic")]))],
        ("admin", _status(allocation=_allocation(_result(driver=NIC, device="nic"))))),
    "devices-duplicate-and-names": (NAMESPACE, [], ("admin", _status(allocation=_allocation(), devices=[
        _device(), _device(), _device(driver="", pool="", device=""),
        _device(driver="Bad_Driver", pool="a//b", device="Bad.Dev", shareID="x"),
        _device(shareID="6b7e2f4c-0000-4000-8000-000000000001")]))),
    "devices-share-id-allocated": (NAMESPACE, [], ("admin", _status(allocation=_allocation(
        _result(shareID="6b7e2f4c-0000-4000-8000-000000000001")), devices=[
        _device(shareID="6b7e2f4c-0000-4000-8000-000000000001"), _device()]))),
    "devices-conditions": (NAMESPACE, [], ("admin", _status(allocation=_allocation(), devices=[_device(conditions=[
        {"type": "Bad Type", "status": "Maybe", "reason": "1bad", "lastTransitionTime": None},
        _CONDITION, _CONDITION, {"type": "", "status": ""}, {**_CONDITION, "observedGeneration": -1}])]))),
    "devices-conditions-too-many": (NAMESPACE, [], ("admin", _status(allocation=_allocation(), devices=[_device(
        conditions=[{**_CONDITION, "type": f"T{i}"} for i in range(9)])]))),
    "devices-data": (NAMESPACE, [], ("admin", _status(allocation=_TWO, devices=[
        _device(data=[1]), _device(driver=NIC, device="nic", data={"x": "y" * 10240})]))),
    "devices-data-valid": (NAMESPACE, [], ("admin", _status(allocation=_allocation(), devices=[
        _device(data={"a": 1}, networkData={"interfaceName": "eth0", "ips": ["10.0.0.1/24", "fd00::1/64"],
                                            "hardwareAddress": "aa:bb:cc:dd:ee:ff"})]))),
    "devices-network-data": (NAMESPACE, [], ("admin", _status(allocation=_allocation(), devices=[_device(networkData={
        "interfaceName": "i" * 257, "hardwareAddress": "h" * 129,
        "ips": ["10.0.0.1", "10.0.0.1/24", "10.0.0.1/24", "bogus/8", "10.0.0.01/24", "::1/129", "",
                "::ffff:10.0.0.1/120", "FD00::1/64", "fd00:0::1/64", "10.0.0.1/024"]})]))),
    "devices-network-data-too-many-ips": (NAMESPACE, [], ("admin", _status(allocation=_allocation(), devices=[
        _device(networkData={"ips": [f"10.0.0.{i}/24" for i in range(17)]})]))),
    "metadata-label-invalid": (NAMESPACE, [], ("admin", {"metadata": {"labels": {"bad key": "v"}},
                                                          "status": {"reservedFor": None}})),
}

CLAIM: Obj = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
              "metadata": {"name": "rc", "finalizers": ["example.com/keep"]},
              "spec": {"devices": {"requests": [
                  {"name": "req", "exactly": {"deviceClassName": "gpu"}},
                  {"name": "multi", "firstAvailable": [{"name": "a", "deviceClassName": "gpu"}]}]}}}
_RESOURCE = "/apis/rbac.authorization.k8s.io/v1"
_ROLES: list[tuple[str, Obj]] = [
    (f"{_RESOURCE}/clusterroles", {"metadata": {"name": "claim-status-drv"}, "rules": [
        {"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims", "resourceclaims/status"],
         "verbs": ["get", "update", "patch"]}]}),
    (f"{_RESOURCE}/clusterroles", {"metadata": {"name": "claim-status-binder"}, "rules": [
        {"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims/binding"], "verbs": ["patch"]},
        {"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims/driver"], "resourceNames": [GPU],
         "verbs": ["associated-node:patch"]}]}),
    (f"{_RESOURCE}/clusterrolebindings", {"metadata": {"name": "claim-status-drv"}, "roleRef": {
        "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "claim-status-drv"}, "subjects": [
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "drv"},
        {"kind": "ServiceAccount", "namespace": NAMESPACE, "name": "drv"}]}),
    (f"{_RESOURCE}/clusterrolebindings", {"metadata": {"name": "claim-status-binder"}, "roleRef": {
        "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "claim-status-binder"}, "subjects": [
        {"kind": "ServiceAccount", "namespace": NAMESPACE, "name": "drv"}]}),
]


def sender(kubeconfig: str) -> Send:
    """Sends as the kubeconfig's user, or impersonating one of USERS: (status, decoded body)."""
    return capture_validation.as_users(kubeconfig, USERS)


def prepare(send: Send) -> None:
    labelled = {"resource.kubernetes.io/admin-access": "true"}
    for name, labels in ((NAMESPACE, {}), (ADMIN_NAMESPACE, labelled), (FLIPPED_NAMESPACE, {})):
        send("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                            "metadata": {"name": name, "labels": labels}}, JSON)
    for collection, obj in _ROLES:
        kind = "ClusterRole" if collection.endswith("clusterroles") else "ClusterRoleBinding"
        status, body = send("POST", collection, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, **obj},
                            JSON)
        assert status in (201, 409), body


def _summary(status: int, body: Any) -> Obj:
    """What a case is held to: the refusal's message and causes, or what the status came to be."""
    if not isinstance(body, dict):
        return {"code": status, "body": body}
    if body.get("kind") == "Status":
        return {"code": status, "reason": body.get("reason"), "message": body.get("message"),
                "causes": (body.get("details") or {}).get("causes")}
    return {"code": status, "labels": (body.get("metadata") or {}).get("labels"), "status": body.get("status")}


def _sent(send: Send, namespace: str, step: Step, dry_run: bool) -> tuple[int, Any]:
    claim = _CLAIM_PATH.format(namespace=namespace)
    query = "?dryRun=All" if dry_run else ""
    if len(step) == 2:
        return send("PATCH", f"{claim}/status{query}", step[1], MERGE, step[0])
    user, method, path, body = step
    if method == "PUT":
        _, stored = send("GET", claim, None, JSON, "admin")
        return send("PUT", f"{claim}/{path}{query}", {**stored, **(body or {})}, JSON, user)
    return send(method, (path or claim) + query, body, MERGE if method == "PATCH" else JSON, user)


def run_case(send: Send, name: str) -> Obj:
    namespace, steps, last = CASES[name]
    claim = _CLAIM_PATH.format(namespace=namespace)
    _removed(send, claim)
    status, body = send("POST", claim.rsplit("/", 1)[0], CLAIM, JSON)
    if status != 201:
        return {"setup": _summary(status, body)}
    try:
        for i, step in enumerate(steps):
            status, body = _sent(send, namespace, step, False)
            if status >= 300:
                return {f"step {i}": _summary(status, body)}
        return _summary(*_sent(send, namespace, last, True))
    finally:
        _removed(send, claim)


def _removed(send: Send, claim: str) -> None:
    """The claim gone, its finalizer (which lets a case delete it and go on) taken off first."""
    send("PATCH", claim, {"metadata": {"finalizers": None}}, MERGE)
    send("DELETE", claim, None, JSON)


if __name__ == "__main__":
    patching.record_cases(sys.argv[1], sys.modules[__name__])
