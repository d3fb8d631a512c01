"""Paging through a large list while writes go on, and gzip for large answers."""

from __future__ import annotations

import gzip
import json
import threading
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from support import ServerProcess

PATH = "/api/v1/namespaces/default/configmaps"


def test_pages_of_seven_show_each_object_once_while_writes_go_on(server: ServerProcess) -> None:
    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(lambda i: server.json("POST", PATH, {"metadata": {"name": f"cm-{i:04d}"},
                                                                   "data": {"v": "0"}})[0], range(1000)))
    assert codes == [201] * 1000
    _, before = server.json("GET", PATH)
    expected = {item["metadata"]["name"]: item["metadata"]["resourceVersion"] for item in before["items"]}
    assert len(expected) == 1000

    _, page = server.json("GET", PATH + "?limit=7")
    seen: list[tuple[str, str]] = []
    stop = threading.Event()
    writes = 0

    def write() -> None:
        nonlocal writes
        i = 0
        while not stop.is_set():
            server.json("POST", PATH, {"metadata": {"name": f"new-{i:04d}"}})
            server.json("PATCH", f"{PATH}/cm-{(i * 37) % 1000:04d}", {"data": {"v": str(i)}},
                        content_type="application/merge-patch+json")
            server.json("DELETE", f"{PATH}/cm-{999 - i:04d}")
            writes += 3
            i += 1

    writer = threading.Thread(target=write)
    writer.start()
    try:
        while True:
            seen.extend((i["metadata"]["name"], i["metadata"]["resourceVersion"]) for i in page["items"])
            assert page["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
            token = page["metadata"].get("continue")
            if not token:
                break
            assert page["metadata"]["remainingItemCount"] == 1000 - len(seen)
            status, page = server.json("GET", PATH + "?" + urllib.parse.urlencode({"limit": 7, "continue": token}))
            assert status == 200, page
    finally:
        stop.set()
        writer.join()
    assert writes > 0
    assert len(seen) == 1000
    assert dict(seen) == expected


def test_large_lists_are_gzipped_for_clients_that_accept_it(server: ServerProcess) -> None:
    for i in range(3):
        body = {"metadata": {"name": f"big-{i}"}, "data": {"blob": "x" * 60_000}}
        assert server.json("POST", PATH, body)[0] == 201
    req = urllib.request.Request(server.url + PATH, headers={"Authorization": f"Bearer {server.token}",
                                                             "Accept-Encoding": "gzip"})
    with urllib.request.urlopen(req, context=server.ssl_context()) as resp:
        assert resp.headers["Content-Encoding"] == "gzip"
        listed: Any = json.loads(gzip.decompress(resp.read()))
    assert [i["metadata"]["name"] for i in listed["items"]] == ["big-0", "big-1", "big-2"]
    status, plain = server.request("GET", PATH)
    assert status == 200 and json.loads(plain) == listed
    status, small = server.request("GET", PATH + "?limit=1", headers={"Accept-Encoding": "gzip"})
    assert json.loads(small)["items"][0]["metadata"]["name"] == "big-0"


def test_continue_past_the_history_is_410_with_a_fresh_token(tmp_path: Any) -> None:
    proc = ServerProcess(str(tmp_path), extra_args=["--history-size", "3"])
    proc.start()
    try:
        for name in "abc":
            assert proc.json("POST", PATH, {"metadata": {"name": name}})[0] == 201
        _, first = proc.json("GET", PATH + "?limit=1")
        for i in range(5):
            proc.json("PATCH", f"{PATH}/c", {"data": {"v": str(i)}}, content_type="application/merge-patch+json")
        query = urllib.parse.urlencode({"limit": 1, "continue": first["metadata"]["continue"]})
        status, gone = proc.json("GET", f"{PATH}?{query}")
        assert (status, gone["reason"]) == (410, "Expired")
        assert gone["message"].startswith("The provided continue parameter is too old")
        status, rest = proc.json("GET", PATH + "?" + urllib.parse.urlencode({"continue": gone["metadata"]["continue"]}))
        rv = first["metadata"]["resourceVersion"]
        code, old = proc.json("GET", f"{PATH}?resourceVersion={rv}&resourceVersionMatch=Exact")
        assert (code, old["reason"], old["message"]) == (410, "Expired",
                                                         "The resourceVersion for the provided list is too old.")
    finally:
        proc.stop()
    assert status == 200
    assert [i["metadata"]["name"] for i in rest["items"]] == ["b", "c"]
    assert rest["items"][1]["data"] == {"v": "4"}  # the inconsistent remainder is read at the newest revision


def test_a_repeated_query_parameter_counts_by_its_first_value(server: ServerProcess) -> None:
    # Go's url.Values.Get, which kube-apiserver's option decoding reads, takes the first of a repeated key.
    for i in range(3):
        assert server.json("POST", PATH, {"metadata": {"name": f"twice-{i}"}})[0] == 201
    status, page = server.json("GET", PATH + "?limit=1&limit=500")
    assert status == 200
    assert len(page["items"]) == 1 and page["metadata"]["continue"]
