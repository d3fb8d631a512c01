"""Go's `url.ParseRequestURI` refusals, worded as Go words them: what Kubernetes' CEL `url()`,
`isURL()` and `format.uri()` accept.

A port of `net/url`'s `parse(rawURL, viaRequest=true)` (Go 1.26, which kube-apiserver 1.36.2 is built
with), `parseAuthority`, `parseHost` and `unescape`: only whether and why a string is refused, not the
parsed URL (apiserver/cel/netlib.py reads the parts with Python's urlsplit, which agrees on what Go
accepts). Go 1.26 takes a host's port from its first colon, so `http://::1/` has the bad port "::1".
"""

from __future__ import annotations

from apiserver.registry.field import go_quote

_HEX = frozenset("0123456789abcdefABCDEF")
_SCHEME_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_SCHEME_LATER = frozenset("0123456789+-.")
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_HOST_ALLOWED = frozenset("!$&'()*+,;=:[]<>\"-_.~")
_USERINFO_ALLOWED = _ALNUM | frozenset("-._:~!$&'()*+,;=%@")


class URLError(ValueError):
    pass


def error(raw: str) -> str | None:
    """None when Go's url.ParseRequestURI accepts `raw`, else its error's text."""
    try:
        _parse(raw)
    except URLError as problem:
        return f"parse {go_quote(raw)}: {problem}"
    return None


def _parse(raw: str) -> None:
    if any(ch < " " or ch == "\x7f" for ch in raw):
        raise URLError("net/url: invalid control character in URL")
    if raw == "":
        raise URLError("empty url")
    if raw == "*":
        return
    scheme, rest = _scheme(raw)
    if rest.endswith("?") and rest.count("?") == 1:
        rest = rest[:-1]
    else:
        rest = rest.partition("?")[0]
    if not rest.startswith("/"):
        if scheme:
            return  # a rootless path is opaque
        raise URLError("invalid URI for request")
    if scheme and rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        rest = slash + path
        _authority(authority)
    _unescape(rest, "path")


def _scheme(raw: str) -> tuple[str, str]:
    for i, ch in enumerate(raw):
        if ch in _SCHEME_LETTERS:
            continue
        if ch in _SCHEME_LATER:
            if i == 0:
                return "", raw
            continue
        if ch == ":":
            if i == 0:
                raise URLError("missing protocol scheme")
            return raw[:i], raw[i + 1:]
        return "", raw
    return "", raw


def _authority(authority: str) -> None:
    at = authority.rfind("@")
    _host(authority[at + 1:] if at >= 0 else authority)
    if at < 0:
        return
    userinfo = authority[:at]
    if any(ch not in _USERINFO_ALLOWED for ch in userinfo):
        raise URLError("net/url: invalid userinfo")
    for part in userinfo.split(":", 1):
        _unescape(part, "userinfo")


def _host(host: str) -> None:
    if host.startswith("["):
        end = host.rfind("]")
        if end < 0:
            raise URLError("missing ']' in host")
        colon_port = host[end + 1:]
        if not _valid_optional_port(colon_port):
            raise URLError(f"invalid port {go_quote(colon_port)} after host")
        zone = host[:end].find("%25")
        if zone >= 0:
            _unescape(host[:zone], "host")
            _unescape(host[zone:end], "zone")
            _unescape(host[end:], "host")
            return
    elif (colon := host.find(":")) != -1:  # the first colon since Go 1.26: "::1" is a bad port, not a host
        colon_port = host[colon:]
        if not _valid_optional_port(colon_port):
            raise URLError(f"invalid port {go_quote(colon_port)} after host")
    _unescape(host, "host")


def _valid_optional_port(port: str) -> bool:
    return port == "" or (port[0] == ":" and all("0" <= ch <= "9" for ch in port[1:]))


def _should_escape(ch: str, mode: str) -> bool:
    if ch in _ALNUM:
        return False
    if mode in ("host", "zone") and ch in _HOST_ALLOWED:
        return False
    if ch in "-_.~":
        return False
    if ch in "$&+,/:;=?@":
        if mode == "path":
            return ch == "?"
        if mode == "userinfo":
            return ch in "@/?:"
    return True


def _unescape(text: str, mode: str) -> None:
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "%":
            if i + 2 >= len(text) or text[i + 1] not in _HEX or text[i + 2] not in _HEX:
                raise URLError(f"invalid URL escape {go_quote(text[i:i + 3])}")
            value = int(text[i + 1:i + 3], 16)
            if mode == "host" and value < 0x80 and text[i:i + 3] != "%25":
                raise URLError(f"invalid URL escape {go_quote(text[i:i + 3])}")
            if mode == "zone" and text[i:i + 3] != "%25" and value != 0x20 and _should_escape(chr(value), "host"):
                raise URLError(f"invalid URL escape {go_quote(text[i:i + 3])}")
            i += 3
            continue
        if mode in ("host", "zone") and ord(ch) < 0x80 and _should_escape(ch, mode):
            raise URLError(f"invalid character {go_quote(ch)} in host name")
        i += 1
