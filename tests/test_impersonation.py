"""Impersonation (kubectl --as, --as-group) checked against the impersonate verb, and --anonymous-auth."""

from __future__ import annotations

import base64
import http.client
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from hypothesis import given, settings
from hypothesis import strategies as st
from keepalive import Connection
from support import ServerProcess, run_kubectl

BOB = "bob-token-0123456789"


@pytest.fixture(scope="module")
def anonymous_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(str(tmp_path_factory.mktemp("server")), extra_args=["--anonymous-auth"])
    proc.start()
    with open(os.path.join(proc.data_dir, "pki", "tokens.csv"), "a") as f:
        f.write(f"{BOB},bob,bob-uid\n")
    run_kubectl(proc, "create", "rolebinding", "bob-view", "--clusterrole=view", "--user=bob")
    run_kubectl(proc, "create", "rolebinding", "qa-edit", "--clusterrole=edit", "--group=qa")
    try:
        yield proc
    finally:
        proc.stop()


def _kubectl(server: ServerProcess, *args: str) -> tuple[int, str]:
    result = run_kubectl(server, *args, check=False)
    return result.returncode, (result.stdout + result.stderr).strip()


def test_an_admin_acts_as_another_user_with_their_rights(anonymous_server: ServerProcess) -> None:
    assert _kubectl(anonymous_server, "get", "configmaps", "--as", "bob") == (
        0, "No resources found in default namespace.")
    assert _kubectl(anonymous_server, "create", "configmap", "x", "--as", "bob") == (
        1, 'error: failed to create configmap: configmaps is forbidden: User "bob" cannot create resource '
           '"configmaps" in API group "" in the namespace "default"')
    assert _kubectl(anonymous_server, "create", "configmap", "x", "--as", "bob", "--as-group", "qa") == (
        0, "configmap/x created")
    assert _kubectl(anonymous_server, "auth", "can-i", "delete", "configmaps", "--as", "someone", "--as-group",
                    "qa") == (0, "yes")


def test_impersonated_identity_as_whoami_shows_it(anonymous_server: ServerProcess) -> None:
    code, out = _kubectl(anonymous_server, "auth", "whoami", "-o", "json", "--as",
                         "system:serviceaccount:default:robot")
    assert code == 0, out
    assert json.loads(out)["status"]["userInfo"] == {
        "username": "system:serviceaccount:default:robot",
        "groups": ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"]}


@pytest.mark.parametrize("args, message", [
    (("--as", "carol"),
     'Error from server (Forbidden): users "carol" is forbidden: User "bob" cannot impersonate resource "users" '
     'in API group "" at the cluster scope'),
    (("--as", "system:serviceaccount:kube-system:root"),
     'Error from server (Forbidden): serviceaccounts "root" is forbidden: User "bob" cannot impersonate resource '
     '"serviceaccounts" in API group "" in the namespace "kube-system"'),
])
def test_impersonating_needs_the_impersonate_verb(anonymous_server: ServerProcess, args: tuple[str, ...],
                                                  message: str) -> None:
    assert _kubectl(anonymous_server, "--token", BOB, "get", "configmaps", *args) == (1, message)


def test_impersonate_may_be_granted_per_name(anonymous_server: ServerProcess) -> None:
    run_kubectl(anonymous_server, "create", "clusterrole", "be-dave", "--verb=impersonate", "--resource=users",
                "--resource-name=dave")
    run_kubectl(anonymous_server, "create", "clusterrolebinding", "bob-be-dave", "--clusterrole=be-dave",
                "--user=bob")
    run_kubectl(anonymous_server, "create", "rolebinding", "dave-view", "--clusterrole=view", "--user=dave")
    assert _kubectl(anonymous_server, "--token", BOB, "get", "configmaps", "-o", "name", "--as", "dave") == (
        0, "configmap/x")
    code, out = _kubectl(anonymous_server, "--token", BOB, "get", "configmaps", "--as", "dave", "--as-group", "qa")
    assert (code, out) == (1, 'Error from server (Forbidden): groups "qa" is forbidden: User "bob" cannot '
                              'impersonate resource "groups" in API group "" at the cluster scope')


def test_anonymous_requests_see_what_the_bootstrap_policy_grants(anonymous_server: ServerProcess) -> None:
    conn = Connection(anonymous_server, "")
    try:
        conn.token = ""
        answers = {}
        for path in ("/version", "/api", "/api/v1/namespaces/default/configmaps"):
            status, _, body = conn.request("GET", path, headers={"Authorization": ""})
            answers[path] = (status, json.loads(body).get("message"))
    finally:
        conn.close()
    assert answers["/version"][0] == 200
    assert answers["/api"] == (403, 'forbidden: User "system:anonymous" cannot get path "/api"')
    assert answers["/api/v1/namespaces/default/configmaps"] == (
        403, 'configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" '
             'in the namespace "default"')


def test_without_anonymous_auth_no_credentials_is_401(shared_server: ServerProcess) -> None:
    conn = Connection(shared_server, "")
    try:
        status, _, body = conn.request("GET", "/version", headers={"Authorization": ""})
    finally:
        conn.close()
    assert (status, json.loads(body)["reason"]) == (401, "Unauthorized")


_HEADER_NAMES = st.sampled_from(["Impersonate-User", "Impersonate-Group", "Impersonate-Uid",
                                 "Impersonate-Extra-scopes", "Impersonate-Extra-", "Impersonate-Other"])
_HEADER_VALUES = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=60)


