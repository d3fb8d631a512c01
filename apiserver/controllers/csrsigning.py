"""The certificatesigningrequest-signing-controller: approved CSRs for the built-in signers signed by the
cluster CA, as upstream's `pkg/controller/certificates/signer`.

It signs for `kubernetes.io/kube-apiserver-client` (any subject; usages client auth, optionally digital
signature and key encipherment), `kubernetes.io/kube-apiserver-client-kubelet` and
`kubernetes.io/kubelet-serving` (organization `system:nodes`, common name `system:node:...`, the SANs
and usages `ValidateKubeletClientCSR`/`ValidateKubeletServingCSR` allow). A request those checks refuse
gets a `Failed` condition (SignerValidationFailure) instead. The certificate keeps the request's
subject and SANs, takes the usages it asked for, and lives `expirationSeconds` (at least 10 minutes,
at most the one-year `--cluster-signing-duration` default, never past the CA), backdated 5 minutes
unless it lives under 8 hours, as upstream's PermissiveSigningPolicy.
"""

from __future__ import annotations

import base64
import datetime
import os
from typing import Hashable

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from apiserver.controllers.base import Context, Controller, Obj
from apiserver.controllers.client import CERTIFICATE_CONTROLLER
from apiserver.kinds.objects import now_rfc3339

CLIENT = "kubernetes.io/kube-apiserver-client"
KUBELET_CLIENT = "kubernetes.io/kube-apiserver-client-kubelet"
KUBELET_SERVING = "kubernetes.io/kubelet-serving"
SIGNING_DURATION = datetime.timedelta(days=365)  # kube-controller-manager's --cluster-signing-duration
BACKDATE = datetime.timedelta(minutes=5)
SHORT = datetime.timedelta(hours=8)
SHORTEST = datetime.timedelta(minutes=10)

_KEY_USAGES = {"signing": "digital_signature", "digital signature": "digital_signature",
               "content commitment": "content_commitment", "key encipherment": "key_encipherment",
               "key agreement": "key_agreement", "data encipherment": "data_encipherment",
               "cert sign": "key_cert_sign", "crl sign": "crl_sign", "encipher only": "encipher_only",
               "decipher only": "decipher_only"}
_EXTENDED_USAGES = {"any": ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE, "server auth": ExtendedKeyUsageOID.SERVER_AUTH,
                    "client auth": ExtendedKeyUsageOID.CLIENT_AUTH, "code signing": ExtendedKeyUsageOID.CODE_SIGNING,
                    "email protection": ExtendedKeyUsageOID.EMAIL_PROTECTION,
                    "s/mime": ExtendedKeyUsageOID.EMAIL_PROTECTION,
                    "ipsec end system": x509.ObjectIdentifier("1.3.6.1.5.5.7.3.5"),
                    "ipsec tunnel": x509.ObjectIdentifier("1.3.6.1.5.5.7.3.6"),
                    "ipsec user": x509.ObjectIdentifier("1.3.6.1.5.5.7.3.7"),
                    "timestamping": ExtendedKeyUsageOID.TIME_STAMPING, "ocsp signing": ExtendedKeyUsageOID.OCSP_SIGNING,
                    "microsoft sgc": x509.ObjectIdentifier("1.3.6.1.4.1.311.10.3.3"),
                    "netscape sgc": x509.ObjectIdentifier("2.16.840.1.113730.4.1")}
_KUBELET_SERVING_USAGES = ({"digital signature", "key encipherment", "server auth"}, {"digital signature", "server auth"})
_KUBELET_CLIENT_USAGES = ({"digital signature", "key encipherment", "client auth"}, {"digital signature", "client auth"})

CAKey = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey


class Refused(Exception):
    """The signer's validation failure, in upstream's words."""


def _sans(request: x509.CertificateSigningRequest) -> x509.SubjectAlternativeName | None:
    try:
        return request.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return None


def check(signer: str, request: x509.CertificateSigningRequest, usages: list[str]) -> None:
    """Raises Refused where upstream's isRecognizedFn returns an error for the signer."""
    if signer == CLIENT:
        for usage in usages:
            if usage not in ("digital signature", "key encipherment", "client auth"):
                raise Refused(f"invalid usage for client certificate: {usage}")
        if "client auth" not in usages:
            raise Refused("missing required usage for client certificate: client auth")
        return
    organizations = [a.value for a in request.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]
    names = request.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    common_name = str(names[0].value) if names else ""
    sans = _sans(request)
    dns = sans.get_values_for_type(x509.DNSName) if sans else []
    ips = sans.get_values_for_type(x509.IPAddress) if sans else []
    emails = sans.get_values_for_type(x509.RFC822Name) if sans else []
    uris = sans.get_values_for_type(x509.UniformResourceIdentifier) if sans else []
    if organizations != ["system:nodes"]:
        raise Refused("subject organization is not system:nodes")
    if signer == KUBELET_SERVING:
        if not dns and not ips:
            raise Refused("DNS or IP subjectAltName is required")
        if emails:
            raise Refused("Email subjectAltNames are not allowed")
        if uris:
            raise Refused("URI subjectAltNames are not allowed")
        if set(usages) not in _KUBELET_SERVING_USAGES:
            raise Refused("usages did not match [digital signature key encipherment server auth]")
        if not common_name.startswith("system:node:"):
            raise Refused("subject common name does not begin with system:node:")
        return
    for found, what in ((dns, "DNS"), (emails, "Email"), (ips, "IP"), (uris, "URI")):
        if found:
            raise Refused(f"{what} subjectAltNames are not allowed")
    if not common_name.startswith("system:node:"):
        raise Refused("subject common name does not begin with system:node:")
    if set(usages) not in _KUBELET_CLIENT_USAGES:
        raise Refused("usages did not match [client auth digital signature key encipherment]")


