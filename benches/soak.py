"""Soak: many clients reading and writing, many watchers following, for a bounded time.

    python -m benches.soak [--seconds 60] [--clients 32] [--watchers 100] [--event-loop asyncio]

Starts the real server, then runs `clients` threads mixing gets, lists, creates, updates (read, then
write conditional on what was read), merge patches and deletes on a pool of ConfigMaps, and
`watchers` threads that list, then watch from the list's resourceVersion, resume from the last event
when a stream ends, and re-list when told their resourceVersion is too old. When the time is up the
writers stop, a marker object is written, and every watcher must hold exactly the final list once it
has seen the marker. The server's resident memory is sampled each second. Exits non-zero on any 5xx,
on any watcher that disagrees with the final state, or on memory that grows: a run past 10 minutes
fails when its last minute's memory is more than 5% above the minute from 10 minutes on (issue 17's
yardstick; by then the watch history is full and the caches are warm; each the median of that
minute's samples, which one by one move by several MiB), a shorter one when it grows more than 10%
across its second half.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import orjson
import psutil

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))

from keepalive import Connection  # noqa: E402
from support import ServerProcess  # noqa: E402

from apiserver.server import EVENT_LOOPS  # noqa: E402

NAMESPACE = "soak"
CM_PATH = f"/api/v1/namespaces/{NAMESPACE}/configmaps"
POOL = [f"cm-{i:03d}" for i in range(200)]
MARKER = "soak-end"
# A run up to SETTLED_AFTER_S counts as flat while its resident memory grows no more than
# SECOND_HALF_TOLERANCE from the middle to the end; a longer run while it ends no more than
# SETTLED_TOLERANCE above its memory at SETTLED_AFTER_S (issue 17: "a 60-minute soak ends within 5% of
# its 10-minute memory").
SECOND_HALF_TOLERANCE = 0.10
SETTLED_AFTER_S = 600.0
SETTLED_TOLERANCE = 0.05
# The memory "at" a moment of a long run is the median of the samples of the minute that starts there
# (at SETTLED_AFTER_S) or ends there (at the end): one sample moves by several MiB as buffers come and go.
SAMPLE_WINDOW_S = 60.0
PROGRESS_EVERY = 60  # samples (seconds) between progress lines on stderr


@dataclass
class Tally:
    """What every thread saw, merged under a lock."""

    statuses: Counter[int] = field(default_factory=Counter)
    operations: Counter[str] = field(default_factory=Counter)
    server_errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, operation: str, status: int, body: bytes) -> None:
        with self.lock:
            self.operations[operation] += 1
            self.statuses[status] += 1
            if status >= 500:
                self.server_errors.append(f"{operation} {status} {body[:300]!r}")


def client_loop(server: ServerProcess, stop: threading.Event, tally: Tally, seed: int) -> None:
    rng = random.Random(seed)
    conn = Connection(server)
    try:
        while not stop.is_set():
            name = rng.choice(POOL)
            path = f"{CM_PATH}/{name}"
            roll = rng.random()
            if roll < 0.35:
                status, _, body = conn.request("GET", path)
                tally.add("get", status, body)
            elif roll < 0.45:
                status, _, body = conn.request("GET", CM_PATH)
                tally.add("list", status, body)
            elif roll < 0.60:
                doc = {"metadata": {"name": name, "labels": {"soak": "yes"}}, "data": {"n": "0"}}
                status, _, body = conn.request("POST", CM_PATH, orjson.dumps(doc))
                tally.add("create", status, body)
            elif roll < 0.85:
                status, _, body = conn.request("GET", path)
                tally.add("get", status, body)
                if status == 200:
                    current = orjson.loads(body)
                    current["data"] = {"n": str(int(current.get("data", {}).get("n", "0")) + 1),
                                       "pad": "x" * rng.randint(0, 2000)}
                    status, _, body = conn.request("PUT", path, orjson.dumps(current))
                    tally.add("update", status, body)
            elif roll < 0.95:
                patch = {"data": {"patched": str(rng.random())}}
                status, _, body = conn.request("PATCH", path, orjson.dumps(patch),
                                               {"Content-Type": "application/merge-patch+json"})
                tally.add("patch", status, body)
            else:
                status, _, body = conn.request("DELETE", path)
                tally.add("delete", status, body)
    finally:
        conn.close()


@dataclass
class Watcher:
    """Follows the namespace's ConfigMaps by list + watch, until it has seen the marker."""

    server: ServerProcess
    tally: Tally
    seed: int
    state: dict[str, str] = field(default_factory=dict)  # name -> resourceVersion
    relists: int = 0
    resumes: int = 0
    events: int = 0
    saw_marker: bool = False
    error: str = ""

    def run(self, give_up: float) -> None:
        try:
            rv = self._list()
            while not self.saw_marker and time.monotonic() < give_up:
                rv = self._watch(rv)
        except Exception as exc:  # the report names the watcher that broke and why
            self.error = f"{type(exc).__name__}: {exc}"

    def _list(self) -> str:
        conn = Connection(self.server)
        status, _, body = conn.request("GET", CM_PATH)
        conn.close()
        self.tally.add("watcher-list", status, body)
        listing = orjson.loads(body)
        self.state = versions(listing)
        self.relists += 1
        return str(listing["metadata"]["resourceVersion"])

    def _watch(self, rv: str) -> str:
        timeout = random.Random(self.seed + self.resumes).randint(5, 30)
        conn = http.client.HTTPSConnection("127.0.0.1", self.server.port, timeout=60,
                                           context=self.server.ssl_context())
        try:
            conn.request("GET", f"{CM_PATH}?watch=1&resourceVersion={rv}&timeoutSeconds={timeout}",
                         headers={"Authorization": f"Bearer {self.server.token}"})
            resp = conn.getresponse()
            if resp.status != 200:
                body = resp.read()
                self.tally.add("watch", resp.status, body)
                if resp.status == 429:
                    time.sleep(1)
                    return rv
                raise RuntimeError(f"watch answered {resp.status}: {body[:200]!r}")
            self.tally.add("watch", 200, b"")
            while line := resp.readline():
                event = orjson.loads(line)
                obj = event["object"]
                if event["type"] == "ERROR":
                    if obj.get("code") == 410:
                        return self._list()
                    raise RuntimeError(f"watch error event: {obj}")
                name, rv = obj["metadata"]["name"], obj["metadata"]["resourceVersion"]
                self.events += 1
                if event["type"] == "DELETED":
                    self.state.pop(name, None)
                else:
                    self.state[name] = rv
                if name == MARKER:
                    self.saw_marker = True
                    return rv
            self.resumes += 1
            return rv
        finally:
            conn.close()


