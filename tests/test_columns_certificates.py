"""The CertificateSigningRequest printer's CONDITION and REQUESTEDDURATION."""

from __future__ import annotations

import pytest
from columns_golden import cells

from columns.certificates import CERTIFICATE_SIGNING_REQUESTS as CSRS


@pytest.mark.parametrize(("types", "certificate", "shown"), [
    ([], "", "Pending"),
    (["Approved", "Denied"], "", "Denied"),
    (["Approved", "Failed"], "", "Approved,Failed"),
    (["Failed"], "Y2VydA==", "Pending,Failed,Issued"),
], ids=str)
def test_condition(types: list[str], certificate: str, shown: str) -> None:
    csr = {"status": {"conditions": [{"type": t, "status": "True"} for t in types], "certificate": certificate}}
    assert cells(CSRS, csr)[5] == shown


def test_signer_requestor_and_duration() -> None:
    csr = {"spec": {"username": "system:node:a", "expirationSeconds": 3600}}
    assert cells(CSRS, csr)[2:5] == ["<none>", "system:node:a", "60m"]
