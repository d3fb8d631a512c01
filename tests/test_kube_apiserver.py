"""`fastkube-kube-apiserver` started as controller-runtime's envtest starts kube-apiserver, and used so.

envtest asks `--help` whether `--insecure-port` exists, starts the binary with its default arguments
over its own etcd (here Debian's), polls `/healthz` without verifying the certificate, then talks to
it as `default` in `system:masters` with a client certificate signed by `--client-ca-file`'s CA.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import ssl
import subprocess
import sys
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass

import envtest_assets
import pytest
import urllib3
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from kubernetes import client
from kubernetes.client.rest import ApiException
from support import REPO, EtcdCluster, free_port, wait_for

from apiserver.auth import keyfiles
from apiserver.auth.jws import key_id
from apiserver.kube_apiserver import go_duration, options

pytestmark = pytest.mark.store_once  # starts its own etcd

COMMAND = [sys.executable, "-m", "apiserver.kube_apiserver"]


@dataclass
class Started:
    env: envtest_assets.Envtest
    etcd: EtcdCluster
    port: int
    proc: subprocess.Popen[bytes]
    log_path: str

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def log(self) -> str:
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def api(self, cert: str | None = None, key: str | None = None) -> client.ApiClient:
        config = client.Configuration()
        config.host = self.url
        config.ssl_ca_cert = self.env.serving_ca
        config.cert_file = cert or self.env.admin_cert
        config.key_file = key or self.env.admin_key
        return client.ApiClient(config)


def healthz(url: str) -> bool:
    """envtest's readiness poll: GET /healthz, certificate not verified, 200 wanted."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(url + "/healthz", context=context, timeout=2) as answer:
            return bool(answer.status == 200)
    except (OSError, urllib.error.URLError):
        return False


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Started]:
    root = tmp_path_factory.mktemp("envtest")
    etcd = EtcdCluster(str(root / "etcd")).start()
    env = envtest_assets.prepare(str(root / "k8s_test_framework_1"))
    port = free_port()
    log_path = str(root / "kube-apiserver.log")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([*COMMAND, *envtest_assets.arguments(env.cert_dir, etcd.servers, port)],
                                cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    found = Started(env, etcd, port, proc, log_path)
    try:
        wait_for("/healthz to answer 200 (envtest's StartTimeout is 20 s)",
                 lambda: healthz(found.url) or proc.poll() is not None, seconds=60)
        assert proc.poll() is None, found.log()
        yield found
    finally:
        proc.terminate()
        proc.wait(20)
        etcd.stop()


def test_the_package_installs_the_command() -> None:
    with open(os.path.join(REPO, "pyproject.toml"), "rb") as f:
        scripts = tomllib.load(f)["project"]["scripts"]
    assert scripts["fastkube-kube-apiserver"] == "apiserver.kube_apiserver:main"


def test_help_lists_no_insecure_port_so_envtest_passes_none() -> None:
    shown = subprocess.run([*COMMAND, "--help"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    # envtest's CheckFlag pattern
    assert not re.search(r"(?m)^\s*--insecure-port\b", shown)
    assert re.search(r"(?m)^\s*--etcd-servers\b", shown)


def test_the_admin_client_certificate_may_do_everything(started: Started) -> None:
    with started.api() as api:
        core = client.CoreV1Api(api)
        core.create_namespace({"metadata": {"name": "envtest"}})
        core.create_namespaced_config_map("envtest", {"metadata": {"name": "settings"}, "data": {"a": "1"}})
        assert core.read_namespaced_config_map("settings", "envtest").data == {"a": "1"}
        review = client.AuthenticationV1Api(api).create_self_subject_review({})
        assert review.status.user_info.username == "default"
        assert "system:masters" in review.status.user_info.groups


def test_objects_are_kept_in_envtests_etcd(started: Started) -> None:
    with started.api() as api:
        client.CoreV1Api(api).create_namespace({"metadata": {"name": "in-etcd"}})
    body = json.dumps({"key": base64.b64encode(b"/registry/namespaces/in-etcd").decode()}).encode()
    etcd_url = started.etcd.servers.split(",")[0]
    request = urllib.request.Request(etcd_url + "/v3/kv/range", data=body, method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        kvs = json.loads(answer.read()).get("kvs", [])
    assert len(kvs) == 1
    assert json.loads(base64.b64decode(kvs[0]["value"]))["metadata"]["name"] == "in-etcd"


def test_a_crd_is_served_as_envtest_installs_one(started: Started) -> None:
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "guestbooks.webapp.example.com"},
           "spec": {"group": "webapp.example.com", "scope": "Namespaced",
                    "names": {"plural": "guestbooks", "singular": "guestbook", "kind": "Guestbook",
                              "listKind": "GuestbookList"},
                    "versions": [{"name": "v1", "served": True, "storage": True,
                                  "schema": {"openAPIV3Schema": {
                                      "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}
    with started.api() as api:
        client.ApiextensionsV1Api(api).create_custom_resource_definition(crd)
        custom = client.CustomObjectsApi(api)

        def created() -> bool:
            try:
                custom.create_namespaced_custom_object("webapp.example.com", "v1", "default", "guestbooks", {
                    "apiVersion": "webapp.example.com/v1", "kind": "Guestbook", "metadata": {"name": "book"}})
                return True
            except ApiException as exc:
                assert exc.status == 404, exc.body  # not served yet
                return False

        wait_for("the Guestbook CRD to be served", created, seconds=30)
        assert custom.get_namespaced_custom_object("webapp.example.com", "v1", "default", "guestbooks",
                                                   "book")["metadata"]["name"] == "book"


def test_a_request_without_credentials_is_anonymous_and_refused_by_rbac(started: Started) -> None:
    context = ssl.create_default_context(cafile=started.env.serving_ca)
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(started.url + "/api/v1/namespaces", context=context, timeout=10)
    assert refused.value.code == 403
    assert b'User \\"system:anonymous\\" cannot list resource \\"namespaces\\"' in refused.value.read()


def test_a_certificate_of_another_ca_is_refused(started: Started, tmp_path: object) -> None:
    other = envtest_assets.prepare(str(tmp_path))
    with started.api(other.admin_cert, other.admin_key) as api:
        api.configuration.retries = 0
        # kube-apiserver answers 401; this server ends the TLS handshake (docs/compatibility.md)
        with pytest.raises(urllib3.exceptions.HTTPError):
            client.CoreV1Api(api).list_namespace()


def test_service_account_tokens_are_signed_with_envtests_key_and_issuer(started: Started) -> None:
    with started.api() as api:
        core = client.CoreV1Api(api)
        core.create_namespaced_service_account("default", {"metadata": {"name": "robot"}})
        token = core.create_namespaced_service_account_token("robot", "default", {"spec": {}}).status.token
    header, claims = (json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
                      for part in token.split(".")[:2])
    assert header["alg"] == "ES256"  # envtest's sa-signer.key is an ECDSA P-256 key
    assert claims["iss"] == f"https://127.0.0.1:{started.port}/"
    assert claims["aud"] == [f"https://127.0.0.1:{started.port}/"]
    config = client.Configuration()
    config.host, config.ssl_ca_cert = started.url, started.env.serving_ca
    config.api_key = {"authorization": f"Bearer {token}"}
    with client.ApiClient(config) as as_robot:
        review = client.AuthenticationV1Api(as_robot).create_self_subject_review({})
    assert review.status.user_info.username == "system:serviceaccount:default:robot"


def test_allow_privileged_lets_a_privileged_container_in(started: Started) -> None:
    pod = {"metadata": {"name": "privileged"},
           "spec": {"containers": [{"name": "c", "image": "busybox", "securityContext": {"privileged": True}}]}}
    with started.api() as api:
        created = client.CoreV1Api(api).create_namespaced_pod("default", pod)
    assert created.spec.containers[0].security_context.privileged is True


def test_flags_meaning_nothing_here_are_named_in_the_log(started: Started) -> None:
    log = started.log()
    for flag, why in [("--disable-admission-plugins=ServiceAccount", "not on this server's admission chain")]:
        assert f"ignoring {flag}: {why}" in log
    assert "ignoring --authorization-mode" not in log and "ignoring --service-cluster-ip-range" not in log


def test_the_service_range_is_envtests(started: Started) -> None:
    with started.api() as api:
        kubernetes = client.CoreV1Api(api).read_namespaced_service("kubernetes", "default")
    assert kubernetes.spec.cluster_ip == "10.0.0.1"


@pytest.mark.parametrize(("text", "seconds"), [("1h0m0s", 3600.0), ("60s", 60.0), ("1.5m", 90.0),
                                                ("250ms", 0.25), ("30", 30.0)])
def test_durations_are_read_as_go_writes_them(text: str, seconds: float) -> None:
    assert go_duration(text) == seconds


@pytest.mark.parametrize("text", ["1x", "h", "1h 2m", ""])
def test_a_malformed_duration_is_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        go_duration(text)


def test_key_files_give_the_public_keys_of_every_pem_form(tmp_path: object) -> None:
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ca = envtest_assets.TinyCA.new()
    public = rsa_key.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
    traditional = serialization.PrivateFormat.TraditionalOpenSSL  # "RSA PRIVATE KEY", as openssl writes
    private = rsa_key.private_bytes(serialization.Encoding.PEM, traditional, serialization.NoEncryption())
    path = os.path.join(str(tmp_path), "keys.pem")
    with open(path, "wb") as f:
        f.write(public + envtest_assets.pem(ca.cert) + private)
    found = keyfiles.public_keys(path)
    assert [key_id(k) for k in found] == [key_id(rsa_key.public_key()), key_id(ca.key.public_key()),
                                         key_id(rsa_key.public_key())]
    with open(path, "wb") as f:
        f.write(b"not a key")
    with pytest.raises(keyfiles.KeyFileError, match="no public key, certificate or private key"):
        keyfiles.public_keys(path)


def test_admission_plugins_flags_turn_off_the_plugins_of_the_chain(tmp_path: object) -> None:
    """envtest's `--disable-admission-plugins=ServiceAccount` (a plugin not applied here) is logged and
    kept; a plugin of this server's chain is turned off as `python -m apiserver` turns it off."""
    chosen = options([f"--fastkube-data-dir={tmp_path}", "--disable-admission-plugins=ServiceAccount,Priority",
                      "--enable-admission-plugins=NamespaceLifecycle,AlwaysPullImages"])
    assert chosen.disabled_admission_plugins == frozenset({"Priority"})


def test_an_unknown_admission_plugin_stops_the_start_as_upstream_does(tmp_path: object) -> None:
    with pytest.raises(SystemExit, match='disable-admission-plugins plugin "Nonesuch" is unknown'):
        options([f"--fastkube-data-dir={tmp_path}", "--disable-admission-plugins=Nonesuch"])
