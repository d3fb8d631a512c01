"""kube-apiserver's ServiceAccount key flags: the signing key file, and key files whose public keys verify.

`--service-account-key-file` may name PEM public keys, certificates or private keys, several to a file
and the flag given more than once, as upstream's keyutil reads them; `--service-account-signing-key-file`
names one private key (RSA, or ECDSA as envtest writes it). `--service-account-issuer` may be given more
than once: the first names new tokens, and tokens of any of them are accepted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from apiserver.auth.jws import PrivateKey, PublicKey, SigningKey, own_private_key

_BLOCK = re.compile(rb"-----BEGIN ([A-Z ]+)-----.+?-----END \1-----", re.DOTALL)


class KeyFileError(ValueError):
    """A key file that does not hold what its flag needs; the message names the file."""


def _usable(key: object, path: str) -> PublicKey:
    if isinstance(key, (rsa.RSAPublicKey, ec.EllipticCurvePublicKey)):
        return key
    raise KeyFileError(f"{path}: only RSA and ECDSA keys sign ServiceAccount tokens")


def public_keys(path: str) -> list[PublicKey]:
    """Every public key a PEM file holds: of its certificates, public keys and private keys."""
    with open(path, "rb") as f:
        data = f.read()
    keys: list[PublicKey] = []
    for block in _BLOCK.finditer(data):
        kind, pem = block.group(1), block.group(0)
        try:
            if kind == b"CERTIFICATE":
                keys.append(_usable(x509.load_pem_x509_certificate(pem).public_key(), path))
            elif kind.endswith(b"PUBLIC KEY"):
                keys.append(_usable(serialization.load_pem_public_key(pem), path))
            elif kind.endswith(b"PRIVATE KEY"):
                private = serialization.load_pem_private_key(pem, password=None)
                keys.append(_usable(private.public_key(), path))
        except ValueError as exc:
            raise KeyFileError(f"{path}: {exc}") from None
    if not keys:
        raise KeyFileError(f"{path}: no public key, certificate or private key in PEM form")
    return keys


def private_key(path: str) -> PrivateKey:
    with open(path, "rb") as f:
        try:
            key = serialization.load_pem_private_key(f.read(), password=None)
        except ValueError as exc:
            raise KeyFileError(f"{path}: {exc}") from None
    if not isinstance(key, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)):
        raise KeyFileError(f"{path}: only RSA and ECDSA keys sign ServiceAccount tokens")
    return key


@dataclass(frozen=True)
class ServiceAccountFiles:
    signing_key_file: str  # "": the data directory's own DIR/pki/sa.key
    key_files: tuple[str, ...]
    issuers: tuple[str, ...]

    def signing_key(self, pki_dir: str) -> SigningKey:
        verifiers = tuple(key for path in self.key_files for key in public_keys(path))
        key = private_key(self.signing_key_file) if self.signing_key_file else own_private_key(pki_dir)
        return SigningKey(key, verifiers)
