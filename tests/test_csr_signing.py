"""The CSR signing controller: an approved request for a kubernetes.io signer gets its certificate from
the cluster CA, which then authenticates its subject; a request its signer may not sign fails."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from support import ServerProcess, run_kubectl, wait_for


@pytest.fixture(scope="module")
def signing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("csr")),
                       extra_args=["--controllers=certificatesigningrequest-signing-controller"]) as server:
        yield server


def _request(server: ServerProcess, name: str, user: str, usages: list[str]) -> ec.EllipticCurvePrivateKey:
    key = ec.generate_private_key(ec.SECP256R1())
    csr = (x509.CertificateSigningRequestBuilder()
           .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, user)])).sign(key, hashes.SHA256()))
    pem = csr.public_bytes(serialization.Encoding.PEM)
    run_kubectl(server, "create", "-f", "-", stdin=json.dumps({
        "apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": name},
        "spec": {"request": base64.b64encode(pem).decode(), "signerName": "kubernetes.io/kube-apiserver-client",
                 "usages": usages, "expirationSeconds": 3600}}))
    run_kubectl(server, "certificate", "approve", name)
    return key


def test_an_approved_client_certificate_is_signed_and_authenticates(signing: ServerProcess, tmp_path: object) -> None:
    key = _request(signing, "testuser", "testuser", ["client auth"])
    issued = wait_for("the certificate", lambda: json.loads(run_kubectl(
        signing, "get", "csr", "testuser", "-o", "json").stdout).get("status", {}).get("certificate"), 30)
    cert = x509.load_pem_x509_certificate(base64.b64decode(issued))
    assert cert.subject.rfc4514_string() == "CN=testuser"
    lifetime = cert.not_valid_after_utc - cert.not_valid_before_utc
    assert lifetime.total_seconds() == 3600
    crt, pem_key = os.path.join(str(tmp_path), "testuser.crt"), os.path.join(str(tmp_path), "testuser.key")
    with open(crt, "wb") as f:
        f.write(base64.b64decode(issued))
    with open(pem_key, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    out = run_kubectl(signing, "--kubeconfig", os.devnull, "--server", signing.url, "--certificate-authority",
                      signing.ca, "--client-certificate", crt, "--client-key", pem_key,
                      "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
    assert out.stdout == "testuser"


def test_a_request_its_signer_may_not_sign_fails(signing: ServerProcess) -> None:
    _request(signing, "serving", "someone", ["server auth"])
    failed = wait_for("the failure", lambda: next((c for c in json.loads(run_kubectl(
        signing, "get", "csr", "serving", "-o", "json").stdout).get("status", {}).get("conditions", ())
        if c["type"] == "Failed"), None), 30)
    assert (failed["reason"], failed["message"]) == ("SignerValidationFailure",
                                                     "invalid usage for client certificate: server auth")
