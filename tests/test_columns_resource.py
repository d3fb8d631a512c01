"""The ResourceClaim printer's STATE through allocation, reservation and deletion."""

from __future__ import annotations

from typing import Any

import pytest
from columns_golden import cells

from columns import resource

DELETING = {"deletionTimestamp": "2033-05-18T03:00:00Z"}
ALLOCATED = {"allocation": {"devices": {"results": []}}}
RESERVED = {**ALLOCATED, "reservedFor": [{"resource": "pods", "name": "p", "uid": "1"}]}


@pytest.mark.parametrize(("metadata", "status", "state"), [
    ({}, {}, "pending"),
    ({}, ALLOCATED, "allocated"),
    ({}, RESERVED, "allocated,reserved"),
    (DELETING, {}, "deleted"),
    (DELETING, RESERVED, "deleted,allocated,reserved"),
], ids=str)
def test_claim_state(metadata: dict[str, Any], status: dict[str, Any], state: str) -> None:
    assert cells(resource.RESOURCE_CLAIMS, {"metadata": metadata, "status": status})[1] == state
