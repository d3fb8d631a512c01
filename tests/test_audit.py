"""The audit log: audit.k8s.io/v1 Event lines naming every write with user, verb, resource and code,
under upstream's policy format, and never a token."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest

from keepalive import Connection
from support import ServerProcess, run_kubectl

BOB = "bob-audit-token-0123456789"
POLICY = """
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/api*", "/openapi*", "/version"]
- level: RequestResponse
  resources:
  - group: ""
    resources: [configmaps]
- level: Request
  resources:
  - group: authentication.k8s.io
    resources: [tokenreviews]
  - group: ""
    resources: [serviceaccounts/token]
- level: Metadata
"""


def _events(server: ServerProcess) -> list[dict[str, Any]]:
    with open(os.path.join(server.data_dir, "audit.log")) as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    data_dir = str(tmp_path_factory.mktemp("server"))
    with open(os.path.join(data_dir, "policy.yaml"), "w") as f:
        f.write(POLICY)
    proc = ServerProcess(data_dir, extra_args=["--audit-log-path", os.path.join(data_dir, "audit.log"),
                                               "--audit-policy-file", os.path.join(data_dir, "policy.yaml")])
    proc.start()
    with open(os.path.join(data_dir, "pki", "tokens.csv"), "a") as f:
        f.write(f"{BOB},bob,bob-uid\n")
    try:
        yield proc
    finally:
        proc.stop()


def test_every_write_is_named_with_user_verb_resource_and_code(audited: ServerProcess) -> None:
    run_kubectl(audited, "create", "configmap", "audited", "--from-literal=k=v")
    run_kubectl(audited, "create", "serviceaccount", "bot")
    sa_token = run_kubectl(audited, "create", "token", "bot").stdout.strip()
    run_kubectl(audited, "--token", BOB, "delete", "configmap", "audited", check=False)
    conn = Connection(audited)
    try:
        conn.request("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                     json.dumps({"spec": {"token": sa_token}}).encode())
    finally:
        conn.close()
    run_kubectl(audited, "--token", sa_token, "get", "pods", check=False)
    events = _events(audited)
    assert all(e["kind"] == "Event" and e["apiVersion"] == "audit.k8s.io/v1" for e in events)
    assert {e["stage"] for e in events} == {"ResponseComplete"}
    writes = [(e["user"].get("username"), e["verb"], e["objectRef"].get("resource"),
               e["objectRef"].get("name"), e["responseStatus"]["code"])
              for e in events if e["verb"] in ("create", "update", "patch", "delete")]
    assert writes == [
        ("admin", "create", "configmaps", "audited", 201),
        ("admin", "create", "serviceaccounts", "bot", 201),
        ("admin", "create", "serviceaccounts", "bot", 201),
        ("bob", "delete", "configmaps", "audited", 403),
        ("admin", "create", "tokenreviews", None, 201),
    ]
    created = next(e for e in events if e["verb"] == "create" and e["objectRef"]["resource"] == "configmaps")
    assert created["level"] == "RequestResponse"
    assert created["requestObject"]["data"] == {"k": "v"}
    assert created["responseObject"]["metadata"]["name"] == "audited"
    sa_read = [e for e in events if e["user"].get("username") == "system:serviceaccount:default:bot"]
    assert [(e["verb"], e["responseStatus"]["code"]) for e in sa_read] == [("list", 403)]
    jti = json.loads(base64.urlsafe_b64decode(sa_token.split(".")[1] + "=="))["jti"]
    assert sa_read[0]["user"]["extra"] == {"authentication.kubernetes.io/credential-id": [f"JTI={jti}"]}
    assert not any(e["requestURI"].startswith(("/api?", "/apis?", "/version")) or e["requestURI"] in ("/api", "/apis")
                   for e in events)
    with open(os.path.join(audited.data_dir, "audit.log")) as f:
        text = f.read()
    for token in (audited.token, BOB, sa_token, sa_token.split(".")[2]):
        assert token not in text


def test_a_bad_policy_stops_the_start(tmp_path: object) -> None:
    data_dir = str(tmp_path)
    with open(os.path.join(data_dir, "policy.yaml"), "w") as f:
        f.write("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n")
    proc = ServerProcess(data_dir, extra_args=["--audit-log-path", "-",
                                               "--audit-policy-file", os.path.join(data_dir, "policy.yaml")])
    with pytest.raises(RuntimeError) as failed:
        proc.start(timeout=20)
    assert "rules[0].level must be one of None, Metadata, Request, RequestResponse" in str(failed.value)


def test_a_watch_is_recorded_when_it_starts_and_when_it_ends(audited: ServerProcess) -> None:
    conn = Connection(audited)
    try:
        status, _, _ = conn.request("GET", "/api/v1/namespaces/kube-system/configmaps?watch=1&timeoutSeconds=1")
    finally:
        conn.close()
    assert status == 200
    watches = [e for e in _events(audited) if e["verb"] == "watch"]
    assert [e["stage"] for e in watches] == ["ResponseStarted", "ResponseComplete"]
    assert watches[0]["auditID"] == watches[1]["auditID"]
    assert watches[1]["objectRef"] == {"resource": "configmaps", "namespace": "kube-system", "apiVersion": "v1"}
