"""IP addresses and CIDR values as kube-apiserver 1.36 parses, judges and warns about them.

Ports staging/src/k8s.io/apimachinery/pkg/util/validation/ip.go (with StrictIPCIDRValidation on, its
1.36 default) and the two parsers it stands on: k8s.io/utils/net's "sloppy" ParseIP/ParseCIDR (Go's
net package before 1.17, which takes leading zeros in IPv4 octets) and net/netip's strict ParseAddr/
ParsePrefix. Addresses are held as Go holds a net.IP: 16 bytes, IPv4 ones mapped into IPv6.
"""

from __future__ import annotations

from apiserver.errors import FieldError
from apiserver.registry import field

_V4_IN_V6 = bytes(10) + b"\xff\xff"
_BIG = 0xFFFFFF

IP_MESSAGE = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
CIDR_MESSAGE = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"


def _dtoi(s: str) -> tuple[int, int, bool]:
    n, i = 0, 0
    while i < len(s) and "0" <= s[i] <= "9":
        n = n * 10 + ord(s[i]) - 48
        if n >= _BIG:
            return _BIG, i, False
        i += 1
    return n, i, i > 0


def _xtoi(s: str) -> tuple[int, int, bool]:
    n, i = 0, 0
    while i < len(s) and s[i] in "0123456789abcdefABCDEF":
        n = n * 16 + int(s[i], 16)
        if n >= _BIG:
            return 0, i, False
        i += 1
    return n, i, i > 0


def _parse_v4(s: str) -> bytes | None:
    octets = []
    for i in range(4):
        if not s:
            return None
        if i > 0:
            if s[0] != ".":
                return None
            s = s[1:]
        n, c, ok = _dtoi(s)
        if not ok or n > 0xFF:
            return None
        s = s[c:]
        octets.append(n)
    return None if s else _V4_IN_V6 + bytes(octets)


def _parse_v6(s: str) -> bytes | None:
    ip = bytearray(16)
    ellipsis = -1
    if s.startswith("::"):
        ellipsis, s = 0, s[2:]
        if not s:
            return bytes(ip)
    i = 0
    while i < 16:
        n, c, ok = _xtoi(s)
        if not ok or n > 0xFFFF:
            return None
        if c < len(s) and s[c] == ".":
            if (ellipsis < 0 and i != 12) or i + 4 > 16:
                return None
            ip4 = _parse_v4(s)
            if ip4 is None:
                return None
            ip[i:i + 4] = ip4[12:]
            s, i = "", i + 4
            break
        ip[i], ip[i + 1] = n >> 8, n & 0xFF
        i += 2
        s = s[c:]
        if not s:
            break
        if s[0] != ":" or len(s) == 1:
            return None
        s = s[1:]
        if s[0] == ":":
            if ellipsis >= 0:
                return None
            ellipsis, s = i, s[1:]
            if not s:
                break
    if s:
        return None
    if i < 16:
        if ellipsis < 0:
            return None
        moved = 16 - i
        ip[ellipsis + moved:] = ip[ellipsis:i]
        ip[ellipsis:ellipsis + moved] = bytes(moved)
    elif ellipsis >= 0:
        return None
    return bytes(ip)


def parse_ip_sloppy(value: str) -> bytes | None:
    """netutils.ParseIPSloppy: IPv4 when a '.' comes before any ':'."""
    for ch in value:
        if ch == ".":
            return _parse_v4(value)
        if ch == ":":
            return _parse_v6(value)
    return None


def parse_cidr_sloppy(value: str) -> tuple[bytes, bytes, int] | None:
    """netutils.ParseCIDRSloppy: (the address as written, the network's address, the prefix length);
    an IPv4 CIDR's network address is 4 bytes long, as Go's IPNet holds it."""
    slash = value.find("/")
    if slash < 0:
        return None
    addr, mask = value[:slash], value[slash + 1:]
    ip = _parse_v4(addr)
    bits = 32
    if ip is None:
        ip, bits = _parse_v6(addr), 128
    n, i, ok = _dtoi(mask)
    if ip is None or not ok or i != len(mask) or n > bits:
        return None
    raw = ip[12:] if bits == 32 else ip
    return ip, _masked(raw, n), n


def _masked(raw: bytes, ones: int) -> bytes:
    whole = int.from_bytes(raw, "big")
    width = len(raw) * 8
    mask = ((1 << ones) - 1) << (width - ones) if ones else 0
    return (whole & mask).to_bytes(len(raw), "big")


def is_v4(ip: bytes) -> bool:
    """net.IP.To4() != nil."""
    return len(ip) == 4 or ip[:12] == _V4_IN_V6


