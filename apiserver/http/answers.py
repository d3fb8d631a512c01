"""A whole answer as an HTTP response, its header lines made once per kind of answer instead of per request.

Starlette's Response lower-cases and encodes every header it is given, scans them for content-length
and content-type, and composes the content-type line, on each answer: on a small get that cost more
than finding the object. Every answer of the API carries the same no-cache line and one of a few
content types, so those lines are encoded once and shared. The lines, and their order (the given
headers, then content-length, then content-type), are exactly what Starlette's Response writes.
"""

from __future__ import annotations

import functools
import re
from typing import Mapping

from starlette.responses import Response

NO_CACHE = {"Cache-Control": "no-cache, private"}
_NO_CACHE_LINES = tuple((name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in NO_CACHE.items())
# Where one warning ends and the next begins in a Warning value joined by ", ": each warning's text is
# quoted, so an unescaped `, 299 - "` can only start the next one.
_NEXT_WARNING = re.compile(r', (?=299 - ")')


def header_lines(headers: Mapping[str, str]) -> list[tuple[bytes, bytes]]:
    """Header lines; warnings, carried joined in one value, each on a line of its own, as upstream's
    warning recorder writes them (clients read each line as one warning)."""
    lines: list[tuple[bytes, bytes]] = []
    for name, value in headers.items():
        key = name.lower().encode("latin-1")
        parts = _NEXT_WARNING.split(value) if key == b"warning" else (value,)
        lines.extend((key, part.encode("latin-1")) for part in parts)
    return lines


@functools.lru_cache(maxsize=64)
def _content_type_line(media_type: str) -> tuple[bytes, bytes]:
    if media_type.startswith("text/") and "charset=" not in media_type.lower():
        media_type += "; charset=utf-8"  # as Starlette names a text answer's charset
    return b"content-type", media_type.encode("latin-1")


class AnswerResponse(Response):
    def __init__(self, body: bytes, status_code: int, media_type: str | None,
                 headers: Mapping[str, str] | None = None) -> None:
        """`headers` besides the no-cache line every API answer has; they replace it when they name it."""
        self.status_code = status_code
        self.body = body
        self.background = None
        if media_type is not None:
            self.media_type = media_type
        if headers:
            lines = header_lines({**NO_CACHE, **headers})
        else:
            lines = list(_NO_CACHE_LINES)
        if not (status_code < 200 or status_code in (204, 304)):
            lines.append((b"content-length", b"%d" % len(body)))
        if media_type is not None:
            lines.append(_content_type_line(media_type))
        self.raw_headers = lines
