"""CertificateApproval and CertificateSigning (plugin/pkg/admission/certificates/approval and .../signing):
who may approve, and who may sign, a CertificateSigningRequest is decided by its signer.

Approving (an update of `certificatesigningrequests/approval`) needs the verb `approve`, and changing
the certificate or the conditions through `certificatesigningrequests/status` needs `sign`, on the
resource `signers` of certificates.k8s.io named by the request's signerName, or by its domain and a
wildcard ("example.com/*"), as certauthorization.IsAuthorizedForSignerName asks the authorizer. The
old object's signerName is the one judged: an update that also tries to change it is refused later.
"""

from __future__ import annotations

from apiserver.admissionplugins.request import Obj, Request
from apiserver.auth import access
from apiserver.auth.tokens import User

_GROUP = "certificates.k8s.io"
_RESOURCE = "certificatesigningrequests"


def authorized_for_signer(authorizer: access.Authorizer, user: User, verb: str, signer: str) -> bool:
    """IsAuthorizedForSignerName: the signer by name, else every signer of its domain."""
    for name in (signer, signer.split("/")[0] + "/*"):
        if authorizer.decide(user, access.Attributes(verb, _GROUP, "signers", None, "", name)).allowed:
            return True
    return False


def check_approval(request: Request, user: User, authorizer: access.Authorizer) -> None:
    if request.group != _GROUP or request.resource != _RESOURCE or request.subresource != "approval":
        return
    if request.operation != "UPDATE" or request.old is None:
        return
    signer = _signer(request.old)
    if not authorized_for_signer(authorizer, user, "approve", signer):
        raise request.forbidden(f'user not permitted to approve requests with signerName "{signer}"')


def check_signing(request: Request, user: User, authorizer: access.Authorizer) -> None:
    if request.group != _GROUP or request.resource != _RESOURCE or request.subresource != "status":
        return
    if request.operation != "UPDATE" or request.old is None or request.obj is None:
        return
    old, new = request.old.get("status") or {}, request.obj.get("status") or {}
    if old.get("certificate") == new.get("certificate") and \
            (old.get("conditions") or []) == (new.get("conditions") or []):
        return
    signer = _signer(request.old)
    if not authorized_for_signer(authorizer, user, "sign", signer):
        raise request.forbidden(f'user not permitted to sign requests with signerName "{signer}"')


def _signer(csr: Obj) -> str:
    return str((csr.get("spec") or {}).get("signerName") or "")
