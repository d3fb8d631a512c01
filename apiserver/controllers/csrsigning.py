"""The CSR signing controller: approved CertificateSigningRequests for the kubernetes.io signers get
their certificate from the cluster CA (kube-controller-manager's csrsigning, pkg/controller/certificates/signer).

Each signer first checks the request is one it may sign (a client certificate's usages; a kubelet's
organization, names and usages); one it may not is marked Failed, SignerValidationFailure. The
certificate carries the request's subject and names, the usages asked for, starts five minutes back
(clocks drift) and lasts the requested expirationSeconds (10 minutes at least) or a year, never past
the CA's own end.
"""

from __future__ import annotations

import base64
import datetime
from collections.abc import Callable, Hashable
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from apiserver.controllers.base import Context, Controller, Obj
from apiserver.kinds.objects import now_rfc3339

_BACKDATE = datetime.timedelta(minutes=5)
_DEFAULT_TTL = datetime.timedelta(days=365)  # --cluster-signing-duration's default
_MIN_TTL = datetime.timedelta(minutes=10)
_EXTENDED = {"server auth": ExtendedKeyUsageOID.SERVER_AUTH, "client auth": ExtendedKeyUsageOID.CLIENT_AUTH,
             "code signing": ExtendedKeyUsageOID.CODE_SIGNING, "email protection": ExtendedKeyUsageOID.EMAIL_PROTECTION,
             "timestamping": ExtendedKeyUsageOID.TIME_STAMPING, "ocsp signing": ExtendedKeyUsageOID.OCSP_SIGNING}
_KEY_USAGES = {"digital signature": "digital_signature", "content commitment": "content_commitment",
               "key encipherment": "key_encipherment", "key agreement": "key_agreement",
               "data encipherment": "data_encipherment", "cert sign": "key_cert_sign", "crl sign": "crl_sign",
               "encipher only": "encipher_only", "decipher only": "decipher_only"}


def _client_usages(req: x509.CertificateSigningRequest, usages: list[str]) -> str | None:
    for usage in usages:
        if usage not in ("digital signature", "key encipherment", "client auth"):
            return f"invalid usage for client certificate: {usage}"
    return None if "client auth" in usages else "missing required usage for client certificate: client auth"


def _names(req: x509.CertificateSigningRequest) -> x509.SubjectAlternativeName | None:
    try:
        return req.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return None


def _kubelet(req: x509.CertificateSigningRequest, usages: list[str], serving: bool) -> str | None:
    """ValidateKubeletServingCSR and ValidateKubeletClientCSR."""
    organizations = [a.value for a in req.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]
    if organizations != ["system:nodes"]:
        return "subject organization is not system:nodes"
    names = _names(req)
    dns = names.get_values_for_type(x509.DNSName) if names else []
    ips = names.get_values_for_type(x509.IPAddress) if names else []
    if serving and not dns and not ips:
        return "DNS or IP subjectAltName is required"
    if not serving and dns:
        return "DNS subjectAltNames are not allowed"
    if names and names.get_values_for_type(x509.RFC822Name):
        return "Email subjectAltNames are not allowed"
    if not serving and ips:
        return "IP subjectAltNames are not allowed"
    if names and names.get_values_for_type(x509.UniformResourceIdentifier):
        return "URI subjectAltNames are not allowed"
    common = [a.value for a in req.subject.get_attributes_for_oid(NameOID.COMMON_NAME)]
    role = "server auth" if serving else "client auth"
    if not serving and not (common and str(common[0]).startswith("system:node:")):
        return "subject common name does not begin with system:node:"
    if set(usages) not in ({"digital signature", "key encipherment", role}, {"digital signature", role}):
        return f"usages did not match [digital signature key encipherment {role}]"
    if serving and not (common and str(common[0]).startswith("system:node:")):
        return "subject common name does not begin with system:node:"
    return None


