"""No lost update: 32 clients at once read a counter and write it back, each write conditional on the read."""

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
