"""The networking printers against the cells a real kube-apiserver 1.36.2 printed for the same objects."""

from __future__ import annotations

import orjson
from columns_golden import cells

from columns import networking
from columns.base import RenderedCell


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


def test_ip_address_parent_and_its_undeclared_age() -> None:
    def row(parent: dict[str, str] | None) -> list[RenderedCell]:
        return cells(networking.IP_ADDRESSES, {"metadata": {"name": "10.0.0.1"}, "spec": {"parentRef": parent}})

    assert row(None) == ["10.0.0.1", "<none>", "<unknown>"]
    assert row({"resource": "Services", "namespace": "default", "name": "web"})[1] == "services/default/web"
    assert row({"group": "Example.com", "resource": "gateways", "name": "gw"})[1] == "gateways.example.com/gw"


def test_network_policy_selecting_every_pod() -> None:
    assert cells(networking.NETWORK_POLICIES, {"spec": {"podSelector": {}}})[1] == "<none>"
    assert cells(networking.NETWORK_POLICIES, {})[1] == "<none>"
