"""Small default plugins that judge one object against what it names or what is stored beside it:

- PersistentVolumeClaimResize (plugin/pkg/admission/storage/persistentvolume/resize): a claim's storage
  request may grow only once the claim is bound, and only when its StorageClass (the same before and
  after) allows volume expansion.
- CertificateSubjectRestriction (plugin/pkg/admission/certificates/subjectrestriction): no
  CertificateSigningRequest for the kube-apiserver-client signer may ask for the system:masters group.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

from cryptography import x509
from cryptography.x509.oid import NameOID

from apiserver.admissionplugins.request import Obj, Request
from apiserver.kinds import quantity

_API_CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client"


def _storage(claim: Obj) -> quantity.Quantity:
    value = (((claim.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage")
    return quantity.ZERO if value is None else quantity.parse(value)


def _claim_class(claim: Obj) -> str:
    beta = ((claim.get("metadata") or {}).get("annotations") or {}).get("volume.beta.kubernetes.io/storage-class")
    return str(beta if beta is not None else (claim.get("spec") or {}).get("storageClassName") or "")


def check_resize(request: Request, storage_class: Callable[[str], Obj | None]) -> None:
    if request.group or request.resource != "persistentvolumeclaims" or request.subresource:
        return
    if request.operation != "UPDATE" or request.obj is None or request.old is None:
        return
    if _storage(request.obj).value <= _storage(request.old).value:
        return
    if (request.old.get("status") or {}).get("phase") != "Bound":
        raise request.forbidden("Only bound persistent volume claims can be expanded")
    name, old_name = _claim_class(request.obj), _claim_class(request.old)
    found = storage_class(name) if name and name == old_name else None
    if found is None or found.get("allowVolumeExpansion") is not True:
        raise request.forbidden("only dynamically provisioned pvc can be resized and the storageclass that "
                                "provisions the pvc must support resize")


def check_subject(request: Request) -> None:
    if request.group != "certificates.k8s.io" or request.resource != "certificatesigningrequests":
        return
    if request.operation != "CREATE" or request.subresource or request.obj is None:
        return
    spec = request.obj.get("spec") or {}
    if spec.get("signerName") != _API_CLIENT_SIGNER:
        return
    try:
        csr = x509.load_pem_x509_csr(base64.b64decode(spec.get("request") or ""))
    except ValueError as exc:
        raise request.forbidden(f"failed to parse CSR: {exc}") from None
    groups = [a.value for a in csr.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]
    if "system:masters" in groups:
        raise request.forbidden(f"use of {_API_CLIENT_SIGNER} signer with system:masters group is not allowed")