@settings(max_examples=150, deadline=None, database=None)
@given(st.lists(st.tuples(_HEADER_NAMES, _HEADER_VALUES), min_size=1, max_size=4))
def test_fuzzed_impersonation_headers_never_break_in(fuzz_target: tuple[ServerProcess, Connection],
                                                     headers: list[tuple[str, str]]) -> None:
    server, bob = fuzz_target
    raw = http.client.HTTPSConnection("127.0.0.1", server.port, timeout=30, context=server.ssl_context())
    try:
        raw.putrequest("POST", "/api/v1/namespaces/default/configmaps")
        raw.putheader("Authorization", f"Bearer {BOB}")
        raw.putheader("Content-Type", "application/json")
        body = b'{"metadata":{"name":"fuzzed"}}'
        raw.putheader("Content-Length", str(len(body)))
        for name, value in headers:
            raw.putheader(name, value.strip())
        raw.endheaders(body)
        answer = raw.getresponse()
        status, payload = answer.status, json.loads(answer.read())
    finally:
        raw.close()
    # bob may neither write configmaps nor impersonate anyone: whatever the headers, nothing gets in.
    assert status in (400, 403), payload
    assert payload["kind"] == "Status" and payload["message"]
    assert bob.request("GET", "/api/v1/namespaces/default/configmaps/fuzzed")[0] == 404


@pytest.fixture(scope="module")
def fuzz_target(anonymous_server: ServerProcess) -> Iterator[tuple[ServerProcess, Connection]]:
    conn = Connection(anonymous_server, BOB)
    yield anonymous_server, conn
    conn.close()


def test_impersonated_extras_show_in_whoami(anonymous_server: ServerProcess) -> None:
    # Header names cannot carry a "/", so the key arrives percent-encoded and is decoded as upstream does.
    conn = Connection(anonymous_server, anonymous_server.token)
    try:
        status, _, raw = conn.request(
            "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
            json.dumps({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}).encode(),
            headers={"Impersonate-User": "carol", "Impersonate-Extra-reason": "on-call",
                     "Impersonate-Extra-example.com%2fticket": "OPS-12", "Impersonate-Extra-50%zz%2f": "x"})
    finally:
        conn.close()
    assert status == 201, raw
    assert json.loads(raw)["status"]["userInfo"] == {
        "username": "carol", "groups": ["system:authenticated"],
        "extra": {"50%zz%2f": ["x"], "example.com/ticket": ["OPS-12"], "reason": ["on-call"]}}


