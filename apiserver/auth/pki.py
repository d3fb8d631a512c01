"""First-start credentials: a CA, a serving certificate signed by it, an admin token, a kubeconfig.

Generated once under the data directory and reused on every later start, so a kubeconfig handed
out stays valid across restarts.
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import os
import secrets
import socket
from dataclasses import dataclass

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

_VALIDITY = datetime.timedelta(days=3650)
# A client certificate lasts a year, as kubeadm's do.
_CLIENT_VALIDITY = datetime.timedelta(days=365)


@dataclass(frozen=True)
class Credentials:
    ca_cert: str
    serving_cert: str
    serving_key: str
    admin_token: str


def write_private(path: str, data: bytes) -> None:
    """Replaces `path` atomically with a file only its owner can read, synced before the rename."""
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _make_ca() -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fastkube-ca")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + _VALIDITY)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, encipher_only=False,
                                         decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    return cert, key


def _make_serving(ca: x509.Certificate, ca_key: ec.EllipticCurvePrivateKey,
                  hosts: list[str]) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    names: list[x509.GeneralName] = []
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fastkube-apiserver")]))
            .issuer_name(ca.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + _VALIDITY)
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    return cert, key


def ensure_credentials(data_dir: str, extra_hosts: list[str]) -> Credentials:
    """Creates the CA, serving certificate and admin token on first start; reuses them after."""
    pki = os.path.join(data_dir, "pki")
    os.makedirs(pki, mode=0o700, exist_ok=True)
    creds = Credentials(os.path.join(pki, "ca.crt"), os.path.join(pki, "apiserver.crt"),
                        os.path.join(pki, "apiserver.key"), os.path.join(pki, "admin.token"))
    if not os.path.exists(creds.ca_cert):
        ca, ca_key = _make_ca()
        hosts = ["127.0.0.1", "::1", "localhost", socket.gethostname(), *extra_hosts]
        serving, serving_key = _make_serving(ca, ca_key, list(dict.fromkeys(hosts)))
        write_private(os.path.join(pki, "ca.key"), _key_pem(ca_key))
        write_private(creds.serving_key, _key_pem(serving_key))
        write_private(creds.serving_cert, serving.public_bytes(serialization.Encoding.PEM))
        write_private(creds.admin_token, secrets.token_urlsafe(32).encode())
        write_private(creds.ca_cert, ca.public_bytes(serialization.Encoding.PEM))
    return creds


@dataclass(frozen=True)
class TlsFiles:
    """What the server serves TLS with and whom it trusts, when given as kube-apiserver's flags."""

    serving_cert: str
    serving_key: str
    serving_ca: str  # what a client verifies serving_cert with: written into the kubeconfig
    client_ca: str  # what a client certificate must be signed by (--client-ca-file)


def ensure_serving_in(cert_dir: str, data_dir: str, hosts: list[str]) -> tuple[str, str, bool]:
    """kube-apiserver's --cert-dir: apiserver.crt and apiserver.key there, made when absent.

    Made here, they are signed by the data directory's CA (so its kubeconfig verifies them) where
    kube-apiserver would sign them itself. Answers the two paths and whether they were made here.
    """
    cert, key = os.path.join(cert_dir, "apiserver.crt"), os.path.join(cert_dir, "apiserver.key")
    if os.path.exists(cert) and os.path.exists(key):
        return cert, key, False
    ensure_credentials(data_dir, [])
    with open(os.path.join(data_dir, "pki", "ca.crt"), "rb") as f:
        ca = x509.load_pem_x509_certificate(f.read())
    with open(os.path.join(data_dir, "pki", "ca.key"), "rb") as f:
        ca_key = serialization.load_pem_private_key(f.read(), password=None)
    if not isinstance(ca_key, ec.EllipticCurvePrivateKey):
        raise SystemExit(f"{data_dir}/pki/ca.key is not the EC key this server writes")
    serving, serving_key = _make_serving(ca, ca_key, list(dict.fromkeys(
        ["127.0.0.1", "::1", "localhost", socket.gethostname(), *hosts])))
    os.makedirs(cert_dir, exist_ok=True)
    write_private(key, _key_pem(serving_key))
    write_private(cert, serving.public_bytes(serialization.Encoding.PEM))
    return cert, key, True


def read_token(creds: Credentials) -> str:
    with open(creds.admin_token) as f:
        return f.read().strip()


def kubeconfig(server: str, token: str, ca_cert_path: str | None, user: str = "admin") -> str:
    cluster: dict[str, object] = {"server": server}
    if ca_cert_path is not None:
        with open(ca_cert_path, "rb") as f:
            cluster["certificate-authority-data"] = base64.b64encode(f.read()).decode()
    return _kubeconfig_document(cluster, user, token)


def kubeconfig_beside(path: str, user: str, token: str) -> str:
    """A kubeconfig for `user` that reaches the same server, with the same CA, as the one at `path`."""
    with open(path) as f:
        cluster = yaml.safe_load(f)["clusters"][0]["cluster"]
    return _kubeconfig_document(cluster, user, token)


def client_kubeconfig_beside(path: str, user: str, cert_pem: bytes, key_pem: bytes) -> str:
    """As kubeconfig_beside, with a client certificate instead of a token (as kind, k3s and kubeadm write)."""
    with open(path) as f:
        cluster = yaml.safe_load(f)["clusters"][0]["cluster"]
    return _kubeconfig_document(cluster, user, credentials={
        "client-certificate-data": base64.b64encode(cert_pem).decode(),
        "client-key-data": base64.b64encode(key_pem).decode()})


def issue_client_certificate(data_dir: str, user: str, groups: tuple[str, ...]) -> tuple[bytes, bytes]:
    """A certificate and key for `user` (CN) in `groups` (O), signed by the server's CA; PEM both."""
    pki = os.path.join(data_dir, "pki")
    with open(os.path.join(pki, "ca.crt"), "rb") as f:
        ca = x509.load_pem_x509_certificate(f.read())
    with open(os.path.join(pki, "ca.key"), "rb") as f:
        ca_key = serialization.load_pem_private_key(f.read(), password=None)
    if not isinstance(ca_key, ec.EllipticCurvePrivateKey):
        raise SystemExit(f"{pki}/ca.key is not the EC key this server writes")
    key = ec.generate_private_key(ec.SECP256R1())
    subject = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, group) for group in groups]
    subject.append(x509.NameAttribute(NameOID.COMMON_NAME, user))
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(x509.Name(subject)).issuer_name(ca.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + _CLIENT_VALIDITY)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM), _key_pem(key)


def _kubeconfig_document(cluster: dict[str, object], user: str, token: str = "",
                         credentials: dict[str, str] | None = None) -> str:
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "fastkube", "cluster": cluster}],
        "users": [{"name": user, "user": credentials or {"token": token}}],
        "contexts": [{"name": "fastkube", "context": {"cluster": "fastkube", "user": user}}],
        "current-context": "fastkube",
        "preferences": {},
    }
    return yaml.safe_dump(doc, sort_keys=False)


def write_kubeconfig(path: str, content: str) -> None:
    write_private(path, content.encode())
