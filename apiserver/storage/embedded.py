"""The embedded store: every object in memory as bytes, every write made durable before it counts.

Writes are checked and numbered at once (so a second writer sees the first one's pending state)
but become visible to readers and watchers only after the batch they joined is fsynced: what a
reader has seen, a crash cannot take back. Concurrent writes share one fsync.

A snapshot of the whole state is written beside the commits, not in their way: writes go on into
the log meanwhile, and once the snapshot is durable the records logged since it started are copied
into a new log, which takes over (see `_snapshot`).
"""

from __future__ import annotations

import asyncio
import builtins
import errno
import glob
import logging
import os
import time
from dataclasses import dataclass
from typing import Any

import msgspec
import orjson

from apiserver.storage.interface import (
    Key,
    PreconditionFailed,
    StorageUnavailable,
    StoredObject,
)
from apiserver.storage.memory import MemoryReads, MemoryState
from apiserver.storage.wal import LogWriter, frame, fsync_dir, iter_verified

log = logging.getLogger("apiserver.storage")

_TOMBSTONE = StoredObject(0, b"")


class WalRecord(msgspec.Struct, array_like=True):
    rv: int
    delete: bool
    storage_key: str
    namespace: str
    name: str
    data: bytes


class SnapshotHeader(msgspec.Struct, array_like=True):
    rv: int


_encode = msgspec.msgpack.Encoder().encode
_decode_record = msgspec.msgpack.Decoder(WalRecord).decode
_decode_header = msgspec.msgpack.Decoder(SnapshotHeader).decode


@dataclass
class StoreOptions:
    data_dir: str
    history_size: int = 10_000  # retained changes per resource, for watch resumption
    history_seconds: float = 600.0
    snapshot_every: int = 20_000  # WAL records between snapshots


@dataclass
class WalStats:
    """Counts of the log's group commit: under concurrency `syncs` stays well below `records`."""

    syncs: int = 0  # appends made durable, one fsync each
    records: int = 0  # writes those appends carried


@dataclass
class _Pending:
    record: WalRecord
    future: asyncio.Future[StoredObject]


