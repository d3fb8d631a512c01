"""Records kube-apiserver's answers to TokenRequests (POST serviceaccounts/NAME/token) into
tests/fixtures/token_request.json: bodies of other kinds and versions, mistyped and unknown fields, names,
namespaces and uids that do not match, expirations out of range, objects to bind the token to, and what
an accepted request comes back as (its metadata kept, the service account's uid, managedFields).

Usage: python tools/capture_token_request.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
An answer keeps the status, a refusal's message, and an accepted request without its token, times and
uids; an audience the server chose itself is "<api audience>", as each server's is its own
(--api-audiences). tests/test_token_request.py holds ours (apiserver/auth/serviceaccounts.py,
apiserver/http/app.py) to them.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from typing import Any

import capture_patch_decoding as patching
import capture_validation

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "token_request.json")
JSON = "application/json"
NAMESPACE = "token-requests"
ACCOUNT = "robot"
TOKEN_PATH = f"/api/v1/namespaces/{NAMESPACE}/serviceaccounts/{{account}}/token"
# (method, path, body, content type) -> (status, decoded body)
Send = Callable[..., tuple[int, Any]]
Obj = dict[str, Any]
_UID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _request(spec: Obj | None = None, **meta: Any) -> Obj:
    body: Obj = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec or {}}
    if meta:
        body["metadata"] = meta
    return body


def _bound(kind: str, name: str, api_version: str = "v1", **ref: Any) -> Obj:
    return _request({"boundObjectRef": {"kind": kind, "apiVersion": api_version, "name": name, **ref}})


# name -> (query, body, service account)
CASES: dict[str, tuple[str, Any, str]] = {
    "no-type-meta": ("", {"spec": {}}, ACCOUNT),
    "a-pod": ("", {"apiVersion": "v1", "kind": "Pod", "spec": {}}, ACCOUNT),
    "core-version": ("", {**_request(), "apiVersion": "v1"}, ACCOUNT),
    "v1beta1": ("", {**_request(), "apiVersion": "authentication.k8s.io/v1beta1"}, ACCOUNT),
    "a-token-review": ("", {**_request(), "kind": "TokenReview"}, ACCOUNT),
    "not-an-object": ("", [1, 2], ACCOUNT),
    "spec-null": ("", {**_request(), "spec": None}, ACCOUNT),
    "expiration-a-string": ("", _request({"expirationSeconds": "3600"}), ACCOUNT),
    "expiration-zero": ("", _request({"expirationSeconds": 0}), ACCOUNT),
    "expiration-too-long": ("", _request({"expirationSeconds": 2**33}), ACCOUNT),
    "expiration-and-audiences": ("", _request({"expirationSeconds": 700, "audiences": ["vault", "s3"]}), ACCOUNT),
    "unknown-field-strict": ("?fieldValidation=Strict", _request({"bogus": 1}), ACCOUNT),
    "unknown-field-warn": ("?fieldValidation=Warn", _request({"bogus": 1}), ACCOUNT),
    "metadata-kept": ("", _request({}, labels={"team": "a"}, annotations={"why": "ci"}, generateName="t-"),
                      ACCOUNT),
    "managed-fields-given": ("", _request({}, managedFields=[{"manager": "x", "operation": "Update",
                                                               "apiVersion": "authentication.k8s.io/v1",
                                                               "fieldsType": "FieldsV1", "fieldsV1": {}}]),
                             ACCOUNT),
    "field-manager": ("?fieldManager=minter", _request({"audiences": ["vault"]}), ACCOUNT),
    "name-mismatch": ("", _request({}, name="someone"), ACCOUNT),
    "namespace-mismatch": ("", _request({}, namespace="elsewhere"), ACCOUNT),
    "uid-mismatch": ("", _request({}, uid="4f0c8a52-0000-4000-8000-000000000001"), ACCOUNT),
    "account-missing": ("", _request(), "nobody"),
    "account-missing-and-bad-expiration": ("", _request({"expirationSeconds": 1}), "nobody"),
    "bound-pod-missing": ("", _bound("Pod", "nopod"), ACCOUNT),
    "bound-pod-no-version": ("", _bound("Pod", "nopod", ""), ACCOUNT),
    "bound-pod-other-version": ("", _bound("Pod", "nopod", "v2"), ACCOUNT),
    "bound-pod-other-group": ("", _bound("Pod", "nopod", "apps/v1"), ACCOUNT),
    "bound-pod-bad-version": ("", _bound("Pod", "nopod", "a/b/c"), ACCOUNT),
    "bound-config-map": ("", _bound("ConfigMap", "cm"), ACCOUNT),
    "bound-pod-other-account": ("", _bound("Pod", "worker"), "other"),
    "bound-pod": ("", _bound("Pod", "worker"), ACCOUNT),
    "bound-pod-wrong-uid": ("", _bound("Pod", "worker", uid="4f0c8a52-0000-4000-8000-000000000002"), ACCOUNT),
    "bound-secret-missing": ("", _bound("Secret", "nosecret"), ACCOUNT),
    "bound-node-missing": ("", _bound("Node", "nonode"), ACCOUNT),
    "dry-run": ("?dryRun=All", _request({"audiences": ["vault"]}), ACCOUNT),
}


def sender(kubeconfig: str) -> Send:
    return capture_validation.as_users(kubeconfig, {"admin": {}})


def prepare(send: Send) -> None:
    for path, obj in (
            ("/api/v1/namespaces", {"kind": "Namespace", "metadata": {"name": NAMESPACE}}),
            (f"/api/v1/namespaces/{NAMESPACE}/serviceaccounts", {"kind": "ServiceAccount",
                                                                 "metadata": {"name": ACCOUNT}}),
            (f"/api/v1/namespaces/{NAMESPACE}/serviceaccounts", {"kind": "ServiceAccount",
                                                                 "metadata": {"name": "other"}}),
            (f"/api/v1/namespaces/{NAMESPACE}/pods", {"kind": "Pod", "metadata": {"name": "worker"}, "spec": {
                "serviceAccountName": ACCOUNT, "containers": [{"name": "app", "image": "registry.example/app:1"}]}})):
        status, body = send("POST", path, {"apiVersion": "v1", **obj}, JSON)
        assert status in (201, 409), body


def _audiences(audiences: list[str], default: str) -> list[str]:
    return ["<api audience>" if a == default else a for a in audiences]


def run_case(send: Send, name: str) -> Obj:
    query, body, account = CASES[name]
    status, answer = send("POST", TOKEN_PATH.format(account=account) + query, body, JSON)
    if not isinstance(answer, dict) or answer.get("kind") == "Status":
        message = (answer or {}).get("message") if isinstance(answer, dict) else answer
        return {"code": status, "message": _UID.sub("UID", message) if isinstance(message, str) else message}
    meta = dict(answer["metadata"])
    assert _UID.fullmatch(meta.pop("uid", "")) and meta.pop("creationTimestamp", None), answer
    for entry in meta.get("managedFields") or ():
        entry.pop("time", None)
    _, default = send("POST", TOKEN_PATH.format(account=ACCOUNT), _request(), JSON)
    spec = {**answer["spec"], "audiences": _audiences(answer["spec"]["audiences"], default["spec"]["audiences"][0])}
    status_fields = sorted(answer["status"])
    return {"code": status, "keys": list(answer), "metadata": meta, "spec": spec, "status": status_fields}


if __name__ == "__main__":
    patching.record_cases(sys.argv[1], sys.modules[__name__])
