"""The networking printers against the cells a real kube-apiserver 1.36.2 printed for the same objects."""

from __future__ import annotations

import orjson
import pytest
from columns_golden import GoldenRow, column_definitions, printed, rows

from columns import networking
from columns.base import Printer

PRINTERS: dict[str, Printer] = {
    "ingresses.networking.k8s.io": networking.INGRESSES,
    "ingressclasses.networking.k8s.io": networking.INGRESS_CLASSES,
    "endpointslices.discovery.k8s.io": networking.ENDPOINT_SLICES,
}


@pytest.mark.parametrize("golden", [g for resource in PRINTERS for g in rows(resource)], ids=str)
def test_rows_match_upstream(golden: GoldenRow) -> None:
    assert printed(PRINTERS[golden.resource], golden) == (golden.cells, golden.conditions)


@pytest.mark.parametrize("resource", PRINTERS)
def test_columns_match_upstream(resource: str) -> None:
    assert PRINTERS[resource].definitions == column_definitions(resource)


def test_ingress_hosts() -> None:
    def hosts(rules: list[dict[str, str]]) -> object:
        return networking.INGRESSES.row(orjson.dumps({"spec": {"rules": rules}})).cells[2]

    assert hosts([{}]) == "*"
    assert hosts([{"host": "a"}, {}, {"host": "b"}, {"host": "c"}]) == "a,b,c"
    assert hosts([{"host": "a"}, {"host": "b"}, {"host": "c"}, {}, {"host": "d"}]) == "a,b,c + 2 more..."


def test_ingress_class_parameters() -> None:
    ref = {"spec": {"parameters": {"kind": "Params", "apiGroup": "example.com", "name": "p"}}}
    assert networking.INGRESS_CLASSES.row(orjson.dumps(ref)).cells[2] == "Params.example.com/p"


def test_endpoint_slice_ports_and_endpoints() -> None:
    slice_ = {"ports": [{"name": "http"}, {}, {"port": 1}, {"port": 2}],
              "endpoints": [{"addresses": ["a", "b"]}, {"addresses": ["c", "d", "e"]}]}
    assert networking.ENDPOINT_SLICES.row(orjson.dumps(slice_)).cells[2:4] == \
        ["http,*,1 + 1 more...", "a,b,c + 2 more..."]
    assert networking.ENDPOINT_SLICES.row(b"{}").cells[2:4] == ["<unset>", "<unset>"]
