"""Approved CertificateSigningRequests for the built-in signers are signed by the cluster CA, as
kube-controller-manager's csrsigning controller signs them, and the certificates work against the server."""

from __future__ import annotations

import base64
import datetime
import json
import os
from typing import Any, Iterator

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from support import ServerProcess, run_kubectl, wait_for

from apiserver.auth import pki


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("csr")), extra_args=["--controllers=*"]) as proc:
        yield proc


def request(common_name: str, organizations: tuple[str, ...] = (), dns: tuple[str, ...] = ()
            ) -> tuple[ec.EllipticCurvePrivateKey, str]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in organizations]
    subject.append(x509.NameAttribute(NameOID.COMMON_NAME, common_name))
    builder = x509.CertificateSigningRequestBuilder().subject_name(x509.Name(subject))
    if dns:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(d) for d in dns]), critical=False)
    pem = builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)
    return key, base64.b64encode(pem).decode()


def submit(server: ServerProcess, name: str, encoded: str, signer: str, usages: list[str],
           expiration: int | None = None) -> None:
    spec: dict[str, Any] = {"request": encoded, "signerName": signer, "usages": usages}
    if expiration is not None:
        spec["expirationSeconds"] = expiration
    run_kubectl(server, "create", "-f", "-", stdin=json.dumps({
        "apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": name},
        "spec": spec}))
    run_kubectl(server, "certificate", "approve", name)


def csr(server: ServerProcess, name: str) -> Any:
    return json.loads(run_kubectl(server, "get", "csr", name, "-o", "json").stdout)


def issued(server: ServerProcess, name: str) -> x509.Certificate:
    encoded = wait_for(f"{name} signed", lambda: csr(server, name).get("status", {}).get("certificate"))
    return x509.load_pem_x509_certificate(base64.b64decode(encoded))


def test_an_approved_client_csr_is_signed_and_its_certificate_logs_in(cluster: ServerProcess) -> None:
    key, encoded = request("jane", ("developers",))
    submit(cluster, "jane", encoded, "kubernetes.io/kube-apiserver-client",
           ["digital signature", "key encipherment", "client auth"], expiration=3600)
    certificate = issued(cluster, "jane")
    with open(os.path.join(cluster.data_dir, "pki", "ca.crt"), "rb") as f:
        ca = x509.load_pem_x509_certificate(f.read())
    certificate.verify_directly_issued_by(ca)
    assert certificate.subject.rfc4514_string() == "CN=jane,O=developers"
    assert certificate.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value == x509.ExtendedKeyUsage(
        [ExtendedKeyUsageOID.CLIENT_AUTH])
    usage = certificate.extensions.get_extension_for_class(x509.KeyUsage).value
    assert usage.digital_signature and usage.key_encipherment and not usage.key_cert_sign
    assert not certificate.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    # An hour is short-lived: backdated 5 minutes at the start only (PermissiveSigningPolicy).
    assert certificate.not_valid_after_utc - certificate.not_valid_before_utc == datetime.timedelta(minutes=65)
    printed = run_kubectl(cluster, "get", "csr", "jane", "--no-headers").stdout.split()
    assert printed[-1] == "Approved,Issued"

    kubeconfig = os.path.join(cluster.data_dir, "jane.kubeconfig")
    with open(kubeconfig, "w") as f:
        f.write(pki.client_kubeconfig_beside(cluster.kubeconfig, "jane", certificate.public_bytes(
            serialization.Encoding.PEM), key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                           serialization.NoEncryption())))
    whoami = run_kubectl(cluster, "--kubeconfig", kubeconfig, "auth", "whoami", "-o", "json")
    assert json.loads(whoami.stdout)["status"]["userInfo"]["username"] == "jane"


def test_kubelet_csrs_are_checked_as_upstream_checks_them(cluster: ServerProcess) -> None:
    _, good = request("system:node:node-9", ("system:nodes",), ("node-9",))
    submit(cluster, "serving", good, "kubernetes.io/kubelet-serving", ["digital signature", "server auth"])
    certificate = issued(cluster, "serving")
    assert certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
        x509.DNSName) == ["node-9"]
    # A year by default, less the 5 minutes of backdating at the end too.
    assert certificate.not_valid_after_utc - certificate.not_valid_before_utc == datetime.timedelta(days=365)

    _, wrong = request("system:node:node-9", ("wheel",))
    submit(cluster, "kubelet-client", wrong, "kubernetes.io/kube-apiserver-client-kubelet",
           ["digital signature", "client auth"])
    failed = wait_for("the failure", lambda: next((c for c in csr(cluster, "kubelet-client").get("status", {})
                                                   .get("conditions", ()) if c["type"] == "Failed"), None))
    assert (failed["status"], failed["reason"], failed["message"]) == (
        "True", "SignerValidationFailure", "subject organization is not system:nodes")
    assert "certificate" not in csr(cluster, "kubelet-client")["status"]


def test_an_unapproved_csr_is_left_alone(cluster: ServerProcess) -> None:
    _, encoded = request("pending-user")
    run_kubectl(cluster, "create", "-f", "-", stdin=json.dumps({
        "apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": "waiting"},
        "spec": {"request": encoded, "signerName": "kubernetes.io/kube-apiserver-client", "usages": ["client auth"]}}))
    _, other = request("after")
    submit(cluster, "after", other, "kubernetes.io/kube-apiserver-client", ["client auth"])
    issued(cluster, "after")  # signed after the unapproved one was seen
    assert "certificate" not in csr(cluster, "waiting").get("status", {})
