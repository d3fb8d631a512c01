"""The watch scenarios, which wrk cannot drive: how soon a created object's event reaches its watchers.

One asyncio client holds the watch streams and makes the writes, each write only after the previous
one was seen by every watcher, so the figures are the server's delivery latency and not a queue of our
own. Decoding 100 copies of an event costs this client about what encoding them costs the server: on a
shared 2-core machine the fan-out figure is a bound, not a measurement of the server alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import urllib.parse
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field

import orjson

from benches import objects
from benches.api_load.servers import Target
from benches.api_load.wrk import RunFigures

DELIVERY_TIMEOUT_S = 10.0


class _Connection:
    def __init__(self, target: Target) -> None:
        self.target = target
        self.url = urllib.parse.urlsplit(target.url)
        self.reader: asyncio.StreamReader
        self.writer: asyncio.StreamWriter

    async def open(self) -> None:
        ssl = self.target.ssl_context() if self.url.scheme == "https" else None
        self.reader, self.writer = await asyncio.open_connection(self.url.hostname, self.url.port, ssl=ssl)

    def send(self, method: str, path: str, body: bytes = b"") -> None:
        head = (f"{method} {self.url.path.rstrip('/')}{path} HTTP/1.1\r\nHost: {self.url.netloc}\r\n"
                f"Authorization: Bearer {self.target.token}\r\nAccept: application/json\r\n")
        if body:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        self.writer.write(head.encode() + b"\r\n" + body)

    async def head(self) -> tuple[int, dict[str, str]]:
        status = int((await self.reader.readline()).split()[1])
        headers: dict[str, str] = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        return status, headers

    async def body(self, headers: dict[str, str]) -> bytes:
        if "content-length" in headers:
            return await self.reader.readexactly(int(headers["content-length"]))
        return b"".join([chunk async for chunk in self.chunks()])

    async def chunks(self) -> AsyncIterator[bytes]:
        while size := int((await self.reader.readline()).split(b";")[0], 16):
            yield await self.reader.readexactly(size)
            await self.reader.readexactly(2)
        await self.reader.readline()

    async def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        self.send(method, path, body)
        status, headers = await self.head()
        return status, await self.body(headers)

    def close(self) -> None:
        self.writer.close()


@dataclass
class _Seen:
    """When each watcher saw each name, and a signal for the writer once all have."""

    watchers: int
    times: dict[str, list[float]] = field(default_factory=dict)
    complete: dict[str, asyncio.Event] = field(default_factory=dict)
    event_bytes: int = 0

    def expect(self, name: str) -> asyncio.Event:
        self.times[name] = []
        self.complete[name] = asyncio.Event()
        return self.complete[name]

    def saw(self, line: bytes) -> None:
        name = orjson.loads(line)["object"]["metadata"]["name"]
        times = self.times.get(name)
        if times is None:
            return
        times.append(time.perf_counter())
        self.event_bytes = len(line)
        if len(times) == self.watchers:
            self.complete[name].set()


async def watch_events(target: Target, path: str, ready: asyncio.Event) -> AsyncGenerator[bytes, None]:
    """The event lines of a watch, one JSON document each; `ready` is set once the watch is open.
    Read it inside `contextlib.aclosing`, so that a cancelled reader closes the connection at once."""
    conn = _Connection(target)
    await conn.open()
    try:
        conn.send("GET", path)
        status, _ = await conn.head()
        if status != 200:
            raise RuntimeError(f"watch {path}: HTTP {status}")
        ready.set()
        buffer = b""
        async for chunk in conn.chunks():
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if line:
                    yield line
    finally:
        conn.close()


async def _watch(target: Target, path: str, seen: _Seen, ready: asyncio.Event) -> None:
    async with contextlib.aclosing(watch_events(target, path, ready)) as lines:
        async for line in lines:
            seen.saw(line)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _measure(target: Target, namespace: str, revision: str, prefix: str, watchers: int,
                   duration_s: float) -> RunFigures:
    collection = f"/api/v1/namespaces/{namespace}/configmaps"
    seen = _Seen(watchers)
    watch_path = f"{collection}?watch=1&resourceVersion={revision}&timeoutSeconds={int(duration_s) + 60}"
    readies = [asyncio.Event() for _ in range(watchers)]
    tasks = [asyncio.create_task(_watch(target, watch_path, seen, ready)) for ready in readies]
    writer = _Connection(target)
    await writer.open()
    latencies: list[float] = []
    done = failed = 0
    try:
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 30)
        start = time.perf_counter()
        while time.perf_counter() - start < duration_s:
            name = f"{prefix}-{done + failed:06d}"
            complete = seen.expect(name)
            sent = time.perf_counter()
            status, _ = await writer.request("POST", collection,
                                             orjson.dumps(objects.configmap(namespace, name, done)))
            try:
                if status != 201:
                    raise RuntimeError(f"create: HTTP {status}")
                await asyncio.wait_for(complete.wait(), DELIVERY_TIMEOUT_S)
                done += 1
            except (TimeoutError, RuntimeError):
                failed += 1
            latencies += [(t - sent) * 1000 for t in seen.times.pop(name)]
        elapsed = time.perf_counter() - start
    finally:
        writer.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    figures = RunFigures(rps=done / elapsed, p50_ms=_percentile(latencies, 0.50), p90_ms=_percentile(latencies, 0.90),
                         p99_ms=_percentile(latencies, 0.99), requests=done, failed=failed,
                         bytes_per_response=float(seen.event_bytes),
                         loadavg=os.getloadavg()[0])
    return figures


def measure(target: Target, namespace: str, revision: str, prefix: str, watchers: int,
            duration_s: float) -> RunFigures:
    """Creates objects one after another for `duration_s`; ops/s counts writes seen by every watcher.

    Latencies are per delivery (write sent -> event line read), over all watchers; a write some watcher
    did not see within DELIVERY_TIMEOUT_S counts as failed.
    """
    return asyncio.run(_measure(target, namespace, revision, prefix, watchers, duration_s))
