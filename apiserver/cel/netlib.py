"""Kubernetes' CEL url, ip and cidr libraries (`k8s.io/apiserver/pkg/cel/library/{urls,ip,cidr}.go`).

Go parses with `url.ParseRequestURI` (whose refusals apiserver/cel/requesturi.py ports) and `netip`;
Python's `ipaddress` accepts a little more, so the refusals upstream makes that Python would not
(zones, IPv4-mapped IPv6 addresses) are made here first, with upstream's wording. A URL's parts are
read with Python's urlsplit.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import parse_qs, urlsplit

from apiserver.cel import requesturi
from apiserver.cel.opaque import CIDR, IP, URL


class NetError(ValueError):
    pass


def url(text: str) -> Any:
    problem = requesturi.error(text)
    if problem is not None:
        raise NetError(f"URL parse error during conversion from string: {problem}")
    return URL(value=text)


def is_url(text: str) -> bool:
    return requesturi.error(text) is None


def get_scheme(u: Any) -> str:
    return str(urlsplit(u.value).scheme)


def get_host(u: Any) -> str:
    return str(urlsplit(u.value).netloc.rpartition("@")[2])


def get_hostname(u: Any) -> str:
    return str(urlsplit(u.value).hostname or "")


def get_port(u: Any) -> str:
    host = get_host(u)
    port = host.rpartition("]")[2] if host.startswith("[") else host
    return port.rpartition(":")[2] if ":" in port else ""


def get_escaped_path(u: Any) -> str:
    return str(urlsplit(u.value).path)


def get_query(u: Any) -> dict[str, list[str]]:
    return {k: v for k, v in parse_qs(urlsplit(u.value).query, keep_blank_values=True).items()}


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    if "%" in text:
        raise NetError("IP address with zone value is not allowed")
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        raise NetError(f'IP Address "{text}" parse error during conversion from string: '
                       f'ParseAddr("{text}"): unable to parse IP') from None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        raise NetError("IPv4-mapped IPv6 address is not allowed")
    return address


def ip(text: str) -> Any:
    return IP(value=str(_address(text)))


def is_ip(text: str) -> bool:
    try:
        _address(text)
    except NetError:
        return False
    return True


def ip_is_canonical(text: str) -> bool:
    return str(_address(text)) == text


def _ip(value: Any) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return ipaddress.ip_address(value.value)


def family(value: Any) -> int:
    return _ip(value).version


def is_unspecified(value: Any) -> bool:
    return _ip(value).is_unspecified


def is_loopback(value: Any) -> bool:
    return _ip(value).is_loopback


def is_link_local_multicast(value: Any) -> bool:
    address = _ip(value)
    if address.version == 4:
        return address in ipaddress.ip_network("224.0.0.0/24")
    return address.is_multicast and (int(address) >> 112) & 0xF == 2


def is_link_local_unicast(value: Any) -> bool:
    address = _ip(value)
    return address.is_link_local and not address.is_multicast


def is_global_unicast(value: Any) -> bool:
    address = _ip(value)
    broadcast = address.version == 4 and int(address) == 0xFFFFFFFF
    return not (address.is_unspecified or address.is_loopback or address.is_multicast
                or address.is_link_local or broadcast)


def _network(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    address, _, _ = text.partition("/")
    if "%" in address:
        raise NetError("CIDR with zone value is not allowed")
    try:
        network = ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise NetError(f'network address "{text}" parse error during conversion from string: '
                       f'netip.ParsePrefix("{text}"): bad prefix') from None
    return network


def cidr(text: str) -> Any:
    _network(text)
    address, _, bits = text.partition("/")
    return CIDR(value=f"{ipaddress.ip_address(address)}/{bits}")


def is_cidr(text: str) -> bool:
    try:
        _network(text)
    except NetError:
        return False
    return True


def _cidr(value: Any) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    return ipaddress.ip_network(value.value, strict=False)


def contains_ip(value: Any, other: Any) -> bool:
    address = _address(other) if isinstance(other, str) else _ip(other)
    return address in _cidr(value)


def contains_cidr(value: Any, other: Any) -> bool:
    network = _network(other) if isinstance(other, str) else _cidr(other)
    mine = _cidr(value)
    return network.version == mine.version and network.subnet_of(mine)  # type: ignore[arg-type]


def cidr_ip(value: Any) -> Any:
    return IP(value=value.value.partition("/")[0])


def masked(value: Any) -> Any:
    return CIDR(value=str(_cidr(value)))


def prefix_length(value: Any) -> int:
    return _cidr(value).prefixlen


def to_string(value: Any) -> str:
    return str(value.value)