def _v6_text(ip: bytes) -> str:
    groups = [ip[i] << 8 | ip[i + 1] for i in range(0, 16, 2)]
    best, best_len, run, run_len = -1, 0, -1, 0
    for i, g in enumerate(groups):
        if g == 0:
            if run < 0:
                run = i
            run_len = i - run + 1
            if run_len > best_len:
                best, best_len = run, run_len
        else:
            run = -1
    if best_len < 2:
        return ":".join(f"{g:x}" for g in groups)
    head = ":".join(f"{g:x}" for g in groups[:best])
    tail = ":".join(f"{g:x}" for g in groups[best + best_len:])
    return f"{head}::{tail}"


def ip_text(ip: bytes) -> str:
    """net.IP.String(): dotted for IPv4 (mapped ones too), RFC 5952 for IPv6."""
    if is_v4(ip):
        return ".".join(str(b) for b in ip[-4:])
    return _v6_text(ip)


def cidr_text(network: bytes, ones: int) -> str:
    """net.IPNet.String() of a parsed CIDR: a mapped IPv4 network is written as IPv4."""
    if len(network) == 16 and is_v4(network):
        return f"{ip_text(network)}/{max(ones - 96, 0)}"
    return f"{ip_text(network)}/{ones}"


def _strict_v4_fields(s: str) -> bool:
    parts = s.split(".")
    return len(parts) == 4 and all(p and p.isdigit() and (len(p) == 1 or p[0] != "0") and int(p) <= 255
                                   for p in parts)


def _strict_addr(value: str) -> bool:
    """Whether netip.ParseAddr takes a value ParseIPSloppy took (no leading zeros, 4 hex digits a group)."""
    if parse_ip_sloppy(value) is None:
        return False
    first = next(ch for ch in value if ch in ".:")
    if first == ".":
        return _strict_v4_fields(value)
    head, _, last = value.rpartition(":")
    groups = [g for g in head.split(":") if g]
    if "." in last:
        return all(len(g) <= 4 for g in groups) and _strict_v4_fields(last)
    return all(len(g) <= 4 for g in groups + ([last] if last else []))


def parse_ip(value: str) -> bytes | None:
    """net.ParseIP as Go 1.22 and later have it: netip.ParseAddr's strict address, without a zone."""
    return parse_ip_sloppy(value) if _strict_addr(value) else None


def _written_as_v6(value: str) -> bool:
    return next((ch for ch in value if ch in ".:"), "") == ":"


def _is_4in6(value: str, ip: bytes) -> bool:
    """netip.Addr.Is4In6(): an IPv6-written address in ::ffff:0:0/96."""
    return _written_as_v6(value) and ip[:12] == _V4_IN_V6


def _ip_messages(value: str) -> tuple[bytes | None, list[str]]:
    ip = parse_ip_sloppy(value)
    if ip is None:
        return None, [IP_MESSAGE]
    found: list[str] = []
    if not _strict_addr(value):
        found.append("must not have leading 0s")
    if _is_4in6(value, ip):
        found.append("must not be an IPv4-mapped IPv6 address")
    return ip, found


def valid_ip_for_legacy_field(path: str, value: str, valid_old: tuple[str, ...] = ()) -> list[FieldError]:
    """IsValidIPForLegacyField (strict): non-canonical IPv6 is taken; the old object's values always are."""
    if value in valid_old:
        return []
    return [field.invalid(path, value, msg) for msg in _ip_messages(value)[1]]


def valid_ip_messages(value: str) -> list[str]:
    """IsValidIP's details: a valid address, written canonically."""
    ip, found = _ip_messages(value)
    if ip is None or found:
        return found
    return [f'must be in canonical form ("{ip_text(ip)}")'] if value != ip_text(ip) else []


def valid_ip(path: str, value: str) -> list[FieldError]:
    """IsValidIP."""
    return [field.invalid(path, value, msg) for msg in valid_ip_messages(value)]


def ip_warnings(path: str, value: str) -> list[str]:
    """GetWarningsForIP: what a legacy field's non-standard address is told to be instead."""
    ip = parse_ip_sloppy(value)
    if ip is None:
        return []
    if not _strict_addr(value) or _is_4in6(value, ip):
        return [(f"{path}: non-standard IP address {field.go_quote(value)} is invalid: use "
                 f"{field.go_quote(ip_text(ip))}")]
    if _written_as_v6(value):
        canonical = _v6_text(ip)
        if canonical != value:
            return [(f"{path}: IPv6 address {field.go_quote(value)} should be in RFC 5952 canonical format "
                     f"({field.go_quote(canonical)})")]
    return []


def _strict_prefix(value: str) -> tuple[bool, int]:
    """Whether netip.ParsePrefix takes the value, and the prefix length it reads."""
    addr, _, bits = value.rpartition("/")
    if not _strict_addr(addr) or (len(bits) > 1 and not "1" <= bits[0] <= "9") or not bits.isdigit():
        return False, 0
    return int(bits) <= (128 if _written_as_v6(addr) else 32), int(bits)


