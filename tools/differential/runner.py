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

from tools.differential.client import Answer, Client
from tools.differential.normalize import Normalized, answer_record

UNTIL_TRIES = 300  # a setup step marked `until` is repeated, 0.1 s apart, until it gets that status
Case = dict[str, Any]
Request = dict[str, Any]


def send(client: Client, req: Request, resource_version: str | None = None) -> Answer:
    """The answer to one request; `resource_version` goes into the body's metadata when given."""
    path = req["path"] + (f"?{req['query']}" if req.get("query") else "")
    body: bytes | None = None
    if "raw" in req:
        body = req["raw"].encode()
    elif "body" in req:
        obj = req["body"]
        if resource_version is not None:
            obj = {**obj, "metadata": {**obj.get("metadata", {}), "resourceVersion": resource_version}}
        body = json.dumps(obj).encode()
    return client.request(req["method"], path, body, req.get("contentType", ""),
                          req.get("accept", "application/json"))


def _resource_version(answer: Answer | None) -> str | None:
    try:
        return str(json.loads(answer.body)["metadata"]["resourceVersion"]) if answer else None
    except (ValueError, KeyError, TypeError):
        return None


def run_case(client: Client, case: Case) -> list[Normalized]:
    """The case's compared answers. A request marked `resourceVersionFromSetup` is sent with the
    resourceVersion the last setup step answered, as a client updating what it just read would; a
    setup step marked `until` is repeated until it answers that status (a CRD being established), one
    marked `delay` waits that many seconds first."""
    if case.get("namespace"):
        namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": case["namespace"]}}
        send(client, {"method": "POST", "path": "/api/v1/namespaces", "body": namespace})
    last: Answer | None = None
    for step in case["setup"]:
        time.sleep(step.get("delay", 0))
        last = send(client, step)
        for _ in range(UNTIL_TRIES):
            if "until" not in step or last.status == step["until"]:
                break
            time.sleep(0.1)
            last = send(client, step)
    req = case["request"]
    version = _resource_version(last) if req.get("resourceVersionFromSetup") else None
    answers = [answer_record(send(client, req, version))]
    if "check" in case:
        answers.append(answer_record(send(client, case["check"])))
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
