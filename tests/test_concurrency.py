"""No lost update: 32 clients at once read a counter and write it back, each write conditional on the read.
And no false conflict: a patch or delete that names no resourceVersion is never answered 409 because
another write got in first (over etcd this server's cache is a step behind the commit)."""

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
