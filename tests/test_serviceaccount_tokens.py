"""ServiceAccount tokens: issued by `kubectl create token`, accepted as the ServiceAccount, refused
(401, nothing written) once expired, forged, for another audience, or outliving their ServiceAccount
or bound object."""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from hypothesis import given, settings
from hypothesis import strategies as st

from keepalive import Connection
from support import ServerProcess, run_kubectl

CM = "/api/v1/namespaces/default/configmaps"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _claims(token: str) -> dict[str, Any]:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def _resign(server: ServerProcess, token: str, key: rsa.RSAPrivateKey | None = None, **changes: object) -> str:
    """The token with its claims changed and signed again, by the server's key unless another is given."""
    if key is None:
        with open(os.path.join(server.data_dir, "pki", "sa.key"), "rb") as f:
            loaded = serialization.load_pem_private_key(f.read(), password=None)
        assert isinstance(loaded, rsa.RSAPrivateKey)
        key = loaded
    header = token.split(".")[0]
    signing_input = f"{header}.{_b64(orjson.dumps({**_claims(token), **changes}))}"
    return f"{signing_input}.{_b64(key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256()))}"


def _create_token(server: ServerProcess, *args: str) -> str:
    return run_kubectl(server, "create", "token", *args).stdout.strip()


@pytest.fixture(scope="module")
def bot(shared_server: ServerProcess) -> Iterator[str]:
    """A ServiceAccount that may edit the default namespace, and a token for it."""
    run_kubectl(shared_server, "create", "serviceaccount", "bot")
    run_kubectl(shared_server, "create", "rolebinding", "bot-edit", "--clusterrole=edit",
                "--serviceaccount=default:bot")
    yield _create_token(shared_server, "bot")


def _status_of(server: ServerProcess, token: str, method: str = "GET", path: str = CM,
               body: bytes | None = None) -> tuple[int, dict[str, Any]]:
    conn = Connection(server, token)
    try:
        status, _, raw = conn.request(method, path, body)
    finally:
        conn.close()
    return status, json.loads(raw)


def _refused_and_nothing_written(server: ServerProcess, token: str, name: str) -> None:
    body = json.dumps({"metadata": {"name": name}}).encode()
    status, answer = _status_of(server, token, "POST", CM, body)
    assert (status, answer["reason"], answer["message"]) == (401, "Unauthorized", "Unauthorized")
    assert run_kubectl(server, "get", "configmap", name, check=False).returncode != 0


def test_a_created_token_speaks_for_its_serviceaccount(shared_server: ServerProcess, bot: str) -> None:
    claims = _claims(bot)
    assert claims["sub"] == "system:serviceaccount:default:bot"
    assert claims["aud"] == ["https://kubernetes.default.svc.cluster.local"]
    assert claims["exp"] - claims["iat"] == 3600
    whoami = json.loads(run_kubectl(shared_server, "--token", bot, "auth", "whoami", "-o", "json").stdout)
    info = whoami["status"]["userInfo"]
    assert (info["username"], info["groups"], info["extra"]) == (
        "system:serviceaccount:default:bot",
        ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
        {"authentication.kubernetes.io/credential-id": [f"JTI={claims['jti']}"]})
    created = run_kubectl(shared_server, "--token", bot, "create", "configmap", "from-bot")
    assert created.stdout.strip() == "configmap/from-bot created"
    denied = run_kubectl(shared_server, "--token", bot, "get", "secrets", "-n", "kube-system", check=False)
    assert denied.stderr.strip() == (
        'Error from server (Forbidden): secrets is forbidden: User "system:serviceaccount:default:bot" cannot list '
        'resource "secrets" in API group "" in the namespace "kube-system"')


@pytest.mark.parametrize("case", ["expired", "not-yet-valid", "other-issuer", "forged", "other-audience"])
def test_a_token_that_does_not_hold_is_refused(shared_server: ServerProcess, bot: str, case: str) -> None:
    now = int(time.time())
    token = {
        "expired": lambda: _resign(shared_server, bot, exp=now - 1),
        "not-yet-valid": lambda: _resign(shared_server, bot, nbf=now + 600),
        "other-issuer": lambda: _resign(shared_server, bot, iss="https://elsewhere.example"),
        "forged": lambda: _resign(shared_server, bot, rsa.generate_private_key(public_exponent=65537, key_size=2048)),
        "other-audience": lambda: _create_token(shared_server, "bot", "--audience=vault"),
    }[case]()
    _refused_and_nothing_written(shared_server, token, f"never-{case}")


def test_token_review_accepts_a_token_for_the_audience_it_names(shared_server: ServerProcess) -> None:
    token = _create_token(shared_server, "bot", "--audience=vault")
    path = "/apis/authentication.k8s.io/v1/tokenreviews"
    status, answer = _status_of(shared_server, shared_server.token, "POST", path,
                                json.dumps({"spec": {"token": token, "audiences": ["vault"]}}).encode())
    assert status == 201
    assert answer["status"]["authenticated"] is True
    assert answer["status"]["audiences"] == ["vault"]
    status, answer = _status_of(shared_server, shared_server.token, "POST", path,
                                json.dumps({"spec": {"token": token}}).encode())
    # Not authenticated for the API's own audience (the error's wording, the authenticators'
    # aggregated errors upstream, is not ported).
    assert answer["status"]["user"] == {} and "authenticated" not in answer["status"]


