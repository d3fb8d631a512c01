"""No lost update: 32 clients at once read a counter and write it back, each write conditional on the read.
And no false conflict: a patch, delete or server-side apply that names no resourceVersion is never
answered 409 because another write got in first (over etcd this server's cache is a step behind the
commit), nor an apply that creates because another create got in first."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable

import pytest
from keepalive import Connection
from support import ServerProcess

CLIENTS = 32
ROUNDS = 12
CM_PATH = "/api/v1/namespaces/default/configmaps"

Write = Callable[[Connection, str, dict[str, object], int], tuple[int, bytes]]


def put(conn: Connection, path: str, current: dict[str, object], value: int) -> tuple[int, bytes]:
    body = dict(current, data={"n": str(value)})
    status, _, answer = conn.request("PUT", path, json.dumps(body).encode())
    return status, answer


def merge_patch(conn: Connection, path: str, current: dict[str, object], value: int) -> tuple[int, bytes]:
    metadata = current["metadata"]
    assert isinstance(metadata, dict)
    patch = {"metadata": {"resourceVersion": metadata["resourceVersion"]}, "data": {"n": str(value)}}
    status, _, answer = conn.request("PATCH", path, json.dumps(patch).encode(),
                                     {"Content-Type": "application/merge-patch+json"})
    return status, answer


@pytest.mark.parametrize("write", [put, merge_patch], ids=["get-update", "merge-patch-with-resourceVersion"])
def test_concurrent_increments_lose_nothing(shared_server: ServerProcess, write: Write) -> None:
    name = f"counter-{write.__name__.replace('_', '-')}"
    path = f"{CM_PATH}/{name}"
    setup = Connection(shared_server)
    assert setup.json("POST", CM_PATH, {"metadata": {"name": name}, "data": {"n": "0"}})[0] == 201
    outcomes: Counter[int] = Counter()
    lock = threading.Lock()
    start = threading.Barrier(CLIENTS)

    def client() -> None:
        conn = Connection(shared_server)
        mine: Counter[int] = Counter()
        try:
            start.wait()
            for _ in range(ROUNDS):
                status, current = conn.json("GET", path)
                assert status == 200
                status, answer = write(conn, path, current, int(current["data"]["n"]) + 1)
                if status == 409:
                    assert json.loads(answer)["reason"] == "Conflict"
                mine[status] += 1
        finally:
            conn.close()
            with lock:
                outcomes.update(mine)

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(outcomes) <= {200, 409}, outcomes
    assert sum(outcomes.values()) == CLIENTS * ROUNDS
    assert outcomes[200] > 0
    status, final = setup.json("GET", path)
    assert status == 200
    assert int(final["data"]["n"]) == outcomes[200]



def run_clients(server: ServerProcess, count: int, work: Callable[[Connection, int], Counter[str]]) -> Counter[str]:
    """`work(connection, index)` in `count` threads released together; the answers they counted, summed."""
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()
    start = threading.Barrier(count)

    def client(index: int) -> None:
        conn = Connection(server)
        try:
            start.wait()
            mine = work(conn, index)
        finally:
            conn.close()
        with lock:
            outcomes.update(mine)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes


def test_patches_naming_no_version_never_conflict(shared_server: ServerProcess) -> None:
    path = f"{CM_PATH}/unconditional"
    setup = Connection(shared_server)
    assert setup.json("POST", CM_PATH, {"metadata": {"name": "unconditional"}})[0] == 201

    def patcher(conn: Connection, index: int) -> Counter[str]:
        answers: Counter[str] = Counter()
        for round_ in range(ROUNDS):
            patch = {"data": {f"client-{index}": str(round_)}}
            status, _, answer = conn.request("PATCH", path, json.dumps(patch).encode(),
                                             {"Content-Type": "application/merge-patch+json"})
            assert status == 200, answer
            answers[f"patch {status}"] += 1
        return answers

    assert run_clients(shared_server, CLIENTS, patcher) == Counter({"patch 200": CLIENTS * ROUNDS})
    status, final = setup.json("GET", path)
    assert status == 200
    assert final["data"] == {f"client-{i}": str(ROUNDS - 1) for i in range(CLIENTS)}


def test_a_delete_naming_no_version_wins_over_concurrent_patches(shared_server: ServerProcess) -> None:
    setup = Connection(shared_server)
    for attempt in range(ROUNDS):
        name = f"doomed-{attempt}"
        path = f"{CM_PATH}/{name}"
        assert setup.json("POST", CM_PATH, {"metadata": {"name": name}})[0] == 201

        def patch_then_delete(conn: Connection, index: int) -> Counter[str]:
            answers: Counter[str] = Counter()
            if index == 0:  # the deleter, racing with everyone else's first patches
                status, _, answer = conn.request("DELETE", path)
                assert status == 200, answer
                answers[f"delete {status}"] += 1
                return answers
            for round_ in range(ROUNDS):
                patch = {"data": {f"client-{index}": str(round_)}}
                status, _, answer = conn.request("PATCH", path, json.dumps(patch).encode(),
                                                 {"Content-Type": "application/merge-patch+json"})
                assert status in (200, 404), answer
                answers[f"patch {status}"] += 1
                if status == 404:
                    break
            return answers

        outcomes = run_clients(shared_server, 8, patch_then_delete)
        assert outcomes["delete 200"] == 1 and set(outcomes) <= {"delete 200", "patch 200", "patch 404"}, outcomes
        assert setup.json("GET", path)[0] == 404


APPLY = {"Content-Type": "application/apply-patch+yaml"}


def apply_body(name: str, data: dict[str, str]) -> bytes:
    """A configuration naming no resourceVersion: an unconditional apply."""
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}).encode()


def test_applies_naming_no_version_never_conflict(shared_server: ServerProcess) -> None:
    """Each client applies its own key as its own manager: no field is contested, so every apply must
    land, however the others' writes interleave with it (upstream retries on the newer object)."""
    name = "applied-unconditionally"
    path = f"{CM_PATH}/{name}"
    setup = Connection(shared_server)
    assert setup.json("POST", CM_PATH, {"metadata": {"name": name}})[0] == 201

    def applier(conn: Connection, index: int) -> Counter[str]:
        answers: Counter[str] = Counter()
        for round_ in range(ROUNDS):
            status, _, answer = conn.request("PATCH", f"{path}?fieldManager=client-{index}",
                                             apply_body(name, {f"client-{index}": str(round_)}), APPLY)
            assert status == 200, answer
            answers[f"apply {status}"] += 1
        return answers

    assert run_clients(shared_server, CLIENTS, applier) == Counter({"apply 200": CLIENTS * ROUNDS})
    status, final = setup.json("GET", path)
    assert status == 200
    assert final["data"] == {f"client-{i}": str(ROUNDS - 1) for i in range(CLIENTS)}
    appliers = {e["manager"] for e in final["metadata"]["managedFields"] if e["operation"] == "Apply"}
    assert appliers == {f"client-{i}" for i in range(CLIENTS)}