def lifetime(expiration_seconds: int | None) -> datetime.timedelta:
    if expiration_seconds is None:
        return SIGNING_DURATION
    return min(max(datetime.timedelta(seconds=expiration_seconds), SHORTEST), SIGNING_DURATION)


def sign(request: x509.CertificateSigningRequest, usages: list[str], expiration_seconds: int | None,
         ca: x509.Certificate, ca_key: CAKey) -> bytes:
    """The PEM certificate upstream's CertificateAuthority.Sign makes under PermissiveSigningPolicy."""
    if not request.is_signature_valid:
        raise Refused("unable to verify certificate request signature")
    unknown = [u for u in usages if u not in _KEY_USAGES and u not in _EXTENDED_USAGES]
    if unknown:
        raise Refused(f"unrecognized usage: {unknown[0]}")
    now = datetime.datetime.now(datetime.timezone.utc)
    ttl = lifetime(expiration_seconds)
    not_after = now + ttl if ttl < SHORT else now + ttl - BACKDATE
    not_after = min(not_after, ca.not_valid_after_utc)
    flags = {name: False for name in set(_KEY_USAGES.values())}
    for usage in usages:
        if usage in _KEY_USAGES:
            flags[_KEY_USAGES[usage]] = True
    extended = sorted({_EXTENDED_USAGES[u] for u in usages if u in _EXTENDED_USAGES}, key=lambda oid: oid.dotted_string)
    builder = (x509.CertificateBuilder().subject_name(request.subject).issuer_name(ca.subject)
               .public_key(request.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - BACKDATE).not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False))
    if any(flags.values()):
        builder = builder.add_extension(x509.KeyUsage(**flags), critical=True)
    if extended:
        builder = builder.add_extension(x509.ExtendedKeyUsage(extended), critical=False)
    sans = _sans(request)
    if sans is not None:
        builder = builder.add_extension(sans, critical=False)
    return builder.sign(ca_key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)


def _condition(csr: Obj, kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status", "True") == "True"
               for c in (csr.get("status") or {}).get("conditions") or ())


class CSRSigner(Controller):
    name = "certificatesigningrequest-signing-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.csrs_type = ctx.resource("certificates.k8s.io", "v1", "certificatesigningrequests")
        self.csrs = ctx.informer("certificates.k8s.io", "v1", "certificatesigningrequests")
        self.pki = os.path.join(ctx.settings.data_dir, "pki")
        self.client = ctx.client.with_agent(CERTIFICATE_CONTROLLER)
        self.csrs.add_handler(self.enqueue_changed)

    def _ca(self) -> tuple[x509.Certificate, CAKey]:
        # Read when needed, so a CA rotated on disk is used from its next signature.
        with open(os.path.join(self.pki, "ca.crt"), "rb") as f:
            ca = x509.load_pem_x509_certificate(f.read())
        with open(os.path.join(self.pki, "ca.key"), "rb") as f:
            key = serialization.load_pem_private_key(f.read(), password=None)
        # This server's own CA is EC; one an operator brings (test/cmd's --cluster-signing-key-file) may be RSA.
        assert isinstance(key, (ec.EllipticCurvePrivateKey, rsa.RSAPrivateKey))
        return ca, key

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        csr = self.csrs.get("", key[1])
        if csr is None or (csr.get("status") or {}).get("certificate"):
            return
        if not _condition(csr, "Approved") or _condition(csr, "Denied") or _condition(csr, "Failed"):
            return
        spec = csr.get("spec") or {}
        signer = spec.get("signerName")
        if signer not in (CLIENT, KUBELET_CLIENT, KUBELET_SERVING):
            return
        usages = [str(u) for u in spec.get("usages") or ()]
        try:
            request = x509.load_pem_x509_csr(base64.b64decode(spec.get("request", "")))
        except ValueError as exc:
            raise ValueError(f"unable to parse csr {key[1]!r}: {exc}") from None
        try:
            check(str(signer), request, usages)
            ca, ca_key = self._ca()
            certificate = sign(request, usages, spec.get("expirationSeconds"), ca, ca_key)
        except Refused as exc:
            now = now_rfc3339()
            csr.setdefault("status", {}).setdefault("conditions", []).append({
                "type": "Failed", "status": "True", "reason": "SignerValidationFailure", "message": str(exc),
                "lastUpdateTime": now})
            await self.client.update(self.csrs_type, csr, subresource="status")
            return
        csr.setdefault("status", {})["certificate"] = base64.b64encode(certificate).decode()
        await self.client.update(self.csrs_type, csr, subresource="status")
