"""The HTTP side of a watch: a chunked response that ends the moment the server gives up on a watcher.

Starlette's StreamingResponse stops only when its iterator ends or the client disconnects; a client
that stopped reading leaves the writer parked in flow control forever. This response also ends when
`closed` is set: returning with the body unfinished makes uvicorn close the connection, which the
client sees as the end of its watch (and re-lists).
"""

from __future__ import annotations

import asyncio
from typing import AsyncIterator

from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send


class WatchResponse(StreamingResponse):
    def __init__(self, chunks: AsyncIterator[bytes], closed: asyncio.Event, media_type: str,
                 headers: dict[str, str]) -> None:
        super().__init__(chunks, 200, headers, media_type)
        self.chunks = chunks
        self.closed = closed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})

        async def pump() -> None:
            async for chunk in self.chunks:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})

        async def disconnected() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass

        tasks = {asyncio.ensure_future(pump()), asyncio.ensure_future(self.closed.wait()),
                 asyncio.ensure_future(disconnected())}
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.chunks.aclose()  # type: ignore[attr-defined]
        for task in done:
            if not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
