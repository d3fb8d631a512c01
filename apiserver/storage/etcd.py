"""The etcd store: objects kept in etcd as kube-apiserver keeps them, read through a watch cache.

One etcd watch over the whole prefix feeds a MemoryState, so gets, lists, snapshots and watches are
served from memory as with the embedded store, and every server over the same etcd agrees on
resourceVersions (etcd's mod revisions). Why one watch and not one per resource as kube-apiserver's
cacher has: docs/storage.md, "On etcd". Writes are etcd transactions that compare the mod revision
the writer read; a write returns once this server's cache shows it, so a client reads what it wrote.
"""

from __future__ import annotations

import asyncio
import builtins
import logging
import socket
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

import grpc
import orjson
from aetcd import rpc

from apiserver.errors import ApiError
from apiserver.storage.etcdkeys import Layout
from apiserver.storage.interface import (
    Key,
    PreconditionFailed,
    ResourceChanged,
    StorageUnavailable,
    StoredObject,
    StoreUnreachable,
)
from apiserver.storage.memory import MemoryReads, MemoryState
from apiserver.wire import protobuf

log = logging.getLogger("apiserver.storage.etcd")

_PAGE = 5_000  # keys per range request while loading
_FRESH_WAIT = 3.0  # how long a read at a given resourceVersion waits for the cache (upstream's bound)
# A wait this long with no event arriving asks etcd whether the gap holds only changes outside the
# prefix (an etcd shared with other data). Not by a progress request: etcd before 3.4.31/3.5.13 (Debian
# ships 3.4.23) may answer one ahead of events it has queued (etcd issues 15220, 17507), which is why
# kube-apiserver serves consistent reads from its cache only on newer etcd. A range read decides it.
_CONFIRM_AFTER = 0.25
_LEASE_REUSE = 60.0  # seconds one TTL lease serves new objects, as kube-apiserver's lease manager
_UNREACHABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
                          grpc.StatusCode.CANCELLED})


@dataclass
class EtcdOptions:
    servers: list[str]
    prefix: str = "/registry"
    cafile: str = ""
    certfile: str = ""
    keyfile: str = ""
    history_size: int = 10_000
    history_seconds: float = 600.0
    call_timeout: float = 10.0  # one etcd request; below the API's request timeout
    ttl_seconds: dict[str, float] = field(default_factory=dict)  # storage key -> TTL (Events: --event-ttl)


class _Compacted(Exception):
    """The watch cannot resume: etcd compacted the revisions it would start from."""


def channel(options: EtcdOptions) -> grpc.aio.Channel:
    """One gRPC channel to the cluster; with several servers, gRPC moves to another when one fails."""
    urls = [urllib.parse.urlsplit(s if "://" in s else "http://" + s) for s in options.servers]
    hosts = [(u.hostname or "127.0.0.1", u.port or 2379) for u in urls]
    if len(hosts) == 1:
        target = f"dns:///{hosts[0][0]}:{hosts[0][1]}"
    else:
        addresses = [(str(socket.getaddrinfo(h, p, type=socket.SOCK_STREAM)[0][4][0]), p) for h, p in hosts]
        if any(":" in a for a, _ in addresses):
            target = "ipv6:" + ",".join(f"[{a}]:{p}" for a, p in addresses)
        else:
            target = "ipv4:" + ",".join(f"{a}:{p}" for a, p in addresses)
    settings: list[tuple[str, Any]] = [
        ("grpc.keepalive_time_ms", 10_000), ("grpc.keepalive_timeout_ms", 5_000),
        ("grpc.keepalive_permit_without_calls", 1), ("grpc.max_receive_message_length", 2**31 - 1),
        ("grpc.initial_reconnect_backoff_ms", 200), ("grpc.max_reconnect_backoff_ms", 2_000)]
    if not (options.cafile or options.certfile or any(u.scheme == "https" for u in urls)):
        return grpc.aio.insecure_channel(target, options=settings)
    if len(hosts) > 1:  # the addresses were resolved: the certificate still names the host
        settings.append(("grpc.ssl_target_name_override", hosts[0][0]))
    credentials = grpc.ssl_channel_credentials(
        _read(options.cafile), _read(options.keyfile), _read(options.certfile))
    return grpc.aio.secure_channel(target, credentials, options=settings)


