"""How much one request or one user may take: body and object sizes, open watches, time.

The defaults are kube-apiserver's: 3 MiB request bodies, etcd's 1.5 MiB per object, 60 s for a
request that is not a watch, and 30 minutes as the least a watch without its own timeout runs.
"""

from __future__ import annotations

import argparse
import weakref
from collections import Counter
from dataclasses import dataclass
from typing import AsyncIterator

from apiserver import errors

MIB = 1024 * 1024
# Watches end when their client goes; a second is long enough for one to close and short enough
# that a client backing off does not wait in vain.
WATCH_RETRY_AFTER_SECONDS = 1


@dataclass(frozen=True)
class Limits:
    max_body_bytes: int = 3 * MIB
    max_object_bytes: int = 3 * MIB // 2
    max_watches_per_user: int = 1_000
    max_watches: int = 10_000
    request_timeout_seconds: float = 60.0
    min_request_timeout_seconds: int = 1800


def min_request_timeout(text: str) -> int:
    """The --min-request-timeout flag's value, whole seconds, refused below zero as upstream refuses it."""
    seconds = int(text)
    if seconds < 0:
        raise argparse.ArgumentTypeError("--min-request-timeout can not be negative value")
    return seconds


class WatchSlots:
    """Counts open watch streams, per user and in total, and refuses one past either limit."""

    def __init__(self, per_user: int, total: int) -> None:
        self.per_user = per_user
        self.total = total
        self._open: Counter[str] = Counter()
        self._count = 0

    def check(self, user: str) -> None:
        """Raises 429 when another watch would pass a limit; call before opening the stream."""
        if self._count >= self.total:
            raise errors.too_many_requests(
                f"too many open watches on this server (limit {self.total}), please try again later",
                WATCH_RETRY_AFTER_SECONDS)
        if self._open[user] >= self.per_user:
            raise errors.too_many_requests(
                f'too many open watches for user "{user}" (limit {self.per_user}), please try again later',
                WATCH_RETRY_AFTER_SECONDS)

    def hold(self, user: str, chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
        """`chunks`, counted against `user` until the stream ends or is dropped unread."""
        self._open[user] += 1
        self._count += 1
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self._count -= 1
                self._open[user] -= 1
                if not self._open[user]:
                    del self._open[user]

        async def counted() -> AsyncIterator[bytes]:
            try:
                async for chunk in chunks:
                    yield chunk
            finally:
                release()
                # Closing this stream closes the watch under it now, not whenever it is collected.
                await chunks.aclose()  # type: ignore[attr-defined]

        stream = counted()
        # A stream whose client left before its first byte is never started, so its `finally`
        # never runs: the slot is given back when the stream object is collected instead.
        weakref.finalize(stream, release)
        return stream
