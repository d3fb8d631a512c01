"""Whether Go's net/mail.ParseAddress (Go 1.26) takes a string: what strfmt's `email` format accepts.

A port of the parser's whole grammar as ParseAddress walks it: an addr-spec (dot-atom or quoted local
part, dot-atom or IP domain literal) with an optional trailing comment, a display name before an
angle-addr, or a group (`name: a@b;`) of exactly one address, with comments (CFWS) between. Only
refusals matter, so the parsed parts are not kept; a display name's RFC 2047 encoded words refuse the
address only when well formed in a charset Go cannot convert (mime.WordDecoder without a CharsetReader).
Go walks bytes of valid UTF-8 (a JSON string always is), which here are a str's characters.
"""

from __future__ import annotations

import re

from apiserver.kinds import ip_validation

_SPECIALS = frozenset('()<>[]:;@\\,"')
_WSP = " \t"
_CONVERTED_CHARSETS = frozenset(("utf-8", "iso-8859-1", "us-ascii"))
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_HEX = frozenset(b"0123456789abcdefABCDEF")


class _Refused(Exception):
    """ParseAddress returned an error."""


def _is_vchar(ch: str) -> bool:
    """isVchar: printable US-ASCII or any multi-byte character (RFC 6532)."""
    return "!" <= ch <= "~" or ord(ch) >= 0x80


def _is_atext(ch: str, dot: bool) -> bool:
    if ch == ".":
        return dot
    return ch not in _SPECIALS and _is_vchar(ch)


def _is_qtext(ch: str) -> bool:
    return ch not in '\\"' and _is_vchar(ch)


def _is_dtext(ch: str) -> bool:
    return ch not in "[]\\" and _is_vchar(ch)


def is_address(text: str) -> bool:
    """mail.ParseAddress(text) succeeds (its Address is then never empty)."""
    try:
        _Parser(text).single_address()
    except _Refused:
        return False
    return True


def _q_decodes(text: bytes) -> bool:
    """mime's qDecode succeeds."""
    i = 0
    while i < len(text):
        c = text[i]
        if c == ord("="):
            if i + 2 >= len(text) or text[i + 1] not in _HEX or text[i + 2] not in _HEX:
                return False
            i += 2
        elif not (ord(" ") <= c <= ord("~") or c in b"\n\r\t"):
            return False
        i += 1
    return True


def _charset_refused(word: str) -> bool:
    """decodeRFC2047Word's error: an encoded word that decodes, in a charset Go has no converter for."""
    raw = word.encode()
    if len(raw) < 8 or not raw.startswith(b"=?") or not raw.endswith(b"?=") or raw.count(b"?") != 4:
        return False
    charset, _, rest = raw[2:-2].partition(b"?")
    encoding, _, text = rest.partition(b"?")
    if not charset or len(encoding) != 1:
        return False
    if encoding in b"Bb":
        decodes = _BASE64.fullmatch(text.decode()) is not None
    else:
        decodes = encoding in b"Qq" and _q_decodes(text)
    # strings.EqualFold: the long s folds to "s"; no other character folds into these names.
    folded = charset.decode().replace("\u017f", "s")
    return decodes and not (folded.isascii() and folded.lower() in _CONVERTED_CHARSETS)