class EmbeddedStore(MemoryReads):
    shared = False

    def __init__(self, options: StoreOptions) -> None:
        self._options = options
        self._state = MemoryState(options.history_size, options.history_seconds)
        self._next_rv = 1
        self._overlay: dict[Key, StoredObject] = {}
        self._batch: list[_Pending] = []
        self._committer: asyncio.Task[None] | None = None
        self._log: LogWriter | None = None
        self._records_since_snapshot = 0
        # While a snapshot is being written: the frames appended since its revision, for the new log.
        self._carried: builtins.list[bytes] | None = None
        self._snapshotting: asyncio.Task[None] | None = None
        self._appending = asyncio.Lock()  # one append at a time, and none while the log is switched
        self.stats = WalStats()
        os.makedirs(options.data_dir, exist_ok=True)
        self._recover()

    # -- reading -------------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return True

    async def start(self) -> None:
        """Nothing to wait for: the state was recovered when the store was made."""

    async def catch_up(self, revision: int | None) -> None:
        """Nothing to wait for: this process is the only writer, and readers see each write once durable."""

    def latest(self, key: Key) -> StoredObject | None:
        pending = self._overlay.get(key)
        if pending is not None:
            return None if pending.data == b"" else pending
        return self.get(key)

    # -- writing -------------------------------------------------------------------------------

    def submit(self, key: Key, obj: dict[str, Any], expected: StoredObject | None,
               delete: bool = False, unchanged_since: int | None = None) -> asyncio.Future[StoredObject]:
        # `unchanged_since` holds by construction: this process is the only writer, and a caller decides
        # and submits in one step of the event loop, so nothing can be written in between.
        current = self.latest(key)
        if current is not expected and (current is None or expected is None or current.rv != expected.rv):
            raise PreconditionFailed(key)
        rv = self._next_rv
        self._next_rv += 1
        obj["metadata"]["resourceVersion"] = str(rv)
        data = orjson.dumps(obj)
        stored = StoredObject(rv, data)
        self._overlay[key] = StoredObject(rv, b"") if delete else stored
        future: asyncio.Future[StoredObject] = asyncio.get_running_loop().create_future()
        self._batch.append(_Pending(WalRecord(rv, delete, key[0], key[1], key[2], data), future))
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_batches())
        return future

    async def _commit_batches(self) -> None:
        while self._batch:
            batch, self._batch = self._batch, []
            frames = [frame(_encode(p.record)) for p in batch]
            failure = await self._append(frames)
            if failure is not None:
                self._fail_all(batch, failure)
                continue
            self.stats.syncs += 1
            self.stats.records += len(batch)
            now = time.monotonic()
            for pending in batch:
                stored = self._apply(pending.record, now)
                if self._overlay.get(self._key(pending.record), _TOMBSTONE).rv == pending.record.rv:
                    del self._overlay[self._key(pending.record)]
                if not pending.future.done():
                    pending.future.set_result(stored)
            self._records_since_snapshot += len(batch)
            if self._records_since_snapshot >= self._options.snapshot_every and self._carried is None:
                self._start_snapshot()

    async def _append(self, frames: builtins.list[bytes]) -> OSError | None:
        """Appends and syncs a batch's frames (kept for the new log while a snapshot is written), or the
        error that refused them. A full disk while a snapshot is being written is tried once more when
        the snapshot ends: the space it took comes back if it fails, and a failed append leaves nothing
        behind (LogWriter truncates it away)."""
        for last in (False, True):
            async with self._appending:
                assert self._log is not None
                try:
                    await asyncio.to_thread(self._log.append_and_sync, frames)
                except OSError as exc:
                    snapshot = self._snapshotting
                    if last or exc.errno != errno.ENOSPC or snapshot is None or snapshot.done():
                        return exc
                else:
                    if self._carried is not None:
                        self._carried += frames
                    return None
            # Outside the lock: a snapshot that succeeds takes it to move the log on.
            await asyncio.wait([snapshot])
        raise AssertionError("unreachable: the last attempt returns")

    def _fail_all(self, batch: builtins.list[_Pending], exc: OSError) -> None:
        # Writes queued behind the failed batch were checked against its pending state: fail them too.
        failed = batch + self._batch
        self._batch = []
        self._overlay.clear()
        log.error("write-ahead log append failed (%s); %d writes refused", exc, len(failed))
        for pending in failed:
            if not pending.future.done():
                pending.future.set_exception(StorageUnavailable(str(exc)))

    @staticmethod
    def _key(record: WalRecord) -> Key:
        return (record.storage_key, record.namespace, record.name)

    def _apply(self, record: WalRecord, now: float) -> StoredObject:
        self._state.apply(self._key(record), record.rv, record.data, record.delete, now)
        return StoredObject(record.rv, record.data)

    # -- durability ----------------------------------------------------------------------------

    def _paths(self, pattern: str) -> builtins.list[str]:
        return sorted(glob.glob(os.path.join(self._options.data_dir, pattern)))

    def _recover(self) -> None:
        for leftover in self._paths("snapshot-*.snap.tmp") + self._paths("wal-*.log.tmp"):
            # A snapshot, or the log to follow one, cut short by a crash; the logs they were to replace
            # are all here.
            os.unlink(leftover)
        snapshots = self._paths("snapshot-*.snap")
        snapshot_rv = 0
        if snapshots:
            snapshot_rv = self._load_snapshot(snapshots[-1])
        logs = self._paths("wal-*.log")
        for index, path in enumerate(logs):
            for payload in iter_verified(path, is_last=index == len(logs) - 1):
                record = _decode_record(payload)
                if record.rv > snapshot_rv:
                    self._replay(record)
        self._state.loaded(snapshot_rv)
        self._next_rv = self._state.revision + 1
        active = logs[-1] if logs else os.path.join(self._options.data_dir, f"wal-{self._next_rv:020d}.log")
        self._log = LogWriter(active)
        fsync_dir(self._options.data_dir)
        log.info("store recovered at revision %d from %s", self._state.revision, self._options.data_dir)

    def _replay(self, record: WalRecord) -> None:
        self._state.load(self._key(record), None if record.delete else StoredObject(record.rv, record.data))
        self._state.revision = record.rv

    def _load_snapshot(self, path: str) -> int:
        payloads = iter(iter_verified(path, is_last=False))
        header = _decode_header(next(payloads))
        for payload in payloads:
            self._replay(_decode_record(payload))
        return header.rv

    def _start_snapshot(self) -> None:
        """Starts writing the state as of now, between two batches, so it holds every write logged so far."""
        self._records_since_snapshot = 0  # a failed snapshot is retried after as many records again
        self._carried = []
        self._snapshotting = asyncio.create_task(self._snapshot(self._state.revision, self._state.copied()))

    async def _snapshot(self, revision: int,
                        resources: builtins.list[tuple[str, dict[tuple[str, str], StoredObject]]]) -> None:
        """Writes the state at `revision`, then moves the log on past it and drops the files it covers.

        Commits go on meanwhile, into the old log, their frames kept in `_carried`; they wait only
        while those frames are copied into the new log. Each step leaves a recoverable directory:
        until the snapshot is renamed into place the logs are untouched; after it, replay skips the
        records it holds; the new log appears whole (renamed into place), and until the old log is
        dropped its records past the snapshot are replayed from both, in order, to the same state.
        """
        snapshot: str | None = None
        try:
            snapshot = await asyncio.to_thread(self._write_snapshot, revision, resources)
        except OSError as exc:
            log.error("snapshot at revision %d failed (%s); the logs are kept", revision, exc)
        finally:
            if snapshot is None:
                self._carried = None  # the frames stay where they are, in the log that goes on
        if snapshot is None:
            return
        async with self._appending:
            carried, self._carried = self._carried or [], None
            try:
                new_log = await asyncio.to_thread(self._start_log, revision, carried)
            except OSError as exc:
                log.error("starting the log after the snapshot at revision %d failed (%s); appends go on "
                          "into the old log", revision, exc)
                return
            self._rotate(snapshot, new_log)

    def _write_snapshot(self, revision: int,
                        resources: builtins.list[tuple[str, dict[tuple[str, str], StoredObject]]]) -> str:
        final = os.path.join(self._options.data_dir, f"snapshot-{revision:020d}.snap")
        tmp = final + ".tmp"
        with open(tmp, "wb") as f:
            try:
                f.write(frame(_encode(SnapshotHeader(revision))))
                f.writelines(frame(_encode(WalRecord(obj.rv, False, storage_key, ns, name, obj.data)))
                             for storage_key, objects in resources for (ns, name), obj in objects.items())
                f.flush()
                os.fsync(f.fileno())
            except OSError:
                # A partial snapshot on a full disk would hold on to the space the log needs.
                os.unlink(tmp)
                raise
        os.replace(tmp, final)
        fsync_dir(self._options.data_dir)
        return final

    def _start_log(self, revision: int, carried: builtins.list[bytes]) -> LogWriter:
        """The log that follows the snapshot at `revision`, holding the frames logged since, made whole
        before it appears under its name."""
        final = os.path.join(self._options.data_dir, f"wal-{revision + 1:020d}.log")
        tmp = final + ".tmp"
        try:
            writer = LogWriter(tmp)
            try:
                writer.append_and_sync(carried)
            finally:
                writer.close()
            os.replace(tmp, final)
            fsync_dir(self._options.data_dir)
        except OSError:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        return LogWriter(final)

    def _rotate(self, snapshot: str, new_log: LogWriter) -> None:
        assert self._log is not None
        covered = [path for path in self._paths("wal-*.log") + self._paths("snapshot-*.snap")
                   if path not in (snapshot, new_log.path)]
        self._log.close()
        self._log = new_log
        for path in covered:
            os.unlink(path)

    async def wait_for_snapshot(self) -> None:
        """Returns once no snapshot is being written (its outcome is in the log and the files)."""
        while self._snapshotting is not None and not self._snapshotting.done():
            await asyncio.shield(self._snapshotting)

    async def close(self) -> None:
        while (self._committer is not None and not self._committer.done()) or (
                self._snapshotting is not None and not self._snapshotting.done()):
            if self._committer is not None and not self._committer.done():
                await self._committer
            await self.wait_for_snapshot()
        if self._log is not None:
            self._log.close()
            self._log = None
