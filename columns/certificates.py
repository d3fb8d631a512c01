"""The CertificateSigningRequest printer (certificates.k8s.io/v1).

CONDITION is Denied, else Approved, else Pending, then ",Failed" for a Failed condition and
",Issued" once a certificate is set; REQUESTEDDURATION is the requested expirationSeconds as a
human duration.
"""

from __future__ import annotations

import msgspec

from columns.base import Row
from columns.declare import Meta, age_column, column, name_column, printer
from columns.format import NONE, human_duration, since


class CSRSpec(msgspec.Struct):
    signerName: str = ""
    username: str = ""
    expirationSeconds: int | None = None


class CSRCondition(msgspec.Struct):
    type: str = ""


class CSRStatus(msgspec.Struct):
    conditions: list[CSRCondition] = []
    certificate: str = ""


class CertificateSigningRequest(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: CSRSpec = msgspec.field(default_factory=CSRSpec)
    status: CSRStatus = msgspec.field(default_factory=CSRStatus)


def csr_condition(status: CSRStatus) -> str:
    types = {c.type for c in status.conditions}
    text = "Denied" if "Denied" in types else "Approved" if "Approved" in types else "Pending"
    if "Failed" in types:
        text += ",Failed"
    if status.certificate:
        text += ",Issued"
    return text


def csr_row(csr: CertificateSigningRequest) -> Row:
    spec = csr.spec
    duration = NONE if spec.expirationSeconds is None else human_duration(spec.expirationSeconds)
    return Row([csr.metadata.name, since(csr.metadata.creationTimestamp), spec.signerName or NONE, spec.username,
                duration, csr_condition(csr.status)])


CERTIFICATE_SIGNING_REQUESTS = printer(
    [name_column(), age_column(),
     column("SignerName", "Requested signer for the request. It is a qualified name in the form: "
                          "`scope-hostname.io/name`. If empty, it will be defaulted:\n"
                          " 1. If it's a kubelet client certificate, it is assigned\n"
                          "    \"kubernetes.io/kube-apiserver-client-kubelet\".\n"
                          " 2. If it's a kubelet serving certificate, it is assigned\n"
                          "    \"kubernetes.io/kubelet-serving\".\n"
                          " 3. Otherwise, it is assigned \"kubernetes.io/legacy-unknown\".\n"
                          "Distribution of trust for signers happens out of band. You can select on this field "
                          "using `spec.signerName`."),
     column("Requestor", "Base64-encoded PKCS#10 CSR data"),
     column("RequestedDuration",
            "expirationSeconds is the requested duration of validity of the issued certificate. The certificate "
            "signer may issue a certificate with a different validity duration so a client must check the delta "
            "between the notBefore and and notAfter fields in the issued certificate to determine the actual "
            "duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor "
            "this field as long as the requested duration is not greater than the maximum duration they will "
            "honor per the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\n"
            "Certificate signers may not honor this field for various reasons:\n\n"
            "  1. Old signer that is unaware of the field (such as the in-tree\n"
            "     implementations prior to v1.22)\n"
            "  2. Signer whose configured maximum is shorter than the requested duration\n"
            "  3. Signer whose configured minimum is longer than the requested duration\n\n"
            "The minimum valid value for expirationSeconds is 600, i.e. 10 minutes."),
     column("Condition", "Conditions applied to the request, such as approval or denial.")],
    CertificateSigningRequest,
    csr_row,
)
