"""The embedded store: every object in memory as bytes, every write made durable before it counts.

Writes are checked and numbered at once (so a second writer sees the first one's pending state)
but become visible to readers and watchers only after the batch they joined is fsynced: what a
reader has seen, a crash cannot take back. Concurrent writes share one fsync.
"""

from __future__ import annotations

import asyncio
import builtins
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
            assert self._log is not None
            try:
                await asyncio.to_thread(self._log.append_and_sync, frames)
            except OSError as exc:
                self._fail_all(batch, exc)
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
            if self._records_since_snapshot >= self._options.snapshot_every:
                await self._snapshot()

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
        for leftover in self._paths("snapshot-*.snap.tmp"):
            os.unlink(leftover)  # a snapshot cut short by a crash; the logs it was to replace are all here
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

    async def _snapshot(self) -> None:
        """Writes the whole state, then starts a new log and drops the files the snapshot covers.

        Commits wait meanwhile (this runs inside the committer), so the state cannot move under it.
        Each step leaves a recoverable directory: until the snapshot is renamed into place the logs
        are untouched, and after it replay skips the records it holds.
        """
        self._records_since_snapshot = 0  # a failed snapshot is retried after as many records again
        revision = self._state.revision
        records = [WalRecord(obj.rv, False, storage_key, ns, name, obj.data)
                   for (storage_key, ns, name), obj in self._state.items()]
        try:
            snapshot = await asyncio.to_thread(self._write_snapshot, revision, records)
            self._rotate(revision, snapshot)
        except OSError as exc:
            log.error("snapshot at revision %d failed (%s); the logs are kept", revision, exc)

    def _write_snapshot(self, revision: int, records: builtins.list[WalRecord]) -> str:
        final = os.path.join(self._options.data_dir, f"snapshot-{revision:020d}.snap")
        tmp = final + ".tmp"
        with open(tmp, "wb") as f:
            try:
                f.write(frame(_encode(SnapshotHeader(revision))))
                f.writelines(frame(_encode(record)) for record in records)
                f.flush()
                os.fsync(f.fileno())
            except OSError:
                # A partial snapshot on a full disk would hold on to the space the log needs.
                os.unlink(tmp)
                raise
        os.replace(tmp, final)
        fsync_dir(self._options.data_dir)
        return final

    def _rotate(self, revision: int, snapshot: str) -> None:
        assert self._log is not None
        covered = [path for path in self._paths("wal-*.log") + self._paths("snapshot-*.snap")
                   if path != snapshot]
        # The new log is opened before the old one is closed: if opening fails, appends go on as before.
        new_log = LogWriter(os.path.join(self._options.data_dir, f"wal-{revision + 1:020d}.log"))
        self._log.close()
        self._log = new_log
        fsync_dir(self._options.data_dir)
        for path in covered:
            os.unlink(path)

    async def close(self) -> None:
        while self._committer is not None and not self._committer.done():
            await self._committer
        if self._log is not None:
            self._log.close()
            self._log = None
