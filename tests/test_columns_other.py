"""The other printers against the cells a real kube-apiserver 1.36.2 printed for the same objects."""

from __future__ import annotations

import orjson
from columns_golden import NOW

from columns import other
from columns.base import Cell, render_cells


def test_lease_columns_and_rows() -> None:
    assert [c["name"] for c in other.LEASES.definitions] == ["Name", "Holder", "Age"]
    lease = {"metadata": {"name": "kube-scheduler", "creationTimestamp": "2033-05-18T03:30:00Z"},
             "spec": {"holderIdentity": "node-a_1234"}}
    assert render_cells(other.LEASES.row(orjson.dumps(lease)), NOW) == ["kube-scheduler", "node-a_1234", "3m20s"]
    assert render_cells(other.LEASES.row(b"{}"), NOW) == ["", "", "<unknown>"]


def test_api_service_availability() -> None:
    def row(service: object, conditions: list[dict[str, str]]) -> list[Cell]:
        obj = {"spec": {"service": service}, "status": {"conditions": conditions}}
        return other.API_SERVICES.row(orjson.dumps(obj)).cells[1:3]

    down = [{"type": "Available", "status": "False", "reason": "MissingEndpoints"}]
    assert row({"namespace": "kube-system", "name": "metrics"}, down) == \
        ["kube-system/metrics", "False (MissingEndpoints)"]
    assert row(None, [{"type": "Available", "status": "False"}]) == ["Local", "False"]
    assert row(None, []) == ["Local", "Unknown"]
