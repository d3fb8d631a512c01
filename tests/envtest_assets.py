"""What controller-runtime's envtest prepares before it starts kube-apiserver, made here with `cryptography`.

As `pkg/internal/testing/certs/tinyca.go` and `controlplane/{apiserver,auth}.go` make them: ECDSA P-256
CAs named `envtest-environment` (O `envtest`), a serving certificate for localhost and the bind address
in `CERT_DIR/apiserver.{crt,key}`, a ServiceAccount signing CA as `sa-signer.{crt,key}`, a client CA in
`client-cert-auth-ca.crt`, and the admin user `default` in `system:masters`; keys as PKCS#8 PEM, files
0640, certificates valid a week. The argument list is envtest's defaults, sorted by flag as its
`Arguments.AsStrings` sorts them, `--insecure-port` left out as envtest does for servers without it.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_WEEK = datetime.timedelta(hours=168)


@dataclass
class TinyCA:
    cert: x509.Certificate
    key: ec.EllipticCurvePrivateKey
    next_serial: int = 1

    @classmethod
    def new(cls) -> TinyCA:
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "envtest"),
                          x509.NameAttribute(NameOID.COMMON_NAME, "envtest-environment")])
        now = datetime.datetime.now(datetime.UTC)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                .serial_number(x509.random_serial_number()).not_valid_before(now)
                .not_valid_after(now + datetime.timedelta(days=3650))
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True,
                                             key_cert_sign=True,
                                             content_commitment=False, data_encipherment=False,
                                             key_agreement=False, crl_sign=False, encipher_only=False,
                                             decipher_only=False), critical=True)
                .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
                .sign(key, hashes.SHA256()))
        return cls(cert, key)

    def _issue(self, subject: x509.Name, usage: x509.ObjectIdentifier,
               names: list[x509.GeneralName]) -> tuple[bytes, bytes]:
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(self.cert.subject)
                   .public_key(key.public_key()).serial_number(self.next_serial)
                   .not_valid_before(now).not_valid_after(now + _WEEK)
                   .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True,
                                                content_commitment=False, data_encipherment=False,
                                                key_agreement=False, key_cert_sign=False, crl_sign=False,
                                                encipher_only=False, decipher_only=False), critical=True)
                   .add_extension(x509.ExtendedKeyUsage([usage]), critical=False))
        if names:
            builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
        self.next_serial += 1
        return pem(builder.sign(self.key, hashes.SHA256())), key_pem(key)

    def serving_cert(self, *hosts: str) -> tuple[bytes, bytes]:
        names: list[x509.GeneralName] = []
        for host in hosts:
            try:
                names.append(x509.IPAddress(ipaddress.ip_address(host)))
            except ValueError:
                names += [x509.DNSName(host), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
        subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "envtest"),
                             x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
        return self._issue(subject, ExtendedKeyUsageOID.SERVER_AUTH, names)

    def client_cert(self, user: str, groups: list[str]) -> tuple[bytes, bytes]:
        subject = x509.Name([*(x509.NameAttribute(NameOID.ORGANIZATION_NAME, g) for g in groups),
                             x509.NameAttribute(NameOID.COMMON_NAME, user)])
        return self._issue(subject, ExtendedKeyUsageOID.CLIENT_AUTH, [])


def pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _write(path: str, data: bytes) -> str:
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, 0o640)
    return path


@dataclass
class Envtest:
    """envtest's cert dir for one API server, and the admin user's certificate and key files."""

    cert_dir: str
    serving_ca: str  # where a client finds the CA of apiserver.crt (envtest keeps it in memory)
    admin_cert: str
    admin_key: str


def prepare(cert_dir: str, bind_address: str = "127.0.0.1") -> Envtest:
    os.makedirs(cert_dir, exist_ok=True)
    serving_ca = TinyCA.new()
    cert, key = serving_ca.serving_cert("localhost", bind_address)
    _write(os.path.join(cert_dir, "apiserver.crt"), cert)
    _write(os.path.join(cert_dir, "apiserver.key"), key)
    signer = TinyCA.new()
    _write(os.path.join(cert_dir, "sa-signer.crt"), pem(signer.cert))
    _write(os.path.join(cert_dir, "sa-signer.key"), key_pem(signer.key))
    client_ca = TinyCA.new()
    _write(os.path.join(cert_dir, "client-cert-auth-ca.crt"), pem(client_ca.cert))
    admin_cert, admin_key = client_ca.client_cert("default", ["system:masters"])
    # envtest hands these to client-go in memory; the Python client reads them from files.
    return Envtest(cert_dir, _write(os.path.join(cert_dir, "test-serving-ca.crt"), pem(serving_ca.cert)),
                   _write(os.path.join(cert_dir, "test-admin.crt"), admin_cert),
                   _write(os.path.join(cert_dir, "test-admin.key"), admin_key))


def arguments(cert_dir: str, etcd_url: str, port: int, bind_address: str = "127.0.0.1") -> list[str]:
    """envtest's kube-apiserver command line (controller-runtime's defaultArgs plus CertAuthn's flag)."""
    flags = {
        "allow-privileged": "true",
        "authorization-mode": "RBAC",
        "bind-address": bind_address,
        "cert-dir": cert_dir,
        "client-ca-file": os.path.join(cert_dir, "client-cert-auth-ca.crt"),
        "disable-admission-plugins": "ServiceAccount",
        "etcd-servers": etcd_url,
        "secure-port": str(port),
        "service-account-issuer": f"https://{bind_address}:{port}/",
        "service-account-key-file": os.path.join(cert_dir, "sa-signer.crt"),
        "service-account-signing-key-file": os.path.join(cert_dir, "sa-signer.key"),
        "service-cluster-ip-range": "10.0.0.0/24",
    }
    return [f"--{name}={flags[name]}" for name in sorted(flags)]
