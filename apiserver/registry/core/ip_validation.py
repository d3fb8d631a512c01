"""IP and CIDR values of legacy fields: staging/.../apimachinery/pkg/util/validation/ip.go's
IsValidIPForLegacyField and IsValidCIDRForLegacyField, with StrictIPCIDRValidation on (1.36's default).

"Sloppy" parsing is Go's net.ParseIP before 1.17 (netutils.ParseIPSloppy): IPv4 octets may carry
leading zeros; the strict rules then refuse them, IPv4-mapped IPv6 addresses, and CIDRs with host bits.
"""

from __future__ import annotations

import ipaddress
import re

from apiserver.errors import FieldError
from apiserver.registry import field

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_SLOPPY_V4 = re.compile(r"(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})")
_PREFIX = re.compile(r"\d{1,3}")
IP_MESSAGE = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
CIDR_MESSAGE = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"


def parse_ip_sloppy(value: str) -> IPAddress | None:
    """netutils.ParseIPSloppy: None when Go refuses the text."""
    v4 = _SLOPPY_V4.fullmatch(value)
    if v4:
        octets = [int(o) for o in v4.groups()]
        return ipaddress.IPv4Address(bytes(octets)) if all(o <= 255 for o in octets) else None
    if ":" not in value or "%" in value:
        return None
    try:
        return ipaddress.IPv6Address(value)
    except ValueError:
        return None


def _strict_ip_problems(value: str, ip: IPAddress) -> list[str]:
    if ip.version == 4 and str(ip) != value:
        return ["must not have leading 0s"]
    if ip.version == 6 and ip.ipv4_mapped is not None:  # type: ignore[union-attr]
        return ["must not be an IPv4-mapped IPv6 address"]
    return []


def legacy_ip(value: str, path: str, old: tuple[str, ...] = ()) -> list[FieldError]:
    """IsValidIPForLegacyField: any IP, but not leading zeros nor IPv4-mapped IPv6 (unless already stored)."""
    if value in old:
        return []
    ip = parse_ip_sloppy(value)
    if ip is None:
        return [field.invalid(path, value, IP_MESSAGE)]
    return [field.invalid(path, value, msg) for msg in _strict_ip_problems(value, ip)]


def parse_cidr_sloppy(value: str) -> tuple[IPAddress, int] | None:
    """netutils.ParseCIDRSloppy: the address and prefix length, None when Go refuses the text."""
    address, slash, bits = value.partition("/")
    ip = parse_ip_sloppy(address) if slash else None
    if ip is None or not _PREFIX.fullmatch(bits) or int(bits) > ip.max_prefixlen:
        return None
    return ip, int(bits)


def _network(ip: IPAddress, bits: int) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    return ipaddress.ip_network(f"{ip}/{bits}", strict=False)


def legacy_cidr(value: str, path: str, old: tuple[str, ...] = ()) -> list[FieldError]:
    """IsValidCIDRForLegacyField, strict: a subnet, written without leading zeros or IPv4-mapped IPv6."""
    if value in old:
        return []
    parsed = parse_cidr_sloppy(value)
    if parsed is None:
        return [field.invalid(path, value, CIDR_MESSAGE)]
    ip, bits = parsed
    address, _, prefix = value.partition("/")
    if (ip.version == 4 and str(ip) != address) or prefix != str(bits):
        return [field.invalid(path, value, "must not have leading 0s in IP or prefix length")]
    if ip.version == 6 and ip.ipv4_mapped is not None:  # type: ignore[union-attr]
        return [field.invalid(path, value, "must not have an IPv4-mapped IPv6 address")]
    if _network(ip, bits).network_address != ip:
        return [field.invalid(path, value, "must not have bits set beyond the prefix length")]
    return []


def is_dual_stack_cidrs(values: list[str]) -> bool:
    """netutils.IsDualStackCIDRStrings: at least one of each family (all parse)."""
    families = {parsed[0].version for v in values if (parsed := parse_cidr_sloppy(v)) is not None}
    return families == {4, 6}
