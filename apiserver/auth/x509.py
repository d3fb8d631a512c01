"""X.509 client certificates signed by the server's CA: CN is the user name, each O a group.

The TLS handshake has already checked the signature against DIR/pki/ca.crt; here the certificate is
read for who it names, once per certificate, and refused unless it is meant for client
authentication and within its validity, as upstream's x509 authenticator does.
"""

from __future__ import annotations

import datetime

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from apiserver.auth.tokens import AUTHENTICATED_GROUP, CREDENTIAL_ID, User

# Certificates read, by their PEM; past this many the memory starts over.
_MAX_REMEMBERED = 10_000


def _user_of(pem: str) -> tuple[User, datetime.datetime, datetime.datetime] | None:
    try:
        cert = x509.load_pem_x509_certificate(pem.encode())
        usages = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    except (ValueError, x509.ExtensionNotFound):
        return None
    if ExtendedKeyUsageOID.CLIENT_AUTH not in usages:
        return None
    names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    if not names or not str(names[0].value):
        return None
    groups = tuple(str(a.value) for a in cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME))
    if AUTHENTICATED_GROUP not in groups:
        groups += (AUTHENTICATED_GROUP,)
    # Which certificate it was, as upstream names it, so audit logs and whoami can tell two apart.
    credential = f"X509SHA256={cert.fingerprint(hashes.SHA256()).hex()}"
    user = User(str(names[0].value), "", groups, ((CREDENTIAL_ID, (credential,)),))
    return user, cert.not_valid_before_utc, cert.not_valid_after_utc


class ClientCertificates:
    def __init__(self) -> None:
        self._known: dict[str, tuple[User, datetime.datetime, datetime.datetime] | None] = {}

    def authenticate(self, pem: str) -> User | None:
        if pem not in self._known:
            if len(self._known) >= _MAX_REMEMBERED:
                self._known = {}
            self._known[pem] = _user_of(pem)
        found = self._known[pem]
        if found is None:
            return None
        user, not_before, not_after = found
        now = datetime.datetime.now(datetime.timezone.utc)
        return user if not_before <= now <= not_after else None
