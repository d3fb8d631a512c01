"""The real server killed with SIGKILL under load, a torn and a damaged log, and a full disk.

CRASH_RUNS (default 3) and CRASH_SECONDS (default 2.5: the latest moment of the kill) make the
crash test longer on demand: `CRASH_RUNS=30 CRASH_SECONDS=10 python -m pytest tests/test_crash.py`.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
from support import REPO, ServerProcess, fill_up, frame_offsets, small_tmpfs

# The embedded store's crash recovery; etcd's is tests/test_etcd_servers.py.
pytestmark = pytest.mark.store_once

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
RUNS = int(os.environ.get("CRASH_RUNS", "3"))
LATEST_KILL = float(os.environ.get("CRASH_SECONDS", "2.5"))
WRITERS = 4

# What one object is after a write: (resourceVersion, value), or None when it does not exist.
State = tuple[int, str] | None


@dataclass
class Writer:
    """One client thread writing its own objects one request at a time, so at most one is in flight."""

    server: ServerProcess
    index: int
    seed: int
    killed: threading.Event
    acked: dict[str, State] = field(default_factory=dict)  # the state each acknowledged write left
    in_flight: tuple[str, str | None] | None = None  # (name, value written, or None for a delete)
    acknowledged: int = 0
    failure: str | None = None

    def run(self) -> None:
        rng = random.Random(self.seed * 1000 + self.index)
        conn = http.client.HTTPSConnection("127.0.0.1", self.server.port, context=self.server.ssl_context(),
                                           timeout=30)
        headers = {"Authorization": f"Bearer {self.server.token}"}
        created = 0
        try:
            for seq in range(1_000_000):
                live = [name for name, state in self.acked.items() if state is not None]
                value = f"w{self.index}-{seq}-" + "x" * rng.randrange(0, 2000)
                outcome: str | None = value  # what the object holds once this write applies
                if not live or rng.random() < 0.35:
                    name = f"w{self.index}-{created}"
                    created += 1
                    request = ("POST", CONFIGMAPS, _configmap(name, value, None), "application/json", 201)
                else:
                    name = rng.choice(live)
                    state = self.acked[name]
                    assert state is not None
                    kind = rng.choice(["PUT", "PATCH", "PATCH", "DELETE"])
                    if kind == "PUT":
                        request = ("PUT", f"{CONFIGMAPS}/{name}", _configmap(name, value, state[0]),
                                   "application/json", 200)
                    elif kind == "PATCH":
                        request = ("PATCH", f"{CONFIGMAPS}/{name}", json.dumps({"data": {"v": value}}),
                                   "application/merge-patch+json", 200)
                    else:
                        outcome = None
                        request = ("DELETE", f"{CONFIGMAPS}/{name}", "", "application/json", 200)
                method, path, body, content_type, expected = request
                self.in_flight = (name, outcome)
                conn.request(method, path, body=body.encode(), headers={**headers, "Content-Type": content_type})
                response = conn.getresponse()
                answer = response.read()
                if response.status != expected:
                    self.failure = f"{method} {path}: {response.status} {answer[:300]!r}"
                    return
                if outcome is None:
                    self.acked[name] = None
                else:
                    got = json.loads(answer)
                    if got["data"]["v"] != outcome:
                        self.failure = f"{method} {path} answered {got['data']['v']!r}, not what was written"
                        return
                    self.acked[name] = (int(got["metadata"]["resourceVersion"]), outcome)
                self.in_flight = None
                self.acknowledged += 1
        except (OSError, http.client.HTTPException) as exc:
            if not self.killed.is_set():
                self.failure = f"request failed before the kill: {exc!r}"
        finally:
            conn.close()


def _configmap(name: str, value: str, rv: int | None) -> str:
    metadata: dict[str, Any] = {"name": name}
    if rv is not None:
        metadata["resourceVersion"] = str(rv)
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": {"v": value}})


def _stored(server: ServerProcess) -> tuple[int, dict[str, tuple[int, str]]]:
    status, listing = server.json("GET", CONFIGMAPS)
    assert status == 200, listing
    return (int(listing["metadata"]["resourceVersion"]),
            {item["metadata"]["name"]: (int(item["metadata"]["resourceVersion"]), item["data"]["v"])
             for item in listing["items"]})


def _check_writer(writer: Writer, stored: dict[str, tuple[int, str]]) -> tuple[list[str], bool]:
    """Each object must be as its last acknowledged write left it, or as its in-flight write would, wholly.

    Takes the writer's objects out of `stored`; answers what was lost, and whether the in-flight write applied.
    """
    lost = []
    applied = False
    names = set(writer.acked) | ({writer.in_flight[0]} if writer.in_flight else set())
    for name in sorted(names):
        found = stored.pop(name, None)
        acked = writer.acked.get(name)
        if found == acked:
            continue
        if writer.in_flight is not None and writer.in_flight[0] == name:
            value = writer.in_flight[1]
            applied = (found is None if value is None else
                       found is not None and found[1] == value and found[0] > (acked or (0, ""))[0])
            if applied:
                continue
        lost.append(f"{name}: acknowledged {acked}, in flight {writer.in_flight}, found {found}")
    return lost, applied


def _group_commit(server: ServerProcess) -> tuple[float, float]:
    """(log appends, writes they carried) so far, from /metrics."""
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=server.ssl_context(), timeout=30)
    try:
        conn.request("GET", "/metrics", headers={"Authorization": f"Bearer {server.token}"})
        text = conn.getresponse().read().decode()
    finally:
        conn.close()
    values = {line.split()[0]: float(line.split()[1]) for line in text.splitlines()
              if line.startswith("apiserver_storage_wal_")}
    return values["apiserver_storage_wal_appends_total"], values["apiserver_storage_wal_records_total"]


@pytest.mark.parametrize(("seed", "writer_count"), [(seed, WRITERS) for seed in range(RUNS)] + [(RUNS, 32)])
def test_acknowledged_writes_survive_sigkill(tmp_path: Any, seed: int, writer_count: int) -> None:
    """With 32 writers the kill lands while appends carry several writes each (group commit): the
    /metrics figures read just before it must show fewer appends than writes."""
    rng = random.Random(seed)
    # Frequent snapshots, so kills also land during snapshots and log rotations.
    server = ServerProcess(str(tmp_path), extra_args=["--snapshot-every", "40"])
    server.start()
    try:
        killed = threading.Event()
        writers = [Writer(server, i, seed, killed) for i in range(writer_count)]
        threads = [threading.Thread(target=w.run) for w in writers]
        for thread in threads:
            thread.start()
        time.sleep(rng.uniform(0.5, LATEST_KILL))
        appends, records = _group_commit(server)
        killed.set()
        server.kill()
        if writer_count > WRITERS:
            assert 0 < appends < records, (appends, records)
        for thread in threads:
            thread.join(30)
        assert [w.failure for w in writers if w.failure] == []
        newest_acked = max((s[0] for w in writers for s in w.acked.values() if s is not None), default=0)

        server.start()
        revision, stored = _stored(server)
        checked = [_check_writer(w, stored) for w in writers]
        lost = [line for writer_lost, _ in checked for line in writer_lost]
        acknowledged = sum(w.acknowledged for w in writers)
        print(f"\nseed {seed}: {acknowledged} writes acknowledged, {len(lost)} lost; "
              f"{sum(1 for w in writers if w.in_flight)} in flight at the kill, "
              f"{sum(applied for _, applied in checked)} of them applied; revision {revision}")
        assert acknowledged > 0
        assert lost == []
        assert stored == {}, f"objects no acknowledged or in-flight write made: {stored}"
        assert revision >= newest_acked
        status, after = server.json("POST", CONFIGMAPS, json.loads(_configmap("after-restart", "v", None)))
        assert status == 201, after
        assert int(after["metadata"]["resourceVersion"]) > revision
    finally:
        server.stop()


def _latest_log(server: ServerProcess) -> str:
    store = os.path.join(server.data_dir, "store")
    return os.path.join(store, max(p for p in os.listdir(store) if p.startswith("wal-")))


def _create_configmaps(server: ServerProcess, count: int) -> dict[str, int]:
    created = {}
    for i in range(count):
        status, body = server.json("POST", CONFIGMAPS, json.loads(_configmap(f"cm-{i}", str(i), None)))
        assert status == 201, body
        created[f"cm-{i}"] = int(body["metadata"]["resourceVersion"])
    return created


def test_a_torn_last_record_is_dropped_at_restart_with_a_log_line(tmp_path: Any) -> None:
    server = ServerProcess(str(tmp_path))
    server.start()
    try:
        created = _create_configmaps(server, 4)
        server.kill()
        log = _latest_log(server)
        last = frame_offsets(log)[-2]
        with open(log, "r+b") as f:
            f.truncate(last + 11)  # as if the crash came in the middle of appending cm-3
        server.start()
        assert "dropping torn record" in server.log()
        revision, stored = _stored(server)
        assert {name: rv for name, (rv, _) in stored.items()} == {n: rv for n, rv in created.items() if n != "cm-3"}
        assert revision == created["cm-2"]
        # The watch history starts at the recovered revision: resuming from before it is 410 Expired.
        status, raw = server.request("GET", f"{CONFIGMAPS}?watch=1&resourceVersion={created['cm-0']}")
        event = json.loads(raw.splitlines()[0])
        assert (status, event["type"], event["object"]["code"], event["object"]["reason"]) == \
            (200, "ERROR", 410, "Expired")
        status, body = server.json("POST", CONFIGMAPS, json.loads(_configmap("cm-3", "again", None)))
        assert status == 201 and int(body["metadata"]["resourceVersion"]) == revision + 1
    finally:
        server.stop()


def test_a_damaged_record_in_the_middle_stops_the_server_naming_file_and_offset(tmp_path: Any) -> None:
    server = ServerProcess(str(tmp_path))
    server.start()
    try:
        _create_configmaps(server, 4)
    finally:
        server.kill()
    log = _latest_log(server)
    offsets = frame_offsets(log)
    middle = offsets[len(offsets) // 2]
    with open(log, "r+b") as f:
        f.seek(middle + 20)
        byte = f.read(1)
        f.seek(middle + 20)
        f.write(bytes([byte[0] ^ 0x20]))
    result = subprocess.run([sys.executable, "-m", "apiserver", "--data-dir", server.data_dir,
                             "--port", str(server.port)],
                            check=False, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert f"corrupt record in {log} at offset {middle}" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_full_disk_fails_writes_with_500_and_keeps_reads_and_data(tmp_path: Any) -> None:
    server = ServerProcess(str(tmp_path / "server"), extra_args=["--snapshot-every", "5"])
    # Room for the fresh store and two of its snapshots (a fresh store snapshots to some 190 KB), then filled.
    with small_tmpfs(os.path.join(server.data_dir, "store"), "4m") as disk:
        server.start()
        try:
            created = _create_configmaps(server, 3)
            filler = fill_up(disk)
            big = "x" * 6000  # more than a page, so it cannot fit in the slack of the log's last page
            for attempt in range(3):
                status, body = server.json("POST", CONFIGMAPS,
                                           json.loads(_configmap(f"big-{attempt}", big, None)))
                assert (status, body["kind"], body["code"]) == (500, "Status", 500), body
                assert "could not be made durable" in body["message"]
            status, body = server.json("PUT", f"{CONFIGMAPS}/cm-0",
                                       json.loads(_configmap("cm-0", big, created["cm-0"])))
            assert status == 500, body
            revision, stored = _stored(server)
            assert {name: rv for name, (rv, _) in stored.items()} == created
            status, body = server.json("GET", f"{CONFIGMAPS}/cm-0")
            assert status == 200 and body["data"]["v"] == "0"

            os.unlink(filler)
            status, body = server.json("POST", CONFIGMAPS, json.loads(_configmap("big-0", big, None)))
            assert status == 201, body
            assert int(body["metadata"]["resourceVersion"]) > revision
            created["big-0"] = int(body["metadata"]["resourceVersion"])
            server.kill()
            server.start()
            _, stored = _stored(server)
            assert {name: rv for name, (rv, _) in stored.items()} == created
        finally:
            server.stop()