def versions(listing: dict[str, Any]) -> dict[str, str]:
    return {item["metadata"]["name"]: item["metadata"]["resourceVersion"] for item in listing["items"]}


def rss(pid: int) -> int:
    return int(psutil.Process(pid).memory_info().rss)


def run(seconds: float, clients: int, watchers: int, history_size: int, data_dir: str,
        server_args: list[str]) -> dict[str, Any]:
    server = ServerProcess(data_dir, extra_args=["--history-size", str(history_size), *server_args])
    server.start()
    try:
        assert server.proc is not None
        pid = server.proc.pid
        setup = Connection(server)
        assert setup.json("POST", "/api/v1/namespaces", {"metadata": {"name": NAMESPACE}})[0] == 201
        for name in POOL[:100]:
            setup.json("POST", CM_PATH, {"metadata": {"name": name}, "data": {"n": "0"}})
        tally = Tally()
        followers = [Watcher(server, tally, seed) for seed in range(watchers)]
        stop = threading.Event()
        started = time.monotonic()
        give_up = started + seconds + 120
        watcher_threads = [threading.Thread(target=w.run, args=(give_up,), daemon=True) for w in followers]
        client_threads = [threading.Thread(target=client_loop, args=(server, stop, tally, seed), daemon=True)
                          for seed in range(clients)]
        for t in watcher_threads + client_threads:
            t.start()
        memory: list[tuple[float, int]] = []
        while time.monotonic() - started < seconds:
            memory.append((round(time.monotonic() - started, 1), rss(pid)))
            if len(memory) % PROGRESS_EVERY == 0:
                # A long run that is cut short still leaves its memory curve in the log.
                print(f"{memory[-1][0]:.0f} s: rss {memory[-1][1] / 2**20:.1f} MiB", file=sys.stderr, flush=True)
            time.sleep(1)
        stop.set()
        for t in client_threads:
            t.join()
        writing_done = time.monotonic()
        memory.append((round(writing_done - started, 1), rss(pid)))
        assert setup.json("POST", CM_PATH, {"metadata": {"name": MARKER}})[0] == 201
        for t in watcher_threads:
            t.join(max(0.0, give_up - time.monotonic()))
        status, final = setup.json("GET", CM_PATH)
        assert status == 200
        expected = versions(final)
        inconsistent = [w for w in followers if w.error or not w.saw_marker or w.state != expected]
        half = [m for t, m in memory if t >= seconds / 2]
        at_ten = [m for t, m in memory if SETTLED_AFTER_S <= t < SETTLED_AFTER_S + SAMPLE_WINDOW_S]
        at_end = [m for t, m in memory if t >= memory[-1][0] - SAMPLE_WINDOW_S]
        growth = (half[-1] - half[0]) / half[0] if len(half) > 1 else 0.0
        return {
            "seconds": seconds, "clients": clients, "watchers": watchers,
            "requests": sum(tally.statuses.values()),
            "requests_per_second": round(sum(tally.operations.values()) / (writing_done - started)),
            "operations": dict(tally.operations), "statuses": dict(sorted(tally.statuses.items())),
            "server_errors": len(tally.server_errors), "first_server_errors": tally.server_errors[:5],
            "final_objects": len(expected),
            "watch_events": sum(w.events for w in followers),
            "watch_resumes": sum(w.resumes for w in followers),
            "watch_relists": sum(w.relists - 1 for w in followers),
            "watchers_consistent": watchers - len(inconsistent),
            "watcher_problems": [w.error or ("no marker" if not w.saw_marker else "state differs")
                                 for w in inconsistent][:5],
            "rss_mib_start": round(memory[0][1] / 2**20, 1),
            "rss_mib_middle": round(half[0] / 2**20, 1) if half else None,
            "rss_mib_end": round(memory[-1][1] / 2**20, 1),
            "rss_growth_second_half": round(growth, 4),
            "rss_mib_at_10_minutes": round(statistics.median(at_ten) / 2**20, 1) if at_ten else None,
            "rss_mib_last_minute": round(statistics.median(at_end) / 2**20, 1),
            "rss_growth_from_10_minutes_percent":
                round(100 * (statistics.median(at_end) - statistics.median(at_ten)) / statistics.median(at_ten), 2)
                if at_ten else None,
            "rss_mib_every_10s": [round(m / 2**20, 1) for t, m in memory if int(t) % 10 == 0],
            "server_log_tracebacks": server.log().count("Traceback"),
        }
    finally:
        server.stop()