def test_an_apply_that_creates_races_with_creates(shared_server: ServerProcess) -> None:
    """Applies of an absent object and a POST of it, released together: one creates it, and every other
    apply becomes an update of the winner's object (upstream's GuaranteedUpdate creates only while the
    key is empty); only the POST may be refused, as AlreadyExists."""
    setup = Connection(shared_server)
    for attempt in range(ROUNDS):
        name = f"raced-{attempt}"
        path = f"{CM_PATH}/{name}"

        def create_or_apply(conn: Connection, index: int) -> Counter[str]:
            if index == 0:
                status, _, answer = conn.request("POST", CM_PATH, json.dumps(
                    {"metadata": {"name": name}, "data": {"posted": "yes"}}).encode())
                assert status == 201 or (status == 409 and json.loads(answer)["reason"] == "AlreadyExists"), answer
                return Counter({f"create {status}": 1})
            status, _, answer = conn.request("PATCH", f"{path}?fieldManager=client-{index}",
                                             apply_body(name, {f"client-{index}": "applied"}), APPLY)
            assert status in (200, 201), answer
            return Counter({f"apply {status}": 1})

        outcomes = run_clients(shared_server, 8, create_or_apply)
        assert outcomes["create 201"] + outcomes["apply 201"] == 1, outcomes
        assert outcomes["create 201"] + outcomes["create 409"] == 1, outcomes
        status, final = setup.json("GET", path)
        assert status == 200
        applied = {f"client-{i}": "applied" for i in range(1, 8)}
        assert final["data"] == (applied | {"posted": "yes"} if outcomes["create 201"] else applied), outcomes
