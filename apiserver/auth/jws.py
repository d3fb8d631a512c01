"""Compact JSON Web Signatures with RS256, the form of kube-apiserver's ServiceAccount tokens.

`sign` writes header.payload.signature; `verify` answers the payload only when the header names
RS256 and this key, and the signature holds. Nothing here reads the claims' meaning (expiry,
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
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from apiserver.auth.pki import write_private

KEY_FILE = "sa.key"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SigningKey:
    """The RSA key ServiceAccount tokens are signed with, kept as DIR/pki/sa.key across restarts."""

    def __init__(self, key: rsa.RSAPrivateKey) -> None:
        self._key = key
        self._public = key.public_key()
        der = self._public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        # As upstream names its keys: the hash of the public key, so a verifier can pick the right one.
        self.key_id = _b64(hashlib.sha256(der).digest())
        self._header = _b64(orjson.dumps({"alg": "RS256", "kid": self.key_id}))

    @classmethod
    def load_or_create(cls, pki_dir: str) -> SigningKey:
        path = os.path.join(pki_dir, KEY_FILE)
        if not os.path.exists(path):
            key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            write_private(path, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                  serialization.NoEncryption()))
        with open(path, "rb") as f:
            loaded = serialization.load_pem_private_key(f.read(), password=None)
        if not isinstance(loaded, rsa.RSAPrivateKey):
            raise SystemExit(f"cannot start: {path} is not an RSA private key")
        return cls(loaded)

    def sign(self, claims: dict[str, Any]) -> str:
        signing_input = f"{self._header}.{_b64(orjson.dumps(claims))}"
        signature = self._key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        return f"{signing_input}.{_b64(signature)}"

    def verify(self, token: str) -> dict[str, Any] | None:
        parts = token.split(".")
        if len(parts) != 3:
            return None
        try:
            header = orjson.loads(_unb64(parts[0]))
            if not isinstance(header, dict) or header.get("alg") != "RS256" or header.get("kid") != self.key_id:
                return None
            self._public.verify(_unb64(parts[2]), f"{parts[0]}.{parts[1]}".encode(), padding.PKCS1v15(),
                                hashes.SHA256())
            claims = orjson.loads(_unb64(parts[1]))
        except (InvalidSignature, ValueError, binascii.Error, orjson.JSONDecodeError):
            return None
        return claims if isinstance(claims, dict) else None
