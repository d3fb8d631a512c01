"""Records kube-apiserver's answers to admission policies and bindings written by users who may or may not
read the params they point at (pkg/registry/admissionregistration/*/authz.go), into
tests/fixtures/policy_param_access.json.

Usage: python tools/capture_policy_param_access.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
The users are impersonated from the kubeconfig's administrator: `pw` may write anything of
admissionregistration.k8s.io and nothing else (sent with two groups, and with an extra value in one
case, as the refusals print the user); `reader` may also get and list ConfigMaps everywhere; `ns-reader`
may get ConfigMaps in `default` only. Each case makes its setup as the administrator and answers its
last write with dryRun=All, so cases leave nothing behind that another reads.
tests/test_policy_param_access.py holds ours (apiserver/registry/admissionregistration/param_access.py) to
the answers.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import capture_patch_decoding as patching
import capture_validation

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "policy_param_access.json")
JSON = "application/json"
MERGE = "application/merge-patch+json"
GROUP = "/apis/admissionregistration.k8s.io/v1"
_WRITER = {"Impersonate-User": "pw", "Impersonate-Group": "team-a, team-b"}
USERS: dict[str, dict[str, str]] = {
    "admin": {},
    "pw": _WRITER,
    "pw-extra": {**_WRITER, "Impersonate-Extra-Example.com%2fteam": "blue, green"},
    "reader": {"Impersonate-User": "reader"},
    "ns-reader": {"Impersonate-User": "ns-reader"},
}
# (method, path, body, content type, user) -> (status, decoded body)
Send = Callable[[str, str, Any, str, str], tuple[int, Any]]
Obj = dict[str, Any]
# (user, method, collection or object path, body): a POST's body is the object, a PATCH's a merge patch
Step = tuple[str, str, str, Obj]

_RULES = {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                             "resources": ["pods"]}]}
_MUTATION = [{"patchType": "ApplyConfiguration", "applyConfiguration": {
    "expression": 'Object{metadata: Object.metadata{labels: {"checked": "yes"}}}'}}]


def _policy(name: str, param_kind: Obj | None = None, mutating: bool = False, **spec: Any) -> Obj:
    kind = "MutatingAdmissionPolicy" if mutating else "ValidatingAdmissionPolicy"
    body: Obj = {"matchConstraints": _RULES, **({"paramKind": param_kind} if param_kind else {})}
    if mutating:
        body.update(reinvocationPolicy="Never", mutations=_MUTATION)
    else:
        body["validations"] = [{"expression": "true"}]
    body.update(spec)
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": {"name": name}, "spec": body}


def _binding(name: str, policy: str, param_ref: Obj | None = None, mutating: bool = False) -> Obj:
    kind = "MutatingAdmissionPolicyBinding" if mutating else "ValidatingAdmissionPolicyBinding"
    spec: Obj = {"policyName": policy, **({"paramRef": param_ref} if param_ref else {})}
    if not mutating:
        spec["validationActions"] = ["Deny"]
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": {"name": name}, "spec": spec}


def _create(user: str, obj: Obj) -> Step:
    plural = {"ValidatingAdmissionPolicy": "validatingadmissionpolicies",
              "MutatingAdmissionPolicy": "mutatingadmissionpolicies",
              "ValidatingAdmissionPolicyBinding": "validatingadmissionpolicybindings",
              "MutatingAdmissionPolicyBinding": "mutatingadmissionpolicybindings"}[obj["kind"]]
    return user, "POST", f"{GROUP}/{plural}", obj


def _patch(user: str, obj: Obj, patch: Obj) -> Step:
    user, _, collection, _ = _create(user, obj)
    return user, "PATCH", f"{collection}/{obj['metadata']['name']}", patch


CONFIG_MAPS = {"apiVersion": "v1", "kind": "ConfigMap"}
SECRETS = {"apiVersion": "v1", "kind": "Secret"}
UNSERVED = {"apiVersion": "example.com/v1", "kind": "Nope"}
BY_NAME = {"name": "cfg", "namespace": "default", "parameterNotFoundAction": "Deny"}
BY_SELECTOR = {"namespace": "default", "selector": {}, "parameterNotFoundAction": "Deny"}
_WITH_CONFIG_MAPS = _policy("pa-with-config-maps", CONFIG_MAPS)
_WITH_SECRETS = _policy("pa-with-secrets", SECRETS)
_WITH_UNSERVED = _policy("pa-with-unserved", UNSERVED)
_WITHOUT_PARAMS = _policy("pa-without-params")
_MUTATING = _policy("pa-mutating", CONFIG_MAPS, mutating=True)

# name -> (setup as the administrator, the write answered with dryRun=All)
CASES: dict[str, tuple[list[Obj], Step]] = {
    # -- a policy's paramKind: get on every object of it --
    "policy-config-maps": ([], _create("pw", _policy("pa-p1", CONFIG_MAPS))),
    "policy-config-maps-user-extra": ([], _create("pw-extra", _policy("pa-p2", CONFIG_MAPS))),
    "policy-unserved-kind": ([], _create("pw", _policy("pa-p3", UNSERVED))),
    "policy-core-kind-without-group": ([], _create("pw", _policy("pa-p4", {"apiVersion": "apps/v1",
                                                                           "kind": "Deployment"}))),
    "policy-without-params": ([], _create("pw", _policy("pa-p5"))),
    "policy-reader": ([], _create("reader", _policy("pa-p6", CONFIG_MAPS))),
    "policy-namespace-reader": ([], _create("ns-reader", _policy("pa-p7", CONFIG_MAPS))),
    "policy-admin": ([], _create("admin", _policy("pa-p8", CONFIG_MAPS))),
    "policy-invalid-with-params": ([], _create("pw", _policy("pa-p9", CONFIG_MAPS, matchConstraints=None))),
    "policy-update-keeps-param-kind": ([_WITH_CONFIG_MAPS], _patch("pw", _WITH_CONFIG_MAPS, {"spec": {
        "validations": [{"expression": "false"}]}})),
    "policy-update-changes-param-kind": ([_WITH_SECRETS], _patch("pw", _WITH_SECRETS, {"spec": {
        "paramKind": CONFIG_MAPS}})),
    "policy-update-drops-param-kind": ([_WITH_SECRETS], _patch("pw", _WITH_SECRETS, {"spec": {"paramKind": None}})),
    "mutating-policy-config-maps": ([], _create("pw", _policy("pa-m1", CONFIG_MAPS, mutating=True))),
    # -- a binding's paramRef: get on the object it names, or list --
    "binding-by-name": ([_WITH_CONFIG_MAPS], _create("pw", _binding("pa-b1", "pa-with-config-maps", BY_NAME))),
    "binding-by-selector": ([_WITH_CONFIG_MAPS], _create("pw", _binding("pa-b2", "pa-with-config-maps",
                                                                         BY_SELECTOR))),
    "binding-missing-policy": ([], _create("pw", _binding("pa-b3", "pa-nowhere", BY_NAME))),
    "binding-unserved-param-kind": ([_WITH_UNSERVED], _create("pw", _binding("pa-b4", "pa-with-unserved", BY_NAME))),
    "binding-policy-without-params": ([_WITHOUT_PARAMS], _create("pw", _binding("pa-b5", "pa-without-params",
                                                                               BY_NAME))),
    "binding-without-param-ref": ([_WITH_CONFIG_MAPS], _create("pw", _binding("pa-b6", "pa-with-config-maps"))),
    "binding-namespace-reader-by-name": ([_WITH_CONFIG_MAPS], _create("ns-reader", _binding(
        "pa-b7", "pa-with-config-maps", BY_NAME))),
    "binding-namespace-reader-by-selector": ([_WITH_CONFIG_MAPS], _create("ns-reader", _binding(
        "pa-b8", "pa-with-config-maps", BY_SELECTOR))),
    "binding-namespace-reader-other-namespace": ([_WITH_CONFIG_MAPS], _create("ns-reader", _binding(
        "pa-b9", "pa-with-config-maps", {**BY_NAME, "namespace": "kube-system"}))),
    "binding-update-same-param-ref": ([_WITH_CONFIG_MAPS, _binding("pa-b10", "pa-with-config-maps", BY_NAME)],
                                      _patch("pw", _binding("pa-b10", "pa-with-config-maps"), {"spec": {
                                          "validationActions": ["Warn"]}})),
    "mutating-binding-by-name": ([_MUTATING], _create("pw", _binding("pa-mb1", "pa-mutating", BY_NAME,
                                                                     mutating=True))),
    "mutating-binding-missing-policy": ([], _create("pw", _binding("pa-mb2", "pa-nowhere", BY_NAME, mutating=True))),
}

_ROLES: list[tuple[str, Obj]] = [
    ("clusterroles", {"metadata": {"name": "pa-policy-writer"}, "rules": [
        {"apiGroups": ["admissionregistration.k8s.io"], "resources": ["*"], "verbs": ["*"]}]}),
    ("clusterroles", {"metadata": {"name": "pa-config-map-reader"}, "rules": [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]}),
    ("clusterrolebindings", {"metadata": {"name": "pa-policy-writers"}, "roleRef": {
        "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "pa-policy-writer"}, "subjects": [
        {"kind": "User", "name": user, "apiGroup": "rbac.authorization.k8s.io"}
        for user in ("pw", "reader", "ns-reader")]}),
    ("clusterrolebindings", {"metadata": {"name": "pa-config-map-readers"}, "roleRef": {
        "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "pa-config-map-reader"}, "subjects": [
        {"kind": "User", "name": "reader", "apiGroup": "rbac.authorization.k8s.io"}]}),
    ("namespaces/default/rolebindings", {"metadata": {"name": "pa-config-map-readers"}, "roleRef": {
        "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "pa-config-map-reader"}, "subjects": [
        {"kind": "User", "name": "ns-reader", "apiGroup": "rbac.authorization.k8s.io"}]}),
]


def sender(kubeconfig: str) -> Send:
    """Sends as the kubeconfig's user, or impersonating one of USERS: (status, decoded body)."""
    return capture_validation.as_users(kubeconfig, USERS)


