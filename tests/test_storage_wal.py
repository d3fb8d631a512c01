"""The write-ahead log and the embedded store on real files: framing, torn tails, corruption,
snapshots and replay, group commit, the watch history window, and a full disk."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import struct
import threading
import zlib
from typing import Any, Awaitable, Callable, Coroutine

import msgspec
import orjson
import pytest
from support import fill_up, frame_offsets, small_tmpfs

from apiserver.errors import ApiError
from apiserver.http.endpoint import Endpoint, Target
from apiserver.http.negotiation import negotiate
from apiserver.kinds.resources import builtin_registry
from apiserver.storage.embedded import EmbeddedStore, StoreOptions, WalRecord
from apiserver.storage.interface import Expired, Key, StorageUnavailable, StoredObject
from apiserver.storage.wal import CorruptLog, frame, iter_verified, read_frames

# The embedded store's own log and snapshots: not run again on etcd.
pytestmark = pytest.mark.store_once

# -- helpers -------------------------------------------------------------------------------------


def key(name: str) -> Key:
    return ("configmaps", "default", name)


def configmap(name: str, value: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"},
            "data": {"v": value}}


def write(store: EmbeddedStore, name: str, value: str, delete: bool = False) -> Awaitable[StoredObject]:
    return store.submit(key(name), configmap(name, value), store.latest(key(name)), delete=delete)


def contents(store: EmbeddedStore) -> dict[str, StoredObject]:
    return {k[2]: obj for k, obj in store.list("configmaps", None)[1]}


def value_of(stored: StoredObject) -> str:
    return str(orjson.loads(stored.data)["data"]["v"])


def open_store(directory: str, **options: Any) -> EmbeddedStore:
    return EmbeddedStore(StoreOptions(directory, **options))


def run(body: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(body())


def write_one_by_one(directory: str, count: int, **options: Any) -> dict[str, StoredObject]:
    """`count` objects, each its own batch (so its own frame run in the log); what the store acknowledged."""
    acked: dict[str, StoredObject] = {}

    async def body() -> None:
        store = open_store(directory, **options)
        for i in range(count):
            acked[f"cm-{i}"] = await write(store, f"cm-{i}", f"value-{i}" * 5)
        await store.close()

    run(body)
    return acked


def only_log(directory: str) -> str:
    logs = sorted(p for p in os.listdir(directory) if p.startswith("wal-"))
    assert len(logs) == 1, logs
    return os.path.join(directory, logs[0])


# -- framing -------------------------------------------------------------------------------------


def test_a_frame_is_length_checksum_payload(tmp_path: Any) -> None:
    payload = b'{"a":1}'
    assert frame(payload) == struct.pack("<II", len(payload), zlib.crc32(payload)) + payload
    path = str(tmp_path / "f")
    with open(path, "wb") as f:
        f.write(frame(b"one") + frame(b"two") + frame(b"x" * 70_000))
    result = read_frames(path)
    assert result.payloads == [b"one", b"two", b"x" * 70_000]
    assert (result.valid_length, result.torn) == (os.path.getsize(path), False)


def test_a_log_cut_at_any_byte_of_its_last_records_keeps_every_whole_record(tmp_path: Any,
                                                                           caplog: pytest.LogCaptureFixture) -> None:
    payloads = [b"first", b"second" * 10, b"third" * 20]
    whole = b"".join(frame(p) for p in payloads)
    second_starts = len(frame(payloads[0]))
    path = str(tmp_path / "wal-1.log")
    for cut in range(second_starts, len(whole) + 1):
        with open(path, "wb") as f:
            f.write(whole[:cut])
        boundaries = [0, second_starts, second_starts + len(frame(payloads[1])), len(whole)]
        kept = max(i for i, b in enumerate(boundaries) if b <= cut)
        caplog.clear()
        with caplog.at_level(logging.WARNING, "apiserver.storage"):
            assert list(iter_verified(path, is_last=True)) == payloads[:kept]
        torn = cut != boundaries[kept]
        assert ("dropping torn record" in caplog.text) == torn, cut
        # The torn bytes are gone from the file, so later appends do not land behind them.
        assert os.path.getsize(path) == boundaries[kept]


def test_a_torn_tail_anywhere_but_the_last_log_is_refused(tmp_path: Any) -> None:
    path = str(tmp_path / "wal-1.log")
    with open(path, "wb") as f:
        f.write(frame(b"whole") + frame(b"torn")[:-1])
    with pytest.raises(CorruptLog, match=f"{path} at offset {len(frame(b'whole'))}"):
        list(iter_verified(path, is_last=False))


def test_a_zeroed_tail_is_torn_but_zeros_before_records_are_corruption(tmp_path: Any) -> None:
    # A file extended but never written reads as zeros; an all-zero header must not pass as a frame.
    path = str(tmp_path / "wal-1.log")
    with open(path, "wb") as f:
        f.write(frame(b"kept") + bytes(64))
    assert list(iter_verified(path, is_last=True)) == [b"kept"]
    assert os.path.getsize(path) == len(frame(b"kept"))
    with open(path, "wb") as f:
        f.write(frame(b"kept") + bytes(64) + frame(b"after"))
    with pytest.raises(CorruptLog, match=f"at offset {len(frame(b'kept'))}"):
        read_frames(path)


# -- torn tails and corruption through the store ---------------------------------------------------


def test_the_store_recovers_from_a_cut_at_every_byte_of_its_last_records(tmp_path: Any) -> None:
    original = str(tmp_path / "original")
    acked = write_one_by_one(original, 6)
    offsets = frame_offsets(only_log(original))
    names = sorted(acked, key=lambda n: acked[n].rv)
    trial = str(tmp_path / "trial")
    for cut in range(offsets[-3], offsets[-1] + 1):
        shutil.rmtree(trial, ignore_errors=True)
        shutil.copytree(original, trial)
        with open(only_log(trial), "r+b") as f:
            f.truncate(cut)
        whole = sum(1 for o in offsets[1:] if o <= cut)

        async def body(cut: int = cut, whole: int = whole) -> None:
            store = open_store(trial)
            expected = {n: acked[n] for n in names[:whole]}
            assert contents(store) == expected, cut
            assert store.revision == acked[names[whole - 1]].rv
            # Appends after the recovery follow straight on from the last whole record.
            again = await write(store, "after", "x")
            assert again.rv == store.revision == acked[names[whole - 1]].rv + 1
            await store.close()
            reopened = open_store(trial)
            assert contents(reopened) == {**expected, "after": again}
            await reopened.close()

        run(body)


def test_a_damaged_byte_anywhere_in_a_middle_record_refuses_to_start(tmp_path: Any) -> None:
    original = str(tmp_path / "original")
    write_one_by_one(original, 5)
    log = only_log(original)
    offsets = frame_offsets(log)
    start, end = offsets[2], offsets[3]
    with open(log, "rb") as f:
        pristine = f.read()
    for at in range(start, end):
        damaged = bytearray(pristine)
        damaged[at] ^= 0x41
        with open(log, "wb") as f:
            f.write(damaged)
        # Length, checksum or payload: whichever is hit, the record is named and nothing is cut off.
        with pytest.raises(CorruptLog, match=f"corrupt record in {log} at offset {start}: .*refusing to start"):
            open_store(original)
        with open(log, "rb") as f:
            assert f.read() == damaged


def test_a_damaged_last_record_is_dropped_like_a_torn_one(tmp_path: Any) -> None:
    directory = str(tmp_path / "store")
    acked = write_one_by_one(directory, 4)
    log = only_log(directory)
    last = frame_offsets(log)[-2]
    with open(log, "r+b") as f:
        f.seek(last + 12)
        f.write(b"\xff")

    async def body() -> None:
        store = open_store(directory)
        assert contents(store) == {n: s for n, s in acked.items() if n != "cm-3"}
        await store.close()

    run(body)


# -- snapshots and replay ----------------------------------------------------------------------


def test_snapshots_rotate_the_log_and_a_restart_loses_nothing(tmp_path: Any) -> None:
    directory = str(tmp_path / "store")
    expected: dict[str, StoredObject] = {}

    async def body() -> None:
        store = open_store(directory, snapshot_every=7)
        for i in range(40):
            expected[f"cm-{i % 13}"] = await write(store, f"cm-{i % 13}", f"v{i}")
            if i % 5 == 4:
                await write(store, f"cm-{i % 13}", "", delete=True)
                del expected[f"cm-{i % 13}"]
        # A concurrent burst commits as batches in the middle of the snapshot schedule.
        burst = await asyncio.gather(*(write(store, f"burst-{i}", "b") for i in range(30)))
        expected.update({f"burst-{i}": s for i, s in enumerate(burst)})
        revision = store.revision
        await store.close()
        files = sorted(os.listdir(directory))
        assert len([f for f in files if f.endswith(".snap")]) == 1, files
        assert not [f for f in files if f.endswith(".tmp")], files

        for _ in range(2):  # twice: the first restart must leave files the second reads the same way
            reopened = open_store(directory, snapshot_every=7)
            assert contents(reopened) == expected
            assert reopened.revision == revision
            await reopened.close()
        reopened = open_store(directory, snapshot_every=7)
        assert (await write(reopened, "later", "x")).rv == revision + 1
        await reopened.close()

    run(body)


def test_a_crash_after_the_snapshot_before_dropping_old_logs_replays_each_write_once(tmp_path: Any) -> None:
    directory = str(tmp_path / "store")
    keep = str(tmp_path / "old-log")

    async def body() -> None:
        store = open_store(directory, snapshot_every=10)
        for i in range(9):
            await write(store, f"cm-{i}", "first")
        # A second link keeps the old log as it is when the snapshot starts, as a crash before the unlink would.
        os.link(only_log(directory), keep)
        for i in range(9):
            await write(store, f"cm-{i}", "second")
        await store.close()

    run(body)
    assert len([f for f in os.listdir(directory) if f.endswith(".snap")]) == 1
    shutil.copy(keep, os.path.join(directory, f"wal-{1:020d}.log"))

    async def check() -> None:
        store = open_store(directory)
        assert {n: value_of(s) for n, s in contents(store).items()} == {f"cm-{i}": "second" for i in range(9)}
        assert store.revision == 18
        await store.close()

    run(check)


def test_a_failed_snapshot_keeps_the_logs_and_loses_nothing(tmp_path: Any, caplog: pytest.LogCaptureFixture) -> None:
    directory = str(tmp_path / "store")
    # A directory where the snapshot at revision 5 puts its temporary file: opening it fails as a write would.
    blocker = os.path.join(directory, f"snapshot-{5:020d}.snap.tmp")
    acked: dict[str, StoredObject] = {}

    def snapshots() -> list[str]:
        return sorted(f for f in os.listdir(directory) if f.endswith(".snap"))

    async def body() -> None:
        store = open_store(directory, snapshot_every=5)
        os.mkdir(blocker)
        with caplog.at_level(logging.ERROR, "apiserver.storage"):
            for i in range(9):
                acked[f"cm-{i}"] = await write(store, f"cm-{i}", "v")
            await store.wait_for_snapshot()  # written beside the commits: its outcome may follow theirs
        assert "snapshot at revision 5 failed" in caplog.text
        # Appends went on into the same log, and the retry waits for as many records again.
        assert snapshots() == [] and len([f for f in os.listdir(directory) if f.startswith("wal-")]) == 1
        side = str(tmp_path / "as-of-now")
        shutil.copytree(directory, side, ignore=shutil.ignore_patterns("*.tmp"))
        copy = open_store(side)
        assert contents(copy) == acked
        await copy.close()
        acked["cm-9"] = await write(store, "cm-9", "v")
        await store.close()  # the snapshot follows the acknowledgement; closing waits for it
        assert snapshots() == [f"snapshot-{10:020d}.snap"]
        os.rmdir(blocker)
        reopened = open_store(directory)
        assert contents(reopened) == acked
        await reopened.close()

    run(body)


def test_a_snapshot_cut_short_by_a_crash_is_cleared_away(tmp_path: Any) -> None:
    directory = str(tmp_path / "store")
    acked = write_one_by_one(directory, 3)
    with open(os.path.join(directory, f"snapshot-{3:020d}.snap.tmp"), "wb") as f:
        f.write(frame(b"partial")[:5])

    async def body() -> None:
        store = open_store(directory)
        assert contents(store) == acked
        assert not [f for f in os.listdir(directory) if f.endswith(".tmp")]
        await store.close()

    run(body)


def test_writes_go_on_while_a_snapshot_is_written_and_a_crash_at_any_step_after_loses_nothing(
        tmp_path: Any) -> None:
    directory = str(tmp_path / "store")
    keep = str(tmp_path / "old-log")
    acked: dict[str, StoredObject] = {}

    async def body() -> None:
        store = open_store(directory, snapshot_every=10)
        release = threading.Event()
        write_snapshot = store._write_snapshot

        def held(*args: Any) -> str:
            # Released only once the writes below were acknowledged: were commits to wait for the
            # snapshot, it would give up here and the logs checked below would not be there.
            if not release.wait(30):
                raise OSError("the writes never came")
            return write_snapshot(*args)
        store._write_snapshot = held  # type: ignore[method-assign]
        for i in range(10):
            acked[f"cm-{i}"] = await write(store, f"cm-{i}", "first")
        # The snapshot at revision 10 is held: these are acknowledged all the same, into the old log.
        for i in range(5):
            acked[f"cm-{i}"] = await write(store, f"cm-{i}", "second")
        os.link(only_log(directory), keep)  # the old log as a crash before its unlink would leave it
        release.set()
        await store.wait_for_snapshot()
        logs = sorted(f for f in os.listdir(directory) if f.startswith("wal-"))
        assert logs == [f"wal-{11:020d}.log"], logs
        carried = read_frames(os.path.join(directory, logs[0])).payloads
        assert [msgspec.msgpack.decode(p, type=WalRecord).rv for p in carried] == list(range(11, 16))
        acked["after"] = await write(store, "after", "x")
        await store.close()

    run(body)
    # Both logs, and a log cut short on its way in: replayed to the same state, at the same revision.
    shutil.copy(keep, os.path.join(directory, f"wal-{1:020d}.log"))
    with open(os.path.join(directory, f"wal-{17:020d}.log.tmp"), "wb") as f:
        f.write(frame(b"partial")[:5])

    async def check() -> None:
        store = open_store(directory)
        assert contents(store) == acked
        assert store.revision == 16
        assert not [f for f in os.listdir(directory) if f.endswith(".tmp")]
        await store.close()

    run(check)


# -- group commit ------------------------------------------------------------------------------


def test_concurrent_writes_share_fsyncs(tmp_path: Any) -> None:
    async def body() -> None:
        store = open_store(str(tmp_path / "store"))

        async def writer(w: int) -> None:
            for i in range(20):
                await write(store, f"w{w}-{i}", "v")

        await asyncio.gather(*(writer(w) for w in range(8)))
        assert store.stats.records == 160
        # Each writer waits for its own fsync, so up to eight writes ride on every one.
        assert store.stats.syncs * 4 <= store.stats.records, store.stats
        await store.close()

    run(body)


def test_sequential_writes_each_take_an_fsync(tmp_path: Any) -> None:
    async def body() -> None:
        store = open_store(str(tmp_path / "store"))
        for i in range(5):
            await write(store, f"cm-{i}", "v")
        assert (store.stats.syncs, store.stats.records) == (5, 5)
        await store.close()

    run(body)


# -- what readers see --------------------------------------------------------------------------


def test_a_write_is_invisible_to_readers_until_its_fsync(tmp_path: Any) -> None:
    async def body() -> None:
        store = open_store(str(tmp_path / "store"))
        endpoint = Endpoint(store, builtin_registry())
        rt = builtin_registry().lookup("", "v1", "configmaps")
        assert rt is not None
        first = await write(store, "cm", "old")
        pending = write(store, "cm", "new")
        # A writer checks against the pending state; a reader, and a watch, see only what is durable.
        latest = store.latest(key("cm"))
        assert latest is not None and latest.rv == first.rv + 1
        reply = endpoint.get(Target(rt, "default", "cm", None, {}), negotiate("", "get"))
        assert b'"v":"old"' in reply.body
        assert store.get(key("cm")) == first
        created = store.submit(key("fresh"), configmap("fresh", "v"), None)
        with pytest.raises(ApiError) as missing:
            endpoint.get(Target(rt, "default", "fresh", None, {}), negotiate("", "get"))
        assert missing.value.code == 404
        await pending
        await created
        assert b'"v":"new"' in endpoint.get(Target(rt, "default", "cm", None, {}), negotiate("", "get")).body
        await store.close()

    run(body)


# -- the watch history window ------------------------------------------------------------------


def test_history_keeps_the_newest_changes_by_count(tmp_path: Any) -> None:
    async def body() -> None:
        store = open_store(str(tmp_path / "store"), history_size=3)
        revs = [(await write(store, f"cm-{i}", "v")).rv for i in range(6)]
        assert [c.rv for c in store.changes_since("configmaps", revs[2])] == revs[3:]
        with pytest.raises(Expired) as expired:
            store.changes_since("configmaps", revs[1])
        assert (expired.value.requested, expired.value.oldest) == (revs[1], revs[2])
        # Another resource's writes do not push configmaps' changes out.
        for i in range(5):
            await store.submit(("secrets", "default", f"s-{i}"), configmap(f"s-{i}", "v"), None)
        assert [c.rv for c in store.changes_since("configmaps", revs[2])] == revs[3:]
        await store.close()

    run(body)


def test_history_expires_by_age_even_without_new_writes(tmp_path: Any) -> None:
    async def body() -> None:
        store = open_store(str(tmp_path / "store"), history_seconds=0.3)
        first = await write(store, "cm", "a")
        second = await write(store, "cm", "b")
        assert [c.type for c in store.changes_since("configmaps", first.rv - 1)] == ["ADDED", "MODIFIED"]
        await asyncio.sleep(0.4)
        with pytest.raises(Expired):
            store.changes_since("configmaps", first.rv - 1)
        assert store.changes_since("configmaps", second.rv) == []
        await store.close()

    run(body)


def test_a_resource_never_written_can_be_watched_from_any_revision_since_the_start(tmp_path: Any) -> None:
    directory = str(tmp_path / "store")
    write_one_by_one(directory, 2)

    async def body() -> None:
        store = open_store(directory)
        listed_at = store.list("secrets", None)[0]
        # Writes to other resources between a list and its watch must not make the watch 410.
        for i in range(3):
            await write(store, f"more-{i}", "v")
        assert store.changes_since("secrets", listed_at) == []
        with pytest.raises(Expired):
            store.changes_since("secrets", listed_at - 1)
        await store.close()

    run(body)


def test_after_a_restart_history_starts_at_the_recovered_revision(tmp_path: Any) -> None:
    directory = str(tmp_path / "store")
    acked = write_one_by_one(directory, 3)

    async def body() -> None:
        store = open_store(directory)
        with pytest.raises(Expired):
            store.changes_since("configmaps", acked["cm-1"].rv)
        assert store.changes_since("configmaps", store.revision) == []
        later = await write(store, "cm-0", "changed")
        changes = store.changes_since("configmaps", acked["cm-2"].rv)
        assert [(c.type, c.rv, c.prev) for c in changes] == [("MODIFIED", later.rv, acked["cm-0"].data)]
        await store.close()

    run(body)


# -- a full disk -------------------------------------------------------------------------------


def test_a_full_disk_refuses_the_batch_and_leaves_the_log_whole(tmp_path: Any) -> None:
    with small_tmpfs(str(tmp_path / "disk"), "256k") as disk:
        directory = os.path.join(disk, "store")

        async def body() -> None:
            store = open_store(directory)
            acked = {f"cm-{i}": await write(store, f"cm-{i}", "v") for i in range(3)}
            log = only_log(directory)
            size = os.path.getsize(log)
            filler = fill_up(disk)
            # Bigger than a page, so it cannot fit in the slack of the log's last page.
            big = [write(store, f"big-{i}", "x" * 3000) for i in range(4)]
            results = await asyncio.gather(*big, return_exceptions=True)
            assert all(isinstance(r, StorageUnavailable) for r in results), results
            assert os.path.getsize(log) == size  # the half-written batch was cut off again
            assert contents(store) == acked and store.latest(key("big-0")) is None
            os.unlink(filler)
            newest = max(s.rv for s in acked.values())
            acked["big-0"] = await write(store, "big-0", "x" * 3000)
            assert acked["big-0"].rv > newest
            await store.close()
            reopened = open_store(directory)
            assert contents(reopened) == acked
            await reopened.close()

        run(body)


def test_a_snapshot_failing_on_a_full_disk_gives_its_space_back_to_the_log(tmp_path: Any,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    with small_tmpfs(str(tmp_path / "disk"), "256k") as disk:
        directory = os.path.join(disk, "store")

        async def body() -> None:
            store = open_store(directory, snapshot_every=11)
            acked = {f"cm-{i}": await write(store, f"cm-{i}", "x" * 3000) for i in range(10)}
            filler = fill_up(disk)
            # Four pages free: room for log appends, not for a snapshot of ten 3 kB objects.
            os.truncate(filler, os.path.getsize(filler) - 4 * 4096)
            with caplog.at_level(logging.ERROR, "apiserver.storage"):
                acked["cm-10"] = await write(store, "cm-10", "x" * 3000)
                acked["cm-11"] = await write(store, "cm-11", "x" * 3000)
                await store.wait_for_snapshot()
            assert "snapshot at revision 11 failed" in caplog.text
            assert sorted(os.listdir(directory)) == [f"wal-{1:020d}.log"]
            await store.close()
            os.unlink(filler)
            reopened = open_store(directory)
            assert contents(reopened) == acked
            await reopened.close()

        run(body)
