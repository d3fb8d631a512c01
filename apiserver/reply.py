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


@dataclass
class StreamReply:
    chunks: AsyncIterator[bytes]
    content_type: str = JSON_TYPE
    status: int = 200
    closed: asyncio.Event = field(default_factory=asyncio.Event)  # set: end the response now