def _signed_request(common_name: str) -> str:
    """A CSR's spec.request: a PEM certificate request with a valid signature, as validation demands."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    request = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256())
    return base64.b64encode(request.public_bytes(serialization.Encoding.PEM)).decode()


def test_a_csr_created_with_impersonated_extras_keeps_them(anonymous_server: ServerProcess, tmp_path: Any) -> None:
    """The CSR strategy records the requesting user whole: name, uid, groups and extras (here from the
    kubeconfig's as-user-extra, which kubectl --as-user-extra sets)."""
    with open(anonymous_server.kubeconfig) as f:
        config = yaml.safe_load(f)
    config["users"][0]["user"].update({"as": "user1", "as-uid": "abc123", "as-user-extra": {
        "key1": ["hello there", "one,two"], "key2": ["val3"]}})
    impersonating = os.path.join(str(tmp_path), "impersonating.kubeconfig")
    with open(impersonating, "w") as f:
        yaml.safe_dump(config, f)
    csr = {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": "extra"},
           "spec": {"request": _signed_request("someone"), "signerName": "example.com/signer", "usages": ["client auth"]}}
    run_kubectl(anonymous_server, "create", "clusterrolebinding", "user1-bootstraps",
                "--clusterrole=system:node-bootstrapper", "--user=user1")
    run_kubectl(anonymous_server, "--kubeconfig", impersonating, "create", "-f", "-", stdin=json.dumps(csr))
    spec = json.loads(run_kubectl(anonymous_server, "get", "csr/extra", "-o", "json").stdout)["spec"]
    assert (spec["username"], spec["uid"]) == ("user1", "abc123")
    assert spec["extra"] == {"key1": ["hello there", "one,two"], "key2": ["val3"]}


# The reference's words (kube-apiserver 1.36.2, processImpersonationHeaders): the user the headers asked for,
# as Go's %#v prints it, nil slices and maps as such and a map's keys sorted.
@pytest.mark.parametrize("headers, asked", [
    ({"Impersonate-Group": "g"}, 'UID:"", Groups:[]string{"g"}, Extra:map[string][]string(nil)'),
    ({"Impersonate-Uid": "u1"}, 'UID:"u1", Groups:[]string(nil), Extra:map[string][]string(nil)'),
    ({"Impersonate-Extra-Example.com%2fTeam": "a b"},
     'UID:"", Groups:[]string(nil), Extra:map[string][]string{"example.com/team":[]string{"a b"}}'),
    ({"Impersonate-Group": 'g"q', "Impersonate-Uid": "u", "Impersonate-Extra-zz": "1", "Impersonate-Extra-aa": "2"},
     'UID:"u", Groups:[]string{"g\\"q"}, Extra:map[string][]string{"aa":[]string{"2"}, "zz":[]string{"1"}}'),
    ({"Impersonate-User": "", "Impersonate-Group": "g"},
     'UID:"", Groups:[]string{"g"}, Extra:map[string][]string(nil)'),
])
def test_impersonating_without_a_user_names_what_was_asked(shared_server: ServerProcess, headers: dict[str, str],
                                                           asked: str) -> None:
    conn = http.client.HTTPSConnection("127.0.0.1", shared_server.port, context=shared_server.ssl_context(),
                                       timeout=30)
    try:
        conn.request("GET", "/api/v1/namespaces", headers={"Authorization": f"Bearer {shared_server.token}",
                                                           **headers})
        response = conn.getresponse()
        status, body = response.status, json.loads(response.read())
    finally:
        conn.close()
    assert (status, body["message"]) == (
        400, f'requested &user.DefaultInfo{{Name:"", {asked}}} without impersonating a user name')