def prepare(send: Send) -> None:
    for collection, obj in _ROLES:
        kind = {"clusterroles": "ClusterRole", "clusterrolebindings": "ClusterRoleBinding"}.get(
            collection, "RoleBinding")
        status, body = send("POST", f"/apis/rbac.authorization.k8s.io/v1/{collection}",
                            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, **obj}, JSON)
        assert status in (201, 409), body


def _summary(status: int, body: Any) -> Obj:
    """What a case is held to: the refusal's reason, message and causes, or that the write was taken."""
    if isinstance(body, dict) and body.get("kind") == "Status":
        return {"code": status, "reason": body.get("reason"), "message": body.get("message"),
                "causes": (body.get("details") or {}).get("causes")}
    return {"code": status}


def run_case(send: Send, name: str) -> Obj:
    setup, (user, method, path, body) = CASES[name]
    made = []
    try:
        for obj in setup:
            _, _, collection, _ = _create("admin", obj)
            status, answer = send("POST", collection, obj, JSON)
            if status != 201:
                return {"setup": _summary(status, answer)}
            made.append(f"{collection}/{obj['metadata']['name']}")
        return _summary(*send(method, f"{path}?dryRun=All", body, MERGE if method == "PATCH" else JSON, user))
    finally:
        for path in reversed(made):
            send("DELETE", path, None, JSON)


if __name__ == "__main__":
    patching.record_cases(sys.argv[1], sys.modules[__name__])
