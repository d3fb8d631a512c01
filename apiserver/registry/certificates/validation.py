"""certificates.k8s.io validation: pkg/apis/certificates/validation/validation.go
(ValidateCertificateSigningRequestCreate, ...Update and the status and approval updates' rules) and
core's ValidateSignerName (pkg/apis/core/validation/names.go).

`spec.request` and `status.certificate` are []byte: they arrive base64-encoded, the decoder having
refused what is not; a bad value is shown as json.Marshal shows []byte, base64 again (null when unset).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1123_label, dns1123_subdomain
from apiserver.registry import field
from apiserver.registry import meta as object_meta

Obj = dict[str, Any]

LEGACY_UNKNOWN_SIGNER = "kubernetes.io/legacy-unknown"
_TRUE_ONLY_TYPES = frozenset({"Approved", "Denied", "Failed"})
_ALL_STATUSES = ("False", "True", "Unknown")
_VALID_USAGES = tuple(sorted((
    "signing", "digital signature", "content commitment", "key encipherment", "key agreement",
    "data encipherment", "cert sign", "crl sign", "encipher only", "decipher only", "any", "server auth",
    "client auth", "code signing", "email protection", "s/mime", "ipsec end system", "ipsec tunnel",
    "ipsec user", "timestamping", "ocsp signing", "microsoft sgc", "netscape sgc")))
_PEM_BLOCK = re.compile(rb"-----BEGIN ([^\r\n-]*)-----\r?\n(.*?)-----END \1-----", re.DOTALL)
_MAX_SUBDOMAIN = 253
_MAX_LABEL = 63


@dataclass(frozen=True)
class _Options:
    """certificateValidationOptions: what existing data (the old object) lets an update keep."""

    setting_approval: bool = False
    setting_certificate: bool = False
    both_approved_and_denied: bool = False
    legacy_signer: bool = False
    duplicate_condition_types: bool = False
    empty_condition_type: bool = False
    arbitrary_certificate: bool = False
    unknown_usages: bool = False
    duplicate_usages: bool = False


def _spec(obj: Obj) -> Obj:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


def _conditions(obj: Obj) -> list[Obj]:
    status = obj.get("status")
    conditions = status.get("conditions") if isinstance(status, dict) else None
    return [c if isinstance(c, dict) else {} for c in conditions] if isinstance(conditions, list) else []


def _usages(obj: Obj) -> list[Any]:
    usages = _spec(obj).get("usages")
    return usages if isinstance(usages, list) else []


def _bytes(value: Any) -> bytes:
    if not isinstance(value, str):
        return b""
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return value.encode()


def _certificate_of(obj: Obj) -> bytes:
    status = obj.get("status")
    return _bytes(status.get("certificate")) if isinstance(status, dict) else b""


def _pem_blocks(data: bytes) -> list[tuple[str, bytes, bool]]:
    """(type, DER bytes, has headers) of each PEM block, as encoding/pem.Decode finds them in turn."""
    blocks = []
    for match in _PEM_BLOCK.finditer(data):
        body = match.group(2)
        has_headers = b":" in body.split(b"\n\n", 1)[0] if b"\n\n" in body else False
        if has_headers:
            body = body.split(b"\n\n", 1)[1]
        try:
            der = base64.b64decode(b"".join(body.split()), validate=True)
        except (binascii.Error, ValueError):
            continue
        blocks.append((match.group(1).decode(errors="replace"), der, has_headers))
    return blocks


def _request_problem(request: bytes) -> str | None:
    """certificates.ParseCSR, then CheckSignature: what is wrong with the request, or None."""
    blocks = _pem_blocks(request)
    if not blocks or blocks[0][0] != "CERTIFICATE REQUEST":
        return "PEM block type must be CERTIFICATE REQUEST"
    try:
        csr = x509.load_der_x509_csr(blocks[0][1])
        key = csr.public_key()
        valid = csr.is_signature_valid
    except (ValueError, TypeError):
        return "x509: malformed certificate request"
    if valid:
        return None
    if isinstance(key, rsa.RSAPublicKey):
        return "crypto/rsa: verification error"
    if isinstance(key, ec.EllipticCurvePublicKey):
        return "x509: ECDSA verification failure"
    if isinstance(key, ed25519.Ed25519PublicKey):
        return "x509: Ed25519 verification failure"
    return "x509: cannot verify signature: algorithm unimplemented"


def _certificate_problem(data: bytes) -> str | None:
    """validateCertificate: CERTIFICATE PEM blocks only, without headers, each holding certificates."""
    if not data:
        return None
    blocks = _pem_blocks(data)
    for kind, der, has_headers in blocks:
        if kind != "CERTIFICATE":
            return f"only CERTIFICATE PEM blocks are allowed, found {field.go_quote(kind)}"
        if has_headers:
            return "no PEM block headers are permitted"
        try:
            x509.load_der_x509_certificate(der)
        except ValueError:
            return "x509: malformed certificate"
    return None if blocks else "must contain at least one CERTIFICATE PEM block"


def signer_name(path: str, name: str) -> list[FieldError]:
    """ValidateSignerName: `domain/path`, the domain of two or more DNS labels, the path of subdomains."""
    if not name:
        return [field.required(path)]
    segments = name.split("/")
    if len(segments) != 2:
        return [field.invalid(path, name, "must be a fully qualified domain and path of the form "
                                          "'example.com/signer-name'")]
    found: list[FieldError] = []
    domain, signer_path = segments
    if len(domain) > _MAX_SUBDOMAIN:
        found.append(field.too_long(path, _MAX_SUBDOMAIN))
    domain_labels = domain.split(".")
    for label in domain_labels:
        problems = dns1123_label(label)
        if problems:
            found += [field.invalid(path, domain, f"validating label {field.go_quote(label)}: {p}") for p in problems]
            break
    if len(domain_labels) < 2:
        found.append(field.invalid(path, domain, "should be a domain with at least two segments separated by dots"))
    for label in signer_path.split("."):
        problems = dns1123_subdomain(label)
        if problems:
            found += [field.invalid(path, signer_path, f"validating label {field.go_quote(label)}: {p}")
                      for p in problems]
            break
    longest = _MAX_SUBDOMAIN + (_MAX_SUBDOMAIN + _MAX_LABEL + 1) + 1
    if len(name) > longest:
        found.append(field.too_long(path, longest))
    return found


def _condition_errors(obj: Obj, opts: _Options) -> list[FieldError]:
    """validateConditions."""
    found: list[FieldError] = []
    seen: set[Any] = set()
    approved = denied = False
    for index, condition in enumerate(_conditions(obj)):
        path = f"status.conditions[{index}]"
        kind, status = condition.get("type") or "", condition.get("status") or ""
        if not opts.empty_condition_type and not kind:
            found.append(field.required(f"{path}.type"))
        allowed = ("True",) if kind in _TRUE_ONLY_TYPES else _ALL_STATUSES
        if not status:
            found.append(field.required(f"{path}.status"))
        elif status not in allowed:
            found.append(field.not_supported(f"{path}.status", status, allowed))
        if not opts.both_approved_and_denied:
            if kind == "Approved":
                approved = True
                if denied:
                    found.append(field.invalid("status.conditions", kind,
                                               "Approved and Denied conditions are mutually exclusive"))
            elif kind == "Denied":
                denied = True
                if approved:
                    found.append(field.invalid("status.conditions", kind,
                                               "Approved and Denied conditions are mutually exclusive"))
        if not opts.duplicate_condition_types:
            if kind in seen:
                found.append(field.duplicate(f"{path}.type", kind))
            seen.add(kind)
    return found


def _request_shown(value: Any) -> str:
    return field.go_json(value) if isinstance(value, str) else "null"


def _csr_errors(obj: Obj, opts: _Options) -> list[FieldError]:
    """validateCertificateSigningRequest past its ValidateObjectMeta."""
    spec = _spec(obj)
    found: list[FieldError] = []
    problem = _request_problem(_bytes(spec.get("request")))
    if problem:
        found.append(field.invalid_shown("spec.request", _request_shown(spec.get("request")), problem))
    usages = _usages(obj)
    if not usages:
        found.append(field.required("spec.usages"))
    if not opts.unknown_usages:
        found += [field.not_supported(f"spec.usages[{i}]", usage, _VALID_USAGES)
                  for i, usage in enumerate(usages) if usage not in _VALID_USAGES]
    if not opts.duplicate_usages:
        seen: set[Any] = set()
        for index, usage in enumerate(usages):
            if usage in seen:
                found.append(field.duplicate(f"spec.usages[{index}]", usage))
            seen.add(usage)
    signer = spec.get("signerName")
    signer = signer if isinstance(signer, str) else ""
    if not opts.legacy_signer and signer == LEGACY_UNKNOWN_SIGNER:
        found.append(field.invalid("spec.signerName", signer, "the legacy signerName is not allowed via this API version"))
    else:
        found += signer_name("spec.signerName", signer)
    expiration = spec.get("expirationSeconds")
    if isinstance(expiration, int) and not isinstance(expiration, bool) and expiration < 600:
        found.append(field.invalid("spec.expirationSeconds", expiration,
                                   "may not specify a duration less than 600 seconds (10 minutes)"))
    found += _condition_errors(obj, opts)
    if not opts.arbitrary_certificate:
        problem = _certificate_problem(_certificate_of(obj))
        if problem:
            found.append(field.invalid("status.certificate", "<certificate data>", problem))
    return found


def _options(new: Obj, old: Obj | None) -> _Options:
    """getValidationOptions: an update tolerates in the new object what the old one already had."""
    if old is None:
        return _Options()
    old_types = [c.get("type") or "" for c in _conditions(old)]
    old_usages = _usages(old)
    old_certificate = _certificate_of(old)
    return _Options(
        both_approved_and_denied="Approved" in old_types and "Denied" in old_types,
        legacy_signer=_spec(old).get("signerName") == LEGACY_UNKNOWN_SIGNER,
        duplicate_condition_types=len(set(old_types)) != len(old_types),
        empty_condition_type="" in old_types,
        arbitrary_certificate=_certificate_of(new) == old_certificate or _certificate_problem(old_certificate) is not None,
        unknown_usages=any(u not in _VALID_USAGES for u in old_usages),
        duplicate_usages=len({field.go_json(u) for u in old_usages}) != len(old_usages))


def _update_errors(new: Obj, old: Obj, opts: _Options) -> list[FieldError]:
    """validateCertificateSigningRequestUpdate past its closing ValidateObjectMetaUpdate (the write
    path's): the new object's own rules, then what an update may not do to conditions and certificate."""
    found = object_meta.validate(new.get("metadata") or {}, False, _any_name)
    found += _csr_errors(new, opts)
    for kind in ("Approved", "Denied", "Failed"):
        if len(_typed(new, kind)) < len(_typed(old, kind)):
            found.append(field.forbidden("status.conditions", f"updates may not remove a condition of type {field.go_quote(kind)}"))
    if not opts.setting_approval:
        for kind in ("Approved", "Denied"):
            olds, news = _typed(old, kind), _typed(new, kind)
            if len(news) > len(olds):
                found.append(field.forbidden("status.conditions", f"updates may not add a condition of type {field.go_quote(kind)}"))
            elif len(news) == len(olds) and news != olds:
                # Upstream appends a diff of the Go structs, which nothing here can render alike.
                found.append(field.forbidden("status.conditions", f"updates may not modify a condition of type {field.go_quote(kind)}"))
    if _certificate_of(new) != _certificate_of(old):
        if not opts.setting_certificate:
            found.append(field.forbidden("status.certificate", "updates may not set certificate content"))
        elif _certificate_of(old):
            found.append(field.forbidden("status.certificate", "updates may not modify existing certificate content"))
    return found


def _any_name(name: str, prefix: bool) -> list[str]:
    """ValidateCertificateRequestName: the strategy takes any name (the generic path's rule still applies)."""
    return []


def _typed(obj: Obj, kind: str) -> list[Obj]:
    return [c for c in _conditions(obj) if c.get("type") == kind]


def csr_create(obj: Obj) -> list[FieldError]:
    """ValidateCertificateSigningRequestCreate past its ValidateObjectMeta, which the write path runs."""
    return _csr_errors(obj, _options(obj, None))


def csr_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateCertificateSigningRequestUpdate: the main resource's update."""
    return _update_errors(new, old, _options(new, old))


def csr_status_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateCertificateSigningRequestStatusUpdate: /status may set the certificate."""
    opts = _options(new, old)
    return _update_errors(new, old, _Options(**{**opts.__dict__, "setting_certificate": True}))


def csr_approval_update(new: Obj, old: Obj) -> list[FieldError]:
    """ValidateCertificateSigningRequestApprovalUpdate: /approval may set Approved and Denied."""
    opts = _options(new, old)
    return _update_errors(new, old, _Options(**{**opts.__dict__, "setting_approval": True}))
