"""The Warning lines of an answer, held to kube-apiserver's limits (`endpoints/filters/warning.go`).

Upstream's recorder writes each distinct warning once; once the texts pass 4 KiB in all it writes
them again cut to 256 characters each, and drops every later warning once that total is passed again.
Without it, a manifest with a hundred unknown fields under fieldValidation=Warn answers a hundred
lines, more than Python's http.client (and so the kubernetes client) reads: "got more than 100 headers".
Here the lines the handler made are replayed through the same rules once the answer is complete, in
the order they were recorded; an answer without warnings is left as it is.
"""

from __future__ import annotations

import json

from starlette.responses import Response

from apiserver.warningtext import warning_line

TRUNCATE_AT_TOTAL_RUNES = 4 * 1024
TRUNCATE_ITEM_RUNES = 256
_PREFIX = b'299 - "'


def limit(response: Response) -> None:
    """Rewrites the response's Warning lines as upstream's recorder would have written them."""
    lines = response.raw_headers
    if not any(name == b"warning" for name, _ in lines):
        return
    texts = [_text(value) for name, value in lines if name == b"warning"]
    kept = recorded(texts)
    if kept == texts:
        return
    first = next(i for i, (name, _) in enumerate(lines) if name == b"warning")
    others = [line for line in lines if line[0] != b"warning"]
    response.raw_headers = others[:first] + [(b"warning", _line(t)) for t in kept] + others[first:]


def recorded(texts: list[str]) -> list[str]:
    """What the recorder's AddWarning, called with each text in turn, leaves written."""
    seen: set[str] = set()
    ordered: list[str] = []
    written: list[str] = []
    total = 0
    truncating = False
    for text in texts:
        if not text or (truncating and total >= TRUNCATE_AT_TOTAL_RUNES) or text in seen:
            continue
        seen.add(text)
        ordered.append(text)
        if truncating:
            text = text[:TRUNCATE_ITEM_RUNES]
        if truncating or total + len(text) <= TRUNCATE_AT_TOTAL_RUNES:
            total += len(text)
            written.append(text)
            continue
        # Past the limit for the first time: every warning so far again, each cut short.
        truncating = True
        written = [t[:TRUNCATE_ITEM_RUNES] for t in ordered]
        total = sum(len(t) for t in written)
    return written


def _text(value: bytes) -> str:
    """A warning's text: every line here is `299 - "..."`, its text a quoted string whose escapes are
    JSON's, its other characters UTF-8 (as upstream writes them)."""
    if not value.startswith(_PREFIX):
        return value.decode("utf-8", "replace")
    return str(json.loads(value[len(_PREFIX) - 1:].decode("utf-8", "replace"), strict=False))


def _line(text: str) -> bytes:
    return warning_line(text).encode("latin-1")