# signerName -> the check of a request it may sign (None: anything, as legacy-unknown).
_SIGNERS: dict[str, Callable[[x509.CertificateSigningRequest, list[str]], str | None]] = {
    "kubernetes.io/kube-apiserver-client": _client_usages,
    "kubernetes.io/kube-apiserver-client-kubelet": lambda req, usages: _kubelet(req, usages, serving=False),
    "kubernetes.io/kubelet-serving": lambda req, usages: _kubelet(req, usages, serving=True),
    "kubernetes.io/legacy-unknown": lambda req, usages: None,
}


def _has(csr: Obj, kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status") == "True"
               for c in (csr.get("status") or {}).get("conditions") or ())


class CSRSigning(Controller):
    name = "certificatesigningrequest-signing-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.csrs_type = ctx.resource("certificates.k8s.io", "v1", "certificatesigningrequests")
        self.csrs = ctx.informer("certificates.k8s.io", "v1", "certificatesigningrequests")
        self.csrs.add_handler(self._changed)
        self._ca: Any = None

    def _changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is not None and _has(new, "Approved") and not (new.get("status") or {}).get("certificate"):
            self.queue.add(new["metadata"]["name"])

    def _authority(self) -> tuple[x509.Certificate, Any]:
        if self._ca is None:
            certificate = x509.load_pem_x509_certificate(self.ctx.ca_pem.encode())
            key = serialization.load_pem_private_key(self.ctx.ca_key_pem.encode(), password=None)
            self._ca = (certificate, key)
        return self._ca  # type: ignore[no-any-return]

    async def sync(self, key: Hashable) -> None:
        csr = self.csrs.get("", str(key))
        if csr is None or not _has(csr, "Approved") or _has(csr, "Failed") or not self.ctx.ca_key_pem:
            return
        spec, status = csr.get("spec") or {}, dict(csr.get("status") or {})
        check = _SIGNERS.get(spec.get("signerName", ""))
        if check is None or status.get("certificate"):
            return
        request = x509.load_pem_x509_csr(base64.b64decode(spec.get("request") or ""))
        usages = list(spec.get("usages") or ())
        refused = check(request, usages)
        if refused is not None:
            status["conditions"] = [*status.get("conditions", ()), {
                "type": "Failed", "status": "True", "reason": "SignerValidationFailure", "message": refused,
                "lastUpdateTime": now_rfc3339()}]
        else:
            status["certificate"] = base64.b64encode(self._sign(request, usages, spec.get("expirationSeconds"))).decode()
        await self.client.update(self.csrs_type, {**csr, "status": status}, subresource="status")

    def _sign(self, request: x509.CertificateSigningRequest, usages: list[str], expiration: int | None) -> bytes:
        ca, ca_key = self._authority()
        ttl = _DEFAULT_TTL if expiration is None else min(max(datetime.timedelta(seconds=expiration), _MIN_TTL),
                                                          _DEFAULT_TTL)
        now = datetime.datetime.now(datetime.UTC)
        builder = (x509.CertificateBuilder().subject_name(request.subject).issuer_name(ca.subject)
                   .public_key(request.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - _BACKDATE)
                   .not_valid_after(min(now - _BACKDATE + ttl, ca.not_valid_after_utc))
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True))
        flags = {name: False for name in _KEY_USAGES.values()}
        flags.update((_KEY_USAGES[u], True) for u in usages if u in _KEY_USAGES)
        if any(flags.values()):
            builder = builder.add_extension(x509.KeyUsage(**flags), critical=True)
        extended = [_EXTENDED[u] for u in usages if u in _EXTENDED]
        if extended:
            builder = builder.add_extension(x509.ExtendedKeyUsage(extended), critical=False)
        names = _names(request)
        if names is not None:
            builder = builder.add_extension(names, critical=False)
        certificate = builder.sign(ca_key, hashes.SHA256())
        return certificate.public_bytes(serialization.Encoding.PEM)
