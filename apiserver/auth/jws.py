"""Compact JSON Web Signatures with RS256 or ES256/384/512, the forms of kube-apiserver's ServiceAccount tokens.

`sign` writes header.payload.signature; `verify` answers the payload only when the header names one
of the accepted keys and its algorithm, and the signature holds. Nothing here reads the claims' meaning (expiry,
audience): that is the caller's.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from typing import Any

import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

from apiserver.auth.pki import write_private

KEY_FILE = "sa.key"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# The JWS algorithm of each key kind kube-apiserver signs with: RSA, or ECDSA on a NIST curve.
_EC_ALGORITHMS: dict[str, tuple[str, hashes.HashAlgorithm, int]] = {
    "secp256r1": ("ES256", hashes.SHA256(), 32), "secp384r1": ("ES384", hashes.SHA384(), 48),
    "secp521r1": ("ES512", hashes.SHA512(), 66)}

PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey
PublicKey = rsa.RSAPublicKey | ec.EllipticCurvePublicKey


def algorithm(public: PublicKey) -> str:
    """RS256 for RSA, ES256/384/512 for ECDSA; ValueError for a curve JWS has no name for."""
    if isinstance(public, rsa.RSAPublicKey):
        return "RS256"
    if public.curve.name not in _EC_ALGORITHMS:
        raise ValueError(f"ECDSA keys on {public.curve.name} cannot sign JWTs")
    return _EC_ALGORITHMS[public.curve.name][0]


def key_id(public: PublicKey) -> str:
    """As upstream names its keys: the hash of the public key, so a verifier can pick the right one."""
    der = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return _b64(hashlib.sha256(der).digest())


def _check(public: PublicKey, signature: bytes, signed: bytes) -> None:
    """Raises InvalidSignature unless `signature` (JWS form: r||s for ECDSA) signs `signed`."""
    if isinstance(public, rsa.RSAPublicKey):
        public.verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
        return
    _, digest, size = _EC_ALGORITHMS[public.curve.name]
    if len(signature) != 2 * size:
        raise InvalidSignature()
    der = encode_dss_signature(int.from_bytes(signature[:size], "big"), int.from_bytes(signature[size:], "big"))
    public.verify(der, signed, ec.ECDSA(digest))


def own_private_key(pki_dir: str) -> rsa.RSAPrivateKey:
    """DIR/pki/sa.key, made on first start."""
    path = os.path.join(pki_dir, KEY_FILE)
    if not os.path.exists(path):
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        write_private(path, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                              serialization.NoEncryption()))
    with open(path, "rb") as f:
        loaded = serialization.load_pem_private_key(f.read(), password=None)
    if not isinstance(loaded, rsa.RSAPrivateKey):
        raise SystemExit(f"cannot start: {path} is not an RSA private key")
    return loaded


class SigningKey:
    """The key ServiceAccount tokens are signed with (DIR/pki/sa.key, an RSA key kept across restarts, or
    kube-apiserver's --service-account-signing-key-file), and the public keys tokens are accepted from."""

    def __init__(self, key: PrivateKey, verifiers: tuple[PublicKey, ...] = ()) -> None:
        self._key = key
        public = key.public_key()
        self._alg = algorithm(public)
        self.key_id = key_id(public)
        self._header = _b64(orjson.dumps({"alg": self._alg, "kid": self.key_id}))
        self._verifiers = {key_id(v): (algorithm(v), v) for v in (public, *verifiers)}

    @classmethod
    def load_or_create(cls, pki_dir: str) -> SigningKey:
        return cls(own_private_key(pki_dir))

    def sign(self, claims: dict[str, Any]) -> str:
        signing_input = f"{self._header}.{_b64(orjson.dumps(claims))}"
        if isinstance(self._key, rsa.RSAPrivateKey):
            signature = self._key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        else:
            _, digest, size = _EC_ALGORITHMS[self._key.curve.name]
            r, s = decode_dss_signature(self._key.sign(signing_input.encode(), ec.ECDSA(digest)))
            signature = r.to_bytes(size, "big") + s.to_bytes(size, "big")
        return f"{signing_input}.{_b64(signature)}"

    def verify(self, token: str) -> dict[str, Any] | None:
        parts = token.split(".")
        if len(parts) != 3:
            return None
        try:
            header = orjson.loads(_unb64(parts[0]))
            found = self._verifiers.get(str(header.get("kid"))) if isinstance(header, dict) else None
            if found is None or header.get("alg") != found[0]:
                return None
            _check(found[1], _unb64(parts[2]), f"{parts[0]}.{parts[1]}".encode())
            claims = orjson.loads(_unb64(parts[1]))
        except (InvalidSignature, ValueError, binascii.Error, orjson.JSONDecodeError):
            return None
        return claims if isinstance(claims, dict) else None