class _Parser:
    """addrParser: the text not yet consumed."""

    def __init__(self, text: str) -> None:
        self.s = text

    def single_address(self) -> None:
        count = self.address(handle_group=True)
        if not self.skip_cfws() or self.s or count != 1:
            raise _Refused

    def address(self, handle_group: bool) -> int:
        """parseAddress: how many addresses it read."""
        self.skip_space()
        if not self.s:
            raise _Refused
        try:
            self.addr_spec()
        except _Refused:
            pass
        else:
            self.skip_space()
            if self.s.startswith("("):
                self.display_name_comment()
            return 1
        if not self.s.startswith("<"):
            self.phrase()
        self.skip_space()
        if handle_group and self.consume(":"):
            return self.group_list()
        if not self.consume("<"):
            raise _Refused
        self.addr_spec()
        if not self.consume(">"):
            raise _Refused
        return 1

    def group_list(self) -> int:
        self.skip_space()
        if self.consume(";"):
            if not self.skip_cfws():
                raise _Refused
            return 0
        count = 0
        while True:
            self.skip_space()
            count += self.address(handle_group=False)
            if not self.skip_cfws():
                raise _Refused
            if self.consume(";"):
                if not self.skip_cfws():
                    raise _Refused
                return count
            if not self.consume(","):
                raise _Refused

    def addr_spec(self) -> None:
        """consumeAddrSpec; a refusal leaves the text as it found it."""
        original = self.s
        try:
            self.skip_space()
            if not self.s:
                raise _Refused
            if self.s.startswith('"'):
                if self.quoted_string() == "":
                    raise _Refused
            else:
                self.atom(dot=True, permissive=False)
            if not self.consume("@"):
                raise _Refused
            self.skip_space()
            if not self.s:
                raise _Refused
            if self.s.startswith("["):
                self.domain_literal()
            else:
                self.atom(dot=True, permissive=False)
        except _Refused:
            self.s = original
            raise

    def phrase(self) -> None:
        """consumePhrase: its first word must parse; an error in a later one ends the phrase."""
        self.word()
        while True:
            if not self.skip_cfws():
                raise _Refused
            if not self.s:
                return
            try:
                self.word()
            except _Refused:
                return

    def word(self) -> None:
        """A quoted string or a (permissive) dot-atom, which may be an RFC 2047 encoded word."""
        if self.s.startswith('"'):
            self.quoted_string()
        elif _charset_refused(self.atom(dot=True, permissive=True)):
            raise _Refused

    def quoted_string(self) -> str:
        """consumeQuotedString: the string's characters, the quotes and escapes dropped."""
        kept: list[str] = []
        escaped = False
        i = 1
        while True:
            if i >= len(self.s):
                raise _Refused
            ch = self.s[i]
            if escaped:
                if not _is_vchar(ch) and ch not in _WSP:
                    raise _Refused
                kept.append(ch)
                escaped = False
            elif _is_qtext(ch) or ch in _WSP:
                kept.append(ch)
            elif ch == '"':
                break
            elif ch == "\\":
                escaped = True
            else:
                raise _Refused
            i += 1
        self.s = self.s[i + 1:]
        return "".join(kept)

    def atom(self, dot: bool, permissive: bool) -> str:
        """consumeAtom: a run of atext; unless permissive, without a leading, trailing or double dot."""
        i = 0
        while i < len(self.s) and _is_atext(self.s[i], dot):
            i += 1
        if i == 0:
            raise _Refused
        found, self.s = self.s[:i], self.s[i:]
        if not permissive and (found.startswith(".") or ".." in found or found.endswith(".")):
            raise _Refused
        return found

    def domain_literal(self) -> None:
        """consumeDomainLiteral: `[` dtext `]`, the dtext an IP address net.ParseIP takes."""
        self.consume("[")
        end = 0
        while True:
            if end >= len(self.s):
                raise _Refused
            if self.s[end] == "]":
                break
            if not _is_dtext(self.s[end]):
                raise _Refused
            end += 1
        dtext, self.s = self.s[:end], self.s[end + 1:]
        if ip_validation.parse_ip(dtext) is None:
            raise _Refused

    def display_name_comment(self) -> None:
        self.consume("(")
        comment, closed = self.comment()
        if not closed:
            raise _Refused
        if any(_charset_refused(word) for word in comment.replace("\t", " ").split(" ")):
            raise _Refused

    def consume(self, ch: str) -> bool:
        if self.s.startswith(ch):
            self.s = self.s[1:]
            return True
        return False

    def skip_space(self) -> None:
        self.s = self.s.lstrip(_WSP)

    def skip_cfws(self) -> bool:
        self.skip_space()
        while self.consume("("):
            if not self.comment()[1]:
                return False
            self.skip_space()
        return True

    def comment(self) -> tuple[str, bool]:
        """consumeComment (its `(` consumed): the text up to the matching `)`, and whether it closed."""
        depth = 1
        kept: list[str] = []
        while self.s and depth:
            if self.s[0] == "\\" and len(self.s) > 1:
                self.s = self.s[1:]
            elif self.s[0] == "(":
                depth += 1
            elif self.s[0] == ")":
                depth -= 1
            if depth:
                kept.append(self.s[0])
            self.s = self.s[1:]
        return "".join(kept), depth == 0

