"""Several server processes over one etcd: --workers, a worker killed under write load, and an etcd
cluster losing its leader under write load. No acknowledged write may be lost."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from typing import Any, Callable, Iterator

import grpc
import pytest
from aetcd import rpc
from support import EtcdCluster, ServerProcess

# Starts its own etcd: the same in both passes.
pytestmark = pytest.mark.store_once

CMS = "/api/v1/namespaces/default/configmaps"


class WriteLoad:
    """Threads creating ConfigMaps until stopped; `acknowledged` holds the names answered 201."""

    def __init__(self, server: ServerProcess, threads: int = 4) -> None:
        self.acknowledged: list[str] = []
        self.failed = 0
        self._server = server
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(threads)]

    def _run(self, thread: int) -> None:
        for i in range(100_000):
            if self._stop.is_set():
                return
            name = f"load-{thread}-{i}"
            try:
                status, _ = self._server.json("POST", CMS, {"metadata": {"name": name}})
            except OSError:  # the connection's process was killed: not acknowledged
                status = 0
            if status == 201:
                self.acknowledged.append(name)
            else:
                self.failed += 1
                time.sleep(0.05)

    def __enter__(self) -> WriteLoad:
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(30)

    def wait_for(self, count: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        start = len(self.acknowledged)
        while len(self.acknowledged) < start + count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(self.acknowledged) >= start + count, f"writes stalled ({self.failed} failed)"


def stored_names(server: ServerProcess) -> set[str]:
    status, listed = server.json("GET", CMS)
    assert status == 200, listed
    return {item["metadata"]["name"] for item in listed["items"]}


def eventually(check: Callable[[], bool], timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()


def worker_pids(server: ServerProcess) -> list[int]:
    assert server.proc is not None
    children = subprocess.run(["pgrep", "-P", str(server.proc.pid)], capture_output=True, text=True).stdout.split()
    # The spawn context's resource tracker is a child too; workers are the ones that load a cache.
    loaded = set(re.findall(r"apiserver\.storage\.etcd\[(\d+)\]: watch cache loaded", server.log()))
    return [int(pid) for pid in children if pid in loaded]


@pytest.fixture
def workers(tmp_path: Any) -> Iterator[ServerProcess]:
    cluster = EtcdCluster(str(tmp_path / "etcd")).start()
    server = ServerProcess(str(tmp_path / "server"), extra_args=["--etcd-servers", cluster.servers, "--workers", "2"])
    try:
        server.start()
        assert eventually(lambda: len(worker_pids(server)) == 2)
        yield server
    finally:
        server.stop()
        cluster.stop()


def test_workers_share_the_port_and_agree(workers: ServerProcess) -> None:
    # Each request is a new connection, so the kernel spreads them over both workers.
    for i in range(20):
        status, created = workers.json("POST", CMS, {"metadata": {"name": f"w-{i}"}})
        assert status == 201
        status, got = workers.json("GET", CMS + f"/w-{i}")
        assert (status, got["metadata"]["resourceVersion"]) == (200, created["metadata"]["resourceVersion"])
        assert f"w-{i}" in stored_names(workers)


def test_a_killed_worker_loses_no_acknowledged_write(workers: ServerProcess) -> None:
    victim = worker_pids(workers)[0]
    with WriteLoad(workers) as load:
        load.wait_for(40)
        os.kill(victim, signal.SIGKILL)
        load.wait_for(40)
    assert eventually(lambda: len(worker_pids(workers)) == 2 and victim not in worker_pids(workers))
    assert set(load.acknowledged) <= stored_names(workers)


def leader(cluster: EtcdCluster) -> Any:
    for member in cluster.members:
        if member.proc is None or member.proc.poll() is not None:
            continue
        try:
            status = rpc.MaintenanceStub(grpc.insecure_channel(f"127.0.0.1:{member.client_port}")).Status(
                rpc.StatusRequest(), timeout=2)
        except grpc.RpcError:
            continue
        if status.leader == status.header.member_id:
            return member
    return None


def test_etcd_losing_its_leader_under_write_load_loses_no_acknowledged_write(tmp_path: Any) -> None:
    cluster = EtcdCluster(str(tmp_path / "etcd"), size=3).start()
    server = ServerProcess(str(tmp_path / "server"), extra_args=["--etcd-servers", cluster.servers])
    try:
        server.start()
        with WriteLoad(server) as load:
            load.wait_for(40)
            old = leader(cluster)
            assert old is not None
            cluster.kill(old)
            load.wait_for(40)
            assert eventually(lambda: leader(cluster) not in (None, old))
        assert set(load.acknowledged) <= stored_names(server)
        # And in etcd itself, read from a surviving member.
        survivor = next(m for m in cluster.members if m is not old)
        kv = rpc.KVStub(grpc.insecure_channel(f"127.0.0.1:{survivor.client_port}"))
        prefix = b"/registry/configmaps/default/"
        keys = {kv_.key.decode().rsplit("/", 1)[1] for kv_ in kv.Range(
            rpc.RangeRequest(key=prefix, range_end=prefix[:-1] + b"0", keys_only=True), timeout=10).kvs}
        assert set(load.acknowledged) <= keys
    finally:
        server.stop()
        cluster.stop()


CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def crd(plural: str) -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.fastkube.test"},
            "spec": {"group": "fastkube.test", "scope": "Namespaced",
                     "names": {"plural": plural, "singular": plural[:-1], "kind": plural[:-1].capitalize()},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": {"type": "object",
                                                                  "x-kubernetes-preserve-unknown-fields": True}}}]}}


def established(server: ServerProcess, name: str) -> bool:
    status, obj = server.json("GET", f"{CRDS}/{name}")
    conditions = (obj.get("status") or {}).get("conditions") or [] if status == 200 else []
    return any(c["type"] == "Established" and c["status"] == "True" for c in conditions)


def holder(server: ServerProcess) -> dict[str, Any]:
    status, lease = server.json("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/"
                                       "fastkube-controllers")
    return lease["spec"] if status == 200 else {}


def test_once_only_work_follows_the_lease_to_another_server(tmp_path: Any) -> None:
    cluster = EtcdCluster(str(tmp_path / "etcd")).start()
    flags = ["--etcd-servers", cluster.servers, "--leader-elect", "--leader-elect-lease-duration", "3"]
    servers = [ServerProcess(str(tmp_path / name), extra_args=flags) for name in ("a", "b")]
    try:
        for server in servers:
            server.start()
        assert eventually(lambda: bool(holder(servers[0]).get("holderIdentity")))
        pids = {str(s.proc.pid): s for s in servers if s.proc is not None}
        leading = pids[holder(servers[0])["holderIdentity"].split("_")[1]]
        other = next(s for s in servers if s is not leading)
        assert other.json("POST", CRDS, crd("gizmos"))[0] == 201
        assert eventually(lambda: established(other, "gizmos.fastkube.test"))
        leading.kill()
        assert eventually(lambda: holder(other)["holderIdentity"].split("_")[1] == str(other.proc.pid), 30)
        assert holder(other)["leaseTransitions"] == 1
        assert other.json("POST", CRDS, crd("doodads"))[0] == 201
        assert eventually(lambda: established(other, "doodads.fastkube.test"))
    finally:
        for server in servers:
            server.stop()
        cluster.stop()