def _parse_cidr(path: str, value: str) -> tuple[tuple[bytes, bytes, int] | None, list[FieldError]]:
    parsed = parse_cidr_sloppy(value)
    if parsed is None:
        return None, [field.invalid(path, value, CIDR_MESSAGE)]
    ip, _, ones = parsed
    strict, _ = _strict_prefix(value)
    addr = value[:value.rfind("/")]
    if not strict:
        return parsed, [field.invalid(path, value, "must not have leading 0s in IP or prefix length")]
    if _is_4in6(addr, ip):
        return parsed, [field.invalid(path, value, "must not have an IPv4-mapped IPv6 address")]
    raw = ip if _written_as_v6(addr) else ip[12:]
    if _masked(raw, ones) != raw:
        return parsed, [field.invalid(path, value, "must not have bits set beyond the prefix length")]
    return parsed, []


def valid_cidr_for_legacy_field(path: str, value: str, valid_old: tuple[str, ...] = ()) -> list[FieldError]:
    """IsValidCIDRForLegacyField (strict)."""
    if value in valid_old:
        return []
    return _parse_cidr(path, value)[1]


def valid_cidr(path: str, value: str) -> list[FieldError]:
    """IsValidCIDR: a subnet (no bits past the prefix), written canonically."""
    parsed, found = _parse_cidr(path, value)
    if parsed is None or found:
        return found
    _, network, ones = parsed
    canonical = cidr_text(network, ones)
    return [field.invalid(path, value, f'must be in canonical form ("{canonical}")')] if value != canonical else []


def cidr_warnings(path: str, value: str) -> list[str]:
    """GetWarningsForCIDR: what a legacy field's ambiguous or non-standard CIDR is told to be instead."""
    parsed = parse_cidr_sloppy(value)
    if parsed is None:
        return []
    ip, network, ones = parsed
    warnings = []
    if (ip[12:] if len(network) == 4 else ip) != network:
        width = len(network) * 8
        warnings.append(f"{path}: CIDR value {field.go_quote(value)} is ambiguous in this context (should be "
                        f"{field.go_quote(cidr_text(network, ones))} or "
                        f"{field.go_quote(f'{ip_text(ip)}/{width}')}?)")
    addr = value[:value.rfind("/")]
    strict, _ = _strict_prefix(value)
    if not strict or _is_4in6(addr, ip):
        warnings.append(f"{path}: non-standard CIDR value {field.go_quote(value)} is invalid: use "
                        f"{field.go_quote(cidr_text(network, ones))}")
    if not warnings and _written_as_v6(addr):
        canonical = f"{_v6_text(ip)}/{ones}"
        if canonical != value:
            warnings.append(f"{path}: IPv6 CIDR value {field.go_quote(value)} should be in RFC 5952 canonical "
                            f"format ({field.go_quote(canonical)})")
    return warnings


def family_of_cidr(value: str) -> str:
    """netutils.IPFamilyOfCIDRString: "IPv4", "IPv6", or "" for what does not parse."""
    parsed = parse_cidr_sloppy(value)
    if parsed is None:
        return ""
    return "IPv4" if is_v4(parsed[0]) else "IPv6"


def is_ipv4_string(value: str) -> bool:
    ip = parse_ip_sloppy(value)
    return ip is not None and is_v4(ip)


def is_ipv6_string(value: str) -> bool:
    ip = parse_ip_sloppy(value)
    return ip is not None and not is_v4(ip)


def endpoint_ip(path: str, value: str) -> list[FieldError]:
    """core's ValidateEndpointIP: an address a client can reach (not unspecified, loopback or link-local)."""
    ip = parse_ip_sloppy(value)
    if ip is None:
        return [field.invalid(path, value, "must be a valid IP address")]
    found = []
    v4 = is_v4(ip)
    if ip == bytes(16) or ip == _V4_IN_V6 + bytes(4):
        found.append(field.invalid(path, value, f"may not be unspecified ({value})"))
    if (v4 and ip[12] == 127) or (not v4 and ip == bytes(15) + b"\x01"):
        found.append(field.invalid(path, value, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
    if (v4 and ip[12] == 169 and ip[13] == 254) or (not v4 and ip[0] == 0xFE and ip[1] & 0xC0 == 0x80):
        found.append(field.invalid(path, value, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
    if (v4 and ip[12] == 224 and ip[13] == 0 and ip[14] == 0) or (not v4 and ip[0] == 0xFF and ip[1] & 0x0F == 2):
        found.append(field.invalid(path, value, "may not be in the link-local multicast range (224.0.0.0/24, "
                                                "ff02::/10)"))
    return found


def contains(network: bytes, ones: int, ip: bytes) -> bool:
    """net.IPNet.Contains: whether an address lies in a parsed network (of either length)."""
    if len(network) == 4:
        if not is_v4(ip):
            return False
        ip = ip[-4:]
    elif len(ip) == 4:
        ip = _V4_IN_V6 + ip
    return _masked(ip, ones) == network