def test_deleting_the_serviceaccount_revokes_its_tokens(shared_server: ServerProcess) -> None:
    run_kubectl(shared_server, "create", "serviceaccount", "short-lived")
    run_kubectl(shared_server, "create", "rolebinding", "short-lived-edit", "--clusterrole=edit",
                "--serviceaccount=default:short-lived")
    token = _create_token(shared_server, "short-lived")
    assert _status_of(shared_server, token)[0] == 200
    run_kubectl(shared_server, "delete", "serviceaccount", "short-lived")
    _refused_and_nothing_written(shared_server, token, "after-sa-deleted")
    # A new ServiceAccount of the same name is another account: the old token stays refused.
    run_kubectl(shared_server, "create", "serviceaccount", "short-lived")
    _refused_and_nothing_written(shared_server, token, "after-sa-recreated")


def test_a_token_bound_to_a_pod_ends_with_the_pod(shared_server: ServerProcess, bot: str) -> None:
    refused = run_kubectl(shared_server, "create", "token", "bot", "--bound-object-kind=Pod",
                          "--bound-object-name=runner", check=False)
    assert refused.stderr.strip() == 'error: failed to create token: pods "runner" not found'
    run_kubectl(shared_server, "run", "runner", "--image=busybox",
                '--overrides={"spec": {"serviceAccountName": "bot"}}')
    token = _create_token(shared_server, "bot", "--bound-object-kind=Pod", "--bound-object-name=runner")
    assert _claims(token)["kubernetes.io"]["pod"]["name"] == "runner"
    assert _status_of(shared_server, token)[0] == 200
    run_kubectl(shared_server, "delete", "pod", "runner", "--grace-period=0", "--force")
    _refused_and_nothing_written(shared_server, token, "after-pod-deleted")


def test_a_token_bound_to_a_scheduled_pod_names_pod_and_node_as_extras(shared_server: ServerProcess,
                                                                       bot: str) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "worker-7"}}
    run_kubectl(shared_server, "apply", "-f", "-", stdin=json.dumps(node))
    run_kubectl(shared_server, "run", "placed", "--image=busybox",
                '--overrides={"spec": {"serviceAccountName": "bot", "nodeName": "worker-7"}}')
    uids = {kind: run_kubectl(shared_server, "get", kind, name, "-o", "jsonpath={.metadata.uid}").stdout
            for kind, name in (("node", "worker-7"), ("pod", "placed"))}
    token = _create_token(shared_server, "bot", "--bound-object-kind=Pod", "--bound-object-name=placed")
    claims = _claims(token)
    assert claims["kubernetes.io"]["node"] == {"name": "worker-7", "uid": uids["node"]}
    whoami = json.loads(run_kubectl(shared_server, "--token", token, "auth", "whoami", "-o", "json").stdout)
    assert whoami["status"]["userInfo"]["extra"] == {
        "authentication.kubernetes.io/credential-id": [f"JTI={claims['jti']}"],
        "authentication.kubernetes.io/node-name": ["worker-7"],
        "authentication.kubernetes.io/node-uid": [uids["node"]],
        "authentication.kubernetes.io/pod-name": ["placed"],
        "authentication.kubernetes.io/pod-uid": [uids["pod"]]}
    # The node only says where the pod ran: the token holds while the pod does, node or no node.
    run_kubectl(shared_server, "delete", "node", "worker-7")
    assert _status_of(shared_server, token)[0] == 200
    run_kubectl(shared_server, "delete", "pod", "placed", "--grace-period=0", "--force")
    _refused_and_nothing_written(shared_server, token, "after-placed-pod-deleted")


@pytest.mark.parametrize("args, message", [
    (("--duration=5m",), 'error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: '
                         'spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes'),
    (("--bound-object-kind=Node", "--bound-object-name=n"), 'error: failed to create token: nodes "n" not found'),
    (("--bound-object-kind=Secret", "--bound-object-name=s"),
     'error: failed to create token: secrets "s" not found'),
])
def test_token_requests_are_checked(shared_server: ServerProcess, bot: str, args: tuple[str, ...],
                                    message: str) -> None:
    result = run_kubectl(shared_server, "create", "token", "bot", *args, check=False)
    assert result.stderr.strip() == message


@settings(max_examples=200, deadline=None, database=None)
@given(st.one_of(
    st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=300),
    st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+/", max_size=120),
             min_size=3, max_size=3).map(".".join),
    st.tuples(st.integers(min_value=0, max_value=400), st.sampled_from("aAzZ09-_.")),
))
def test_fuzzed_tokens_are_refused(fuzz_server: tuple[ServerProcess, str, Connection], case: object) -> None:
    server, valid, conn = fuzz_server
    if isinstance(case, tuple):
        # A valid token with one character changed.
        position, replacement = case
        position %= len(valid)
        token = valid[:position] + replacement + valid[position + 1:]
        if token == valid:
            return
    else:
        assert isinstance(case, str)
        token = case
    before = conn.request("GET", CM)[2]
    fuzzed = Connection(server, token)
    try:
        status, _, raw = fuzzed.request("POST", CM, b'{"metadata":{"name":"fuzzed"}}')
    finally:
        fuzzed.close()
    assert status == 401, raw
    assert json.loads(raw)["message"] == "Unauthorized"
    assert conn.request("GET", CM)[2] == before


@pytest.fixture(scope="module")
def fuzz_server(shared_server: ServerProcess, bot: str) -> Iterator[tuple[ServerProcess, str, Connection]]:
    conn = Connection(shared_server)
    yield shared_server, bot, conn
    conn.close()
