"""The CSR signer signs with an RSA cluster CA too (test/cmd gives kube-controller-manager one with
--cluster-signing-key-file; this server's own CA is EC)."""

from __future__ import annotations

import base64
import datetime
import json
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import NameOID
from support import ServerProcess, run_kubectl, wait_for


def _rsa_ca(pki: str) -> x509.Certificate:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "rsa-signing-ca")])
    now = datetime.datetime.now(datetime.UTC)
    ca = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=1))
          .not_valid_after(now + datetime.timedelta(days=30))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(key, hashes.SHA256()))
    with open(os.path.join(pki, "ca.key"), "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                  serialization.NoEncryption()))
    # The EC CA stays in the bundle after it: it signed the serving certificate the tests verify.
    with open(os.path.join(pki, "ca.crt"), "rb") as f:
        first = f.read()
    with open(os.path.join(pki, "ca.crt"), "wb") as f:
        f.write(ca.public_bytes(serialization.Encoding.PEM) + first)
    return ca


def test_an_rsa_cluster_ca_signs_approved_requests(tmp_path: object) -> None:
    server = ServerProcess(str(tmp_path), extra_args=["--controllers=certificatesigningrequest-signing-controller"])
    server.start()
    server.stop()
    ca = _rsa_ca(os.path.join(server.data_dir, "pki"))
    server.start()
    try:
        key = ec.generate_private_key(ec.SECP256R1())
        request = (x509.CertificateSigningRequestBuilder()
                   .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "testuser")]))
                   .sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM))
        run_kubectl(server, "create", "-f", "-", stdin=json.dumps({
            "apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
            "metadata": {"name": "testuser"},
            "spec": {"request": base64.b64encode(request).decode(), "usages": ["client auth"],
                     "signerName": "kubernetes.io/kube-apiserver-client"}}))
        run_kubectl(server, "certificate", "approve", "testuser")
        issued = wait_for("the certificate", lambda: json.loads(run_kubectl(
            server, "get", "csr", "testuser", "-o", "json").stdout).get("status", {}).get("certificate"), 30)
        cert = x509.load_pem_x509_certificate(base64.b64decode(issued))
        assert cert.issuer == ca.subject
        public = ca.public_key()
        assert isinstance(public, rsa.RSAPublicKey) and cert.signature_hash_algorithm is not None
        public.verify(cert.signature, cert.tbs_certificate_bytes, padding.PKCS1v15(), cert.signature_hash_algorithm)
    finally:
        server.stop()
