"""Sending cases to a server: each case's namespace, its setup, its request and its read-back.

Cases are independent (a namespace of their own, or cluster-scoped names unique to them), so they run
concurrently over a pool of threads, each on its keep-alive connection; the requests of one case go
in order. The answers compared are the request's and the read-back's, normalized.
"""

from __future__ import annotations

import concurrent.futures
import gzip
import json
import sys
import time
from typing import Any, Callable, Iterator

from tools.differential.client import Client
from tools.differential.normalize import Normalized, answer_record

Case = dict[str, Any]
Request = dict[str, Any]


def send(client: Client, req: Request) -> Normalized:
    path = req["path"] + (f"?{req['query']}" if req.get("query") else "")
    body: bytes | None = None
    if "raw" in req:
        body = req["raw"].encode()
    elif "body" in req:
        body = json.dumps(req["body"]).encode()
    answer = client.request(req["method"], path, body, req.get("contentType", ""),
                            req.get("accept", "application/json"))
    return answer_record(answer)


def run_case(client: Client, case: Case) -> list[Normalized]:
    if case.get("namespace"):
        namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": case["namespace"]}}
        send(client, {"method": "POST", "path": "/api/v1/namespaces", "body": namespace})
    for step in case["setup"]:
        send(client, step)
    answers = [send(client, case["request"])]
    if "check" in case:
        answers.append(send(client, case["check"]))
    return answers


def run_all(client: Client, cases: list[Case], workers: int,
            progress: Callable[[int, int], None] | None = None) -> dict[str, list[Normalized]]:
    """Every case's answers, by case id."""
    out: dict[str, list[Normalized]] = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(run_case, client, case): case["id"] for case in cases}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            out[futures[future]] = future.result()
            if progress is not None:
                progress(done, len(cases))
    return out


def stderr_progress() -> Callable[[int, int], None]:
    started = time.monotonic()

    def report(done: int, total: int) -> None:
        if done % 500 == 0 or done == total:
            print(f"  {done}/{total} cases, {time.monotonic() - started:.0f}s", file=sys.stderr, flush=True)

    return report


def read_fixture(path: str) -> Iterator[dict[str, Any]]:
    """The recorded lines: each {"case": ..., "answers": [...]}."""
    with gzip.open(path, "rt") as f:
        for line in f:
            record = json.loads(line)
            if "meta" not in record:
                yield record
