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


def _go_ip(ip: IPAddress) -> str:
    """net.IP.String(): an IPv4-mapped IPv6 address prints as IPv4."""
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return str(mapped or ip)


def ip_warnings(value: str, path: str) -> list[str]:
    """GetWarningsForIP, for a value legacy_ip let through."""
    ip = parse_ip_sloppy(value)
    if ip is None:
        return []
    if _strict_ip_problems(value, ip):
        return [f'{path}: non-standard IP address "{value}" is invalid: use "{_go_ip(ip)}"']
    if ip.version == 6 and str(ip) != value:
        return [f'{path}: IPv6 address "{value}" should be in RFC 5952 canonical format ("{ip}")']
    return []


def cidr_warnings(value: str, path: str) -> list[str]:
    """GetWarningsForCIDR, for a value legacy_cidr let through."""
    parsed = parse_cidr_sloppy(value)
    if parsed is None:
        return []
    ip, bits = parsed
    network = _network(ip, bits)
    found = []
    if network.network_address != ip:
        found.append(f'{path}: CIDR value "{value}" is ambiguous in this context '
                     f'(should be "{network}" or "{_go_ip(ip)}/{ip.max_prefixlen}"?)')
    address, _, prefix = value.partition("/")
    mapped = ip.version == 6 and ip.ipv4_mapped is not None  # type: ignore[union-attr]
    if (ip.version == 4 and str(ip) != address) or prefix != str(bits) or mapped:
        found.append(f'{path}: non-standard CIDR value "{value}" is invalid: use "{network}"')
    if not found and ip.version == 6 and f"{ip}/{bits}" != value:
        found.append(f'{path}: IPv6 CIDR value "{value}" should be in RFC 5952 canonical format ("{ip}/{bits}")')
    return found


def is_dual_stack_cidrs(values: list[str]) -> bool:
    """netutils.IsDualStackCIDRStrings: at least one of each family (all parse)."""
    families = {parsed[0].version for v in values if (parsed := parse_cidr_sloppy(v)) is not None}
    return families == {4, 6}
