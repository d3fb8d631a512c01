"""Record framing for the write-ahead log and snapshots: length, CRC-32 of the payload, payload.

A frame is `<u32 length><u32 crc32(payload)><payload>`, never empty (a zeroed region, as a file
extended but not written reads, is damage rather than a run of empty frames). Reading tells a torn
tail from corruption: a crash mid-append leaves a prefix of the last batch, so nothing verifiable
follows the first bad frame; it is safe to drop, since that batch was never acknowledged. A bad
frame with an intact frame anywhere after it is damage in the middle (whichever header field it
hit, the length included): refuse to start, since acknowledged writes would be lost.
"""

from __future__ import annotations

import logging
import os
import struct
import zlib
from dataclasses import dataclass
from typing import Iterator

HEADER = struct.Struct("<II")
log = logging.getLogger("apiserver.storage")


class CorruptLog(Exception):
    """A frame in the middle of a file is damaged; its path and offset say where."""

    def __init__(self, path: str, offset: int, why: str) -> None:
        super().__init__(f"corrupt record in {path} at offset {offset}: {why}; refusing to start "
                         f"(move the file away or truncate it at that offset to drop everything after it)")
        self.path = path
        self.offset = offset


def frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload), zlib.crc32(payload)) + payload


@dataclass
class ReadResult:
    payloads: list[bytes]
    valid_length: int  # bytes of whole, verified frames; a torn tail starts here
    torn: bool


def _frame_end(data: memoryview, offset: int) -> int | None:
    """Where the frame at `offset` ends, or None when no whole, verified frame starts there."""
    if len(data) - offset < HEADER.size:
        return None
    length, crc = HEADER.unpack_from(data, offset)
    end: int = offset + HEADER.size + length
    if length == 0 or end > len(data) or zlib.crc32(data[offset + HEADER.size:end]) != crc:
        return None
    return end


def _next_frame(data: memoryview, start: int) -> int | None:
    for offset in range(start, len(data) - HEADER.size):
        if _frame_end(data, offset) is not None:
            return offset
    return None


def read_frames(path: str) -> ReadResult:
    with open(path, "rb") as f:
        data = memoryview(f.read())
    payloads: list[bytes] = []
    offset = 0
    while offset < len(data):
        end = _frame_end(data, offset)
        if end is None:
            intact = _next_frame(data, offset + 1)
            if intact is not None:
                raise CorruptLog(path, offset, f"damaged record, intact records follow from offset {intact}")
            return ReadResult(payloads, offset, True)
        payloads.append(bytes(data[offset + HEADER.size:end]))
        offset = end
    return ReadResult(payloads, offset, False)


def iter_verified(path: str, is_last: bool) -> Iterator[bytes]:
    """Yields a file's payloads; a torn tail is cut off the last file and logged, elsewhere refused."""
    result = read_frames(path)
    if result.torn:
        if not is_last:
            raise CorruptLog(path, result.valid_length, "incomplete record before the end of the log")
        log.warning("dropping torn record at the end of %s (offset %d): a write interrupted by a crash, "
                    "never acknowledged", path, result.valid_length)
        with open(path, "r+b") as f:
            f.truncate(result.valid_length)
            f.flush()
            os.fsync(f.fileno())
    yield from result.payloads


class LogWriter:
    """Appends frames to one log file; `sync` makes everything appended so far durable."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self.size = os.fstat(self._fd).st_size

    def append_and_sync(self, frames: list[bytes]) -> None:
        blob = b"".join(frames)
        view = memoryview(blob)
        try:
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            os.fsync(self._fd)
        except OSError:
            # A half-written batch (a full disk) must not stay in front of later appends, where it
            # would read as corruption in the middle of the log.
            os.ftruncate(self._fd, self.size)
            raise
        self.size += len(blob)

    def close(self) -> None:
        os.close(self._fd)


def fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