def failures(report: dict[str, Any]) -> list[str]:
    problems = []
    if report["server_errors"]:
        problems.append(f"{report['server_errors']} answers were 5xx")
    if report["watchers_consistent"] != report["watchers"]:
        wrong = report["watchers"] - report["watchers_consistent"]
        problems.append(f"{wrong} watchers disagree with the final list")
    if report["seconds"] > SETTLED_AFTER_S:
        growth = report["rss_growth_from_10_minutes_percent"] / 100
        if growth > SETTLED_TOLERANCE:
            problems.append(f"resident memory ended {growth:.1%} above its {report['rss_mib_at_10_minutes']} MiB "
                            f"at {SETTLED_AFTER_S / 60:g} minutes (at most {SETTLED_TOLERANCE:.0%})")
    elif report["rss_growth_second_half"] > SECOND_HALF_TOLERANCE:
        problems.append(f"resident memory grew {report['rss_growth_second_half']:.1%} across the second half "
                        f"(at most {SECOND_HALF_TOLERANCE:.0%})")
    if report["server_log_tracebacks"]:
        problems.append("the server logged tracebacks")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benches.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--watchers", type=int, default=100)
    parser.add_argument("--history-size", type=int, default=2_000,
                        help="the server's --history-size: small, so that the changes it keeps for watches "
                             "to resume from fill up early and any later growth is a leak")
    parser.add_argument("--data-dir", help="where the server keeps its store (default: a new temporary dir)")
    parser.add_argument("--event-loop", choices=EVENT_LOOPS,
                        help="the server's --event-loop (default: the server's own default)")
    parser.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                        help="one more argument for the server, e.g. --server-arg=--watch-queue-limit=500; repeatable")
    args = parser.parse_args()
    server_args = [*(["--event-loop", args.event_loop] if args.event_loop else []), *args.server_arg]
    report = run(args.seconds, args.clients, args.watchers, args.history_size,
                 args.data_dir or tempfile.mkdtemp(prefix="soak-"), server_args)
    print(json.dumps(report, indent=2))
    problems = failures(report)
    for problem in problems:
        print(f"FAIL: {problem}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
