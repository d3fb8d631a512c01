"""X.509 client certificates signed by the server's CA: CN is the user, O the groups, as kind, k3s and
kubeadm kubeconfigs use; `token add --client-cert` writes such a kubeconfig."""

from __future__ import annotations

import base64
import datetime
import os
import re
import subprocess
import sys

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from support import REPO, ServerProcess, run_kubectl


def _cert_kubeconfig(server: ServerProcess, name: str, role: str) -> str:
    result = subprocess.run([sys.executable, "-m", "apiserver", "token", "add", name, "--role", role,
                             "--client-cert", "--data-dir", server.data_dir],
                            cwd=REPO, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    path = os.path.join(server.data_dir, f"{name}-cert.kubeconfig")
    with open(path, "w") as f:
        f.write(result.stdout)
    return path


def _as(server: ServerProcess, kubeconfig: str, *args: str) -> tuple[int, str]:
    # run_kubectl passes the server's own kubeconfig first; a later --kubeconfig wins.
    result = run_kubectl(server, "--kubeconfig", kubeconfig, *args, check=False)
    return result.returncode, (result.stdout + result.stderr).strip()


def test_a_certificate_kubeconfig_names_user_and_groups(shared_server: ServerProcess) -> None:
    kubeconfig = _cert_kubeconfig(shared_server, "carol", "view")
    with open(kubeconfig) as f:
        user = yaml.safe_load(f)["users"][0]["user"]
    assert set(user) == {"client-certificate-data", "client-key-data"}
    cert = x509.load_pem_x509_certificate(base64.b64decode(user["client-certificate-data"]))
    assert cert.subject.rfc4514_string() == "CN=carol,O=fastkube:view"
    code, out = _as(shared_server, kubeconfig, "auth", "whoami")
    assert code == 0, out
    assert [re.split(r"\s{2,}", line) for line in out.splitlines()] == [
        ["ATTRIBUTE", "VALUE"], ["Username", "carol"], ["Groups", "[fastkube:view system:authenticated]"],
        ["Extra: authentication.kubernetes.io/credential-id",
         f"[X509SHA256={cert.fingerprint(hashes.SHA256()).hex()}]"]]
    assert _as(shared_server, kubeconfig, "get", "configmaps", "-n", "kube-system", "-o", "name")[0] == 0
    assert _as(shared_server, kubeconfig, "create", "configmap", "by-carol") == (
        1, 'error: failed to create configmap: configmaps is forbidden: User "carol" cannot create resource '
           '"configmaps" in API group "" in the namespace "default"')


def test_an_admin_certificate_may_write(shared_server: ServerProcess) -> None:
    kubeconfig = _cert_kubeconfig(shared_server, "root", "admin")
    assert _as(shared_server, kubeconfig, "create", "configmap", "by-root") == (0, "configmap/by-root created")


def test_a_certificate_from_another_ca_gets_nothing(shared_server: ServerProcess) -> None:
    kubeconfig = _cert_kubeconfig(shared_server, "mallory", "admin")
    with open(kubeconfig) as f:
        doc = yaml.safe_load(f)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "system:masters"),
                      x509.NameAttribute(NameOID.COMMON_NAME, "mallory")])
    now = datetime.datetime.now(datetime.timezone.utc)
    forged = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
              .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=1))
              .not_valid_after(now + datetime.timedelta(days=1))
              .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
              .sign(key, hashes.SHA256()))
    doc["users"][0]["user"] = {
        "client-certificate-data": base64.b64encode(forged.public_bytes(serialization.Encoding.PEM)).decode(),
        "client-key-data": base64.b64encode(key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())).decode()}
    with open(kubeconfig, "w") as f:
        yaml.safe_dump(doc, f)
    code, _ = _as(shared_server, kubeconfig, "create", "configmap", "by-mallory")
    assert code != 0
    assert run_kubectl(shared_server, "get", "configmap", "by-mallory", check=False).returncode != 0


def test_the_handshake_names_the_acceptable_client_ca(shared_server: ServerProcess) -> None:
    """As Go's TLS with ClientCAs: the CertificateRequest lists the CA, in TLS 1.3 and 1.2 alike."""
    with open(shared_server.ca, "rb") as f:
        subject = x509.load_pem_x509_certificate(f.read()).subject.rfc4514_string()
    for version in ("-tls1_3", "-tls1_2"):
        done = subprocess.run(["openssl", "s_client", version, "-connect", f"127.0.0.1:{shared_server.port}"],
                              input="", capture_output=True, text=True, timeout=30, check=False)
        names = done.stdout.split("Acceptable client certificate CA names\n", 1)
        assert len(names) == 2, done.stdout
        assert names[1].splitlines()[0] == subject.replace("=", " = ")