def _read(path: str) -> bytes | None:
    if not path:
        return None
    with open(path, "rb") as f:
        return f.read()


def decode_value(value: bytes, revision: int) -> bytes:
    """A stored value as the compact JSON this server serves: protobuf decoded, resourceVersion set.

    kube-apiserver leaves resourceVersion out of what it stores and sets it from the mod revision on
    every read; this server stores an empty one (so the field keeps its place) and does the same.
    """
    obj = protobuf.decode_protobuf(value) if value.startswith(protobuf.MAGIC) else orjson.loads(value)
    obj["metadata"]["resourceVersion"] = str(revision)
    return orjson.dumps(obj)


class EtcdStore(MemoryReads):
    shared = True

    def __init__(self, options: EtcdOptions, layout: Layout) -> None:
        self._options = options
        self._layout = layout
        self._state = MemoryState(options.history_size, options.history_seconds)
        self._channel: grpc.aio.Channel | None = None
        self._kv: Any = None
        self._leases: Any = None
        self._watching = False
        self._follower: asyncio.Task[None] | None = None
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._keys = 0  # etcd's keys under the prefix at the cache's revision, servable or not
        self._confirmed = 0  # the revision a range read last showed the cache current at (see _confirm)
        self._confirming: asyncio.Future[None] | None = None
        self._lease: tuple[int, float] | None = None  # (id, granted at)
        self._revision_read: asyncio.Future[int] | None = None  # the read of etcd's revision on its way
        self._next_revision_read: asyncio.Future[int] | None = None  # the one callers arriving now wait for

    # -- reading -------------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return self._watching

    def latest(self, key: Key) -> StoredObject | None:
        # etcd's transaction checks the writer's expectation again, so the cache is enough here.
        return self._state.get(key)

    async def catch_up(self, revision: int | None) -> None:
        if revision is None:
            await self._reach(await self._current_revision())
        elif self._state.revision < revision and revision <= await self._current_revision():
            try:
                await asyncio.wait_for(self._reach(revision), _FRESH_WAIT)
            except TimeoutError:
                pass  # the caller answers "too large resource version"
        # else: etcd has not reached `revision` either, so waiting cannot help: too large at once

    async def _current_revision(self) -> int:
        """etcd's current revision, read after this call began; concurrent callers share one read.

        A read already on its way may have been answered before a caller arrived, so a caller joins the
        next one, which starts when the current one is answered: one round trip to etcd serves every
        consistent read that arrived meanwhile.
        """
        if self._next_revision_read is None:
            self._next_revision_read = asyncio.ensure_future(self._read_revision_after(self._revision_read))
        return await asyncio.shield(self._next_revision_read)

    async def _read_revision_after(self, running: asyncio.Future[int] | None) -> int:
        if running is not None:
            await asyncio.wait([running])
        self._revision_read, self._next_revision_read = self._next_revision_read, None
        try:
            # A linearizable read of one key: its header carries etcd's current revision.
            answer = await self._kv.Range(rpc.RangeRequest(key=self._layout.range[0], limit=1, keys_only=True),
                                          timeout=self._options.call_timeout)
        except grpc.aio.AioRpcError as exc:
            raise StoreUnreachable(exc.details() or exc.code().name) from None
        return int(answer.header.revision)

    async def _reach(self, revision: int) -> None:
        if self._state.revision >= revision:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((revision, future))
        while True:
            seen = self._state.revision
            try:
                await asyncio.wait_for(asyncio.shield(future), _CONFIRM_AFTER)
                return
            except TimeoutError:
                if self._state.revision == seen:  # no event meanwhile: the gap may hold none of ours
                    await self._confirm_shared()

    async def _confirm_shared(self) -> None:
        """One confirmation at a time serves every waiter."""
        if self._confirming is None or self._confirming.done():
            self._confirming = asyncio.ensure_future(self._confirm())
        await asyncio.shield(self._confirming)

    async def _confirm(self) -> None:
        """Moves the cache to etcd's current revision if nothing under the prefix changed since its own.

        etcd's newest mod revision under the prefix no later than the cache's, and as many keys as the
        cache has seen, mean the same keys with the same values: every key etcd holds was written no
        later than the cache's revision, so the cache holds it as it is, and none the cache holds is
        gone. Events of the gap can then only be keys made and deleted within it; they are dropped
        when they arrive (see _apply), as a fresh list would never show them either.
        """
        seen, keys = self._state.revision, self._keys
        start, end = self._layout.range
        try:
            # Sorting needs every key of the range read in etcd, yet sends back only the newest.
            answer = await self._kv.Range(rpc.RangeRequest(
                key=start, range_end=end, limit=1, keys_only=True, sort_target=rpc.RangeRequest.MOD,
                sort_order=rpc.RangeRequest.DESCEND), timeout=self._options.call_timeout)
        except grpc.aio.AioRpcError as exc:
            raise StoreUnreachable(exc.details() or exc.code().name) from None
        newest = answer.kvs[0].mod_revision if answer.kvs else 0
        if self._state.revision != seen or newest > seen or answer.count != keys:
            return  # events of ours are on their way: they close the gap
        self._confirmed = int(answer.header.revision)
        self._state.revision = max(self._state.revision, self._confirmed)
        self._advanced()

    def _advanced(self) -> None:
        if not self._waiters:
            return
        current = self._state.revision
        waiting = []
        for revision, future in self._waiters:
            if revision <= current or future.done():
                if not future.done():
                    future.set_result(None)
            else:
                waiting.append((revision, future))
        self._waiters = waiting

    # -- loading and following -----------------------------------------------------------------

    async def start(self) -> None:
        self._channel = channel(self._options)
        self._kv = rpc.KVStub(self._channel)
        self._leases = rpc.LeaseStub(self._channel)
        deadline = time.monotonic() + 60.0
        while True:
            try:
                revision, items, keys = await self._fetch()
                break
            except grpc.aio.AioRpcError as exc:
                if time.monotonic() > deadline:
                    raise StoreUnreachable(f"etcd at {','.join(self._options.servers)}: {exc.details()}") from None
                log.warning("waiting for etcd (%s)", exc.details())
                await asyncio.sleep(0.5)
        self._install(revision, items, keys)
        self._follower = asyncio.create_task(self._follow())
        log.info("watch cache loaded %d objects at revision %d from etcd", len(items), revision)

    async def _fetch(self) -> tuple[int, builtins.list[tuple[Key, StoredObject]], int]:
        """Every object under the prefix at one revision, read a page at a time, and how many keys
        the prefix holds (some may not be objects this server can serve)."""
        start, end = self._layout.range
        revision = 0
        keys = 0
        items: list[tuple[Key, StoredObject]] = []
        while True:
            answer = await self._kv.Range(rpc.RangeRequest(key=start, range_end=end, limit=_PAGE, revision=revision),
                                          timeout=self._options.call_timeout)
            revision = revision or answer.header.revision
            keys += len(answer.kvs)
            for kv in answer.kvs:
                key = self._layout.parse(kv.key)
                stored = self._decoded(kv.key, kv.value, kv.mod_revision) if key is not None else None
                if key is not None and stored is not None:
                    items.append((key, stored))
            if not answer.more or not answer.kvs:
                return revision, items, keys
            start = answer.kvs[-1].key + b"\x00"

    def _install(self, revision: int, items: builtins.list[tuple[Key, StoredObject]], keys: int) -> None:
        self._state.replace(items, revision)
        self._keys = keys
        self._advanced()

    def _decoded(self, raw_key: bytes, value: bytes, revision: int) -> StoredObject | None:
        try:
            return StoredObject(revision, decode_value(value, revision))
        except (orjson.JSONDecodeError, ApiError, KeyError, TypeError) as exc:
            # Encrypted at rest, or a kind without a protobuf schema here: not servable, not fatal.
            log.warning("skipping %s: its value cannot be read (%s)", raw_key.decode("utf-8", "replace"), exc)
            return None

    async def _follow(self) -> None:
        backoff = 0.1
        while True:
            try:
                await self._watch(self._state.revision + 1)
            except _Compacted:
                log.warning("etcd compacted past revision %d: reloading the watch cache", self._state.revision)
                self._watching = False
                try:
                    self._install(*await self._fetch())
                except grpc.aio.AioRpcError as exc:
                    log.warning("reloading from etcd failed (%s)", exc.details())
                    await asyncio.sleep(backoff)
                continue
            except grpc.aio.AioRpcError as exc:
                if self._watching:
                    log.warning("etcd watch lost (%s); reconnecting", exc.details())
            except Exception:
                # Whatever went wrong, the cache must not silently stop following: watch again from
                # the last revision applied (readiness is false meanwhile).
                log.exception("following etcd failed; watching again from revision %d", self._state.revision)
            else:
                backoff = 0.1  # etcd ended the stream of its own accord: watch again shortly
            self._watching = False
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 2.0)

    async def _watch(self, start_revision: int) -> None:
        start, end = self._layout.range

        async def requests() -> AsyncIterator[Any]:
            # etcd's own periodic notifications go only to watches with nothing queued: safe to take.
            yield rpc.WatchRequest(create_request=rpc.WatchCreateRequest(
                key=start, range_end=end, start_revision=start_revision, progress_notify=True))
            # Nothing more to ask, but closing our side would end the watch.
            await asyncio.get_running_loop().create_future()

        call = rpc.WatchStub(self._channel).Watch(requests())
        try:
            async for answer in call:
                if answer.compact_revision:
                    raise _Compacted()
                if answer.canceled:
                    raise grpc.aio.AioRpcError(grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(),
                                               grpc.aio.Metadata(), answer.cancel_reason)
                if answer.created:
                    self._watching = True
                    continue
                if answer.events:
                    self._apply(answer.events)
                elif answer.header.revision > self._state.revision:
                    # A periodic progress notification: nothing under the prefix changed up to this revision.
                    self._state.revision = answer.header.revision
                self._advanced()
        finally:
            call.cancel()

    def _apply(self, events: Any) -> None:
        now = time.monotonic()
        for event in events:
            kv = event.kv
            if kv.mod_revision <= self._confirmed:
                continue  # within a gap _confirm showed to change nothing: a key made and deleted in it
            if event.type == rpc.Event.DELETE:
                self._keys -= 1
            elif kv.version == 1:  # the first version of a key: one more under the prefix
                self._keys += 1
            key = self._layout.parse(kv.key)
            if key is None:
                self._state.revision = max(self._state.revision, kv.mod_revision)
                continue
            if event.type == rpc.Event.DELETE:
                prev = self._state.get(key)
                # Watchers see the last state at the deletion's revision, as upstream's do.
                data = b"" if prev is None else decode_value(prev.data, kv.mod_revision)
                self._state.apply(key, kv.mod_revision, data, True, now)
                continue
            stored = self._decoded(kv.key, kv.value, kv.mod_revision)
            if stored is None:
                self._state.revision = max(self._state.revision, kv.mod_revision)
                continue
            self._state.apply(key, kv.mod_revision, stored.data, False, now)

    # -- writing -------------------------------------------------------------------------------

    def submit(self, key: Key, obj: dict[str, Any], expected: StoredObject | None,
               delete: bool = False, unchanged_since: int | None = None) -> asyncio.Task[StoredObject]:
        current = self.latest(key)
        if current is not expected and (current is None or expected is None or current.rv != expected.rv):
            raise PreconditionFailed(key)
        return asyncio.ensure_future(self._commit(key, obj, expected, delete, unchanged_since))

    async def _commit(self, key: Key, obj: dict[str, Any], expected: StoredObject | None,
                      delete: bool, unchanged_since: int | None) -> StoredObject:
        etcd_key = self._layout.key(key)
        compares = [rpc.Compare(key=etcd_key, target=rpc.Compare.MOD, result=rpc.Compare.EQUAL,
                                mod_revision=0 if expected is None else expected.rv)]
        on_failure = []
        if unchanged_since is not None:
            start = self._layout.key((key[0], "", ""))
            compares.append(rpc.Compare(key=start, range_end=start[:-1] + b"0", target=rpc.Compare.MOD,
                                        result=rpc.Compare.LESS, mod_revision=unchanged_since + 1))
            # Tells the two failures apart: the object itself moved, or only another of its resource.
            on_failure.append(rpc.RequestOp(request_range=rpc.RangeRequest(key=etcd_key, count_only=True)))
        if delete:
            operation = rpc.RequestOp(request_delete_range=rpc.DeleteRangeRequest(key=etcd_key))
        else:
            obj["metadata"]["resourceVersion"] = ""
            ttl = self._options.ttl_seconds.get(key[0])
            lease = 0 if ttl is None else await self._lease_id(ttl)
            operation = rpc.RequestOp(request_put=rpc.PutRequest(key=etcd_key, value=orjson.dumps(obj), lease=lease))
        try:
            answer = await self._kv.Txn(rpc.TxnRequest(compare=compares, success=[operation], failure=on_failure),
                                        timeout=self._options.call_timeout)
        except grpc.aio.AioRpcError as exc:
            raise _failure(exc) from None
        if not answer.succeeded:
            if on_failure and expected is None and not answer.responses[0].response_range.count:
                raise ResourceChanged(key)
            raise PreconditionFailed(key)
        revision = answer.header.revision
        obj["metadata"]["resourceVersion"] = str(revision)
        try:
            await self._shown(revision)
        except TimeoutError:  # written all the same: etcd said so
            log.warning("the watch cache has not shown revision %d yet", revision)
        shown = self._state.get(key)
        if shown is not None and shown.rv == revision:
            return shown  # the bytes the watch event brought: the same object, encoded once
        return StoredObject(revision, orjson.dumps(obj))

    async def _shown(self, revision: int) -> None:
        """Waits until the cache shows this server's own write at `revision`. Its event is on its way
        (the key is under the watched prefix), so unlike `_reach` no confirmation is ever asked for, and
        the wait is one future, not a task per write."""
        if self._state.revision >= revision:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((revision, future))
        await asyncio.wait_for(future, _FRESH_WAIT)

    async def _lease_id(self, ttl: float) -> int:
        now = time.monotonic()
        if self._lease is not None and now - self._lease[1] < _LEASE_REUSE:
            return self._lease[0]
        try:
            # Granted for the reuse window longer, so that no object lives less than its TTL.
            granted = await self._leases.LeaseGrant(rpc.LeaseGrantRequest(TTL=int(ttl + _LEASE_REUSE)),
                                                    timeout=self._options.call_timeout)
        except grpc.aio.AioRpcError as exc:
            raise _failure(exc) from None
        self._lease = (granted.ID, now)
        return int(granted.ID)

    async def close(self) -> None:
        if self._follower is not None:
            self._follower.cancel()
            try:
                await self._follower
            except asyncio.CancelledError:
                pass
        if self._channel is not None:
            await self._channel.close()


def _failure(exc: grpc.aio.AioRpcError) -> Exception:
    if exc.code() in _UNREACHABLE:
        return StoreUnreachable(exc.details() or exc.code().name)
    return StorageUnavailable(exc.details() or exc.code().name)
