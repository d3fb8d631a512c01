"""What a handler answers, before the HTTP edge turns it into a response."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import AsyncIterator

JSON_TYPE = "application/json"


@dataclass
class Reply:
    status: int
    body: bytes
    content_type: str = JSON_TYPE
    headers: dict[str, str] = field(default_factory=dict)
    # A list's body in the pieces it was assembled from (head, items, tail), to be written one after
    # another rather than copied into one: with `parts`, `body` is unused.
    parts: list[bytes] | None = None

    def whole(self) -> bytes:
        """The body as one bytes object."""
        return self.body if self.parts is None else b"".join(self.parts)

    @property
    def length(self) -> int:
        return len(self.body) if self.parts is None else sum(len(part) for part in self.parts)


@dataclass
class StreamReply:
    chunks: AsyncIterator[bytes]
    content_type: str = JSON_TYPE
    status: int = 200
    closed: asyncio.Event = field(default_factory=asyncio.Event)  # set: end the response now
