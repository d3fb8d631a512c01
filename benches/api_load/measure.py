"""Measurements: seed, check every read's answer and write each write once, then load each scenario and
its floor in turn.

Each scenario runs `runs` times, each run followed by its floor run, so that a ratio to the floor
compares two loads that met the same machine; several servers take turns run by run in the same way.
A figure is the median of its runs. Write scenarios name their
objects `<run id>-<scenario>-r<run>-<wrk thread>-<counter>`: unique across runs and across measurements.
"""

from __future__ import annotations

import json
import os
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
import psutil

from apiserver.server import DEFAULT_EVENT_LOOP
from benches import objects
from benches.api_load import controllers, schedule, watch, wrk
from benches.api_load import scenarios as sc
from benches.api_load.client import MERGE_PATCH, Client, seed_configmaps, seed_pods
from benches.api_load.servers import FLOOR_APP, WRITE_FLOOR_APP, Floor, Target, floor_credentials, free_port

_MARKER = "@@UNIQUE@@"
_WRITES = frozenset({"create", "patch", "update", "apply"})
APPLY_PATCH = "application/apply-patch+yaml"
_SAMPLE_TARGET = "patch-target-000000"  # the seeded object a patch, update or apply is sampled on


@dataclass
class Options:
    scenarios: list[str]
    count: int = 1_000
    runs: int = 3
    load: wrk.Load = field(default_factory=wrk.Load)
    floor: bool = True
    work_dir: str = "."
    label: str = ""
    event_loop: str = DEFAULT_EVENT_LOOP  # the floor's, the same as the server's
    run_id: str = field(default_factory=lambda: f"b{int(time.time() * 1000) % 10**9:09d}")


class MemorySampler:
    """The server's resident memory at rest and its peak while loaded, from /proc through psutil."""

    def __init__(self, pid: int | None) -> None:
        self._process = psutil.Process(pid) if pid is not None else None
        self.at_rest_kb = self._rss_kb()
        self.peak_kb = self.at_rest_kb
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _rss_kb(self) -> int:
        return 0 if self._process is None else int(self._process.memory_info().rss // 1024)

    def _sample(self) -> None:
        while not self._stop.wait(0.5):
            self.peak_kb = max(self.peak_kb, self._rss_kb())

    def start(self) -> None:
        if self._process is not None:
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()


class CpuMeter:
    """The CPU time a server's processes (a supervisor and its workers, if any) have used, from /proc through psutil."""

    def __init__(self, pid: int | None) -> None:
        self._process = psutil.Process(pid) if pid is not None else None

    def seconds(self) -> float | None:
        if self._process is None:
            return None
        total = 0.0
        for process in (self._process, *self._process.children(recursive=True)):
            try:
                times = process.cpu_times()
            except psutil.NoSuchProcess:
                continue
            total += times.user + times.system
        return total

    def measure(self, run: Callable[[], wrk.RunFigures]) -> wrk.RunFigures:
        """`run`'s figures, with the server's CPU µs per request answered over it."""
        before = self.seconds()
        figures = run()
        after = self.seconds()
        if before is not None and after is not None and figures["requests"] > 0:
            figures["server_cpu_us"] = (after - before) * 1e6 / figures["requests"]
        return figures


def overload_warning() -> str | None:
    """Set when other work is taking the cores the figures depend on: a load average above half the CPUs.

    Only meaningful before a measurement starts: the load average of the minute after a run includes
    the run's own server and wrk.
    """
    load = os.getloadavg()[0]
    cpus = os.cpu_count() or 1
    if load <= cpus / 2:
        return None
    return f"load average {load:.2f} above half of {cpus} CPUs before the measurement: figures are noisy"


def medians(runs: list[wrk.RunFigures]) -> dict[str, float]:
    out = {"rps": statistics.median(r["rps"] for r in runs),
           "p50_ms": statistics.median(r["p50_ms"] for r in runs),
           "p90_ms": statistics.median(r["p90_ms"] for r in runs),
           "p99_ms": statistics.median(r["p99_ms"] for r in runs)}
    tails = [r["p999_ms"] for r in runs if "p999_ms" in r]
    if len(tails) == len(runs):
        out["p999_ms"] = statistics.median(tails)
    cpu = [r["server_cpu_us"] for r in runs if "server_cpu_us" in r]
    if len(cpu) == len(runs):
        out["server_cpu_us"] = statistics.median(cpu)
    return out


def _answered(body: bytes) -> tuple[str, int]:
    """The kind an answer declares and how many items (or rows) it holds."""
    doc = orjson.loads(body)
    if "items" in doc:
        return str(doc.get("kind", "")), len(doc["items"] or [])
    if "rows" in doc:
        return str(doc.get("kind", "")), len(doc["rows"] or [])
    return str(doc.get("kind", "")), 1


def _prefix(s: sc.Scenario, options: Options, run: int) -> str:
    """Names of the objects one run creates start with this (a DNS label: no underscores)."""
    return f"{options.run_id}-{s.name.replace('_', '-')}-r{run}"


def _script(s: sc.Scenario, options: Options, run: int, targets: int, path: str | None = None) -> str:
    """The Lua script of a write run: its requests go to `path` (the floor's) or the scenario's own."""
    prefix = _prefix(s, options, run)
    os.makedirs(options.work_dir, exist_ok=True)  # a server measured by --url has no data directory made there
    base = s.path if path is None else path
    script = os.path.join(options.work_dir, f"{s.name}{'' if path is None else '-floor'}.lua")
    if s.driver == "create":
        before, after = orjson.dumps(objects.configmap(sc.WRITE_NAMESPACE, _MARKER, 1)).decode().split(_MARKER)
        return wrk.write_script(script, "POST", base, "application/json", before, after, prefix, query=s.query)
    if s.driver == "update":
        whole = objects.configmap(sc.WRITE_NAMESPACE, wrk.NAME, 1)
        whole["data"]["mode"] = _MARKER
        before, after = orjson.dumps(whole).decode().split(_MARKER)
        return wrk.write_script(script, "PUT", base, "application/json", before, after, prefix, "patch-target",
                                targets)
    if s.driver == "apply":
        before, after = orjson.dumps(_applied(wrk.NAME, _MARKER)).decode().split(_MARKER)
        return wrk.write_script(script, "PATCH", base, APPLY_PATCH, before, after, prefix, "patch-target", targets,
                                s.query)
    before, after = json.dumps({"data": {"mode": _MARKER}}).split(_MARKER)
    return wrk.write_script(script, "PATCH", base, MERGE_PATCH, before, after, prefix, "patch-target", targets)


def _applied(name: str, mode: str) -> dict[str, Any]:
    """The configuration a server-side apply run sends."""
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"mode": mode}}


class Measurement:
    def __init__(self, target: Target, options: Options, warnings: list[str]) -> None:
        self.target = target
        self.options = options
        self.client = Client(target)
        self.warnings = warnings
        self.headers = {"Authorization": f"Bearer {target.token}"}
        self._floors: list[Floor] = []
        self.entries: dict[str, dict[str, Any]] = {}
        self.selected: list[sc.Scenario] = []
        self.floor_urls: dict[str, str] = {}
        self.floor_meters: dict[str, CpuMeter] = {}  # scenario -> its floor process's CPU
        self.memory = MemorySampler(None)
        self.cpu = CpuMeter(None)

    def seed(self) -> None:
        names = set(self.options.scenarios)
        for namespace in (sc.READ_NAMESPACE, sc.WRITE_NAMESPACE, sc.WATCH_NAMESPACE, sc.SCHEDULE_NAMESPACE):
            self.client.ensure_namespace(namespace)
        seed_configmaps(self.client, sc.READ_NAMESPACE, self.options.count)
        if any(n.endswith("_pods") for n in names):
            seed_pods(self.client, sc.READ_NAMESPACE, self.options.count)
        if names & set(sc.TARGETED):
            seed_configmaps(self.client, sc.WRITE_NAMESPACE, sc.PATCH_TARGETS, prefix="patch-target")

    def check(self, s: sc.Scenario) -> dict[str, Any]:
        """One request of a read scenario: is the answer what the scenario means to measure?"""
        answer = self.client.call("GET", s.path, accept=s.accept)
        entry: dict[str, Any] = {"path": s.path, "accept": s.accept, "http_status": answer.status,
                                 "content_type": answer.content_type, "response_bytes": len(answer.body),
                                 "notes": []}
        if answer.status != 200:
            entry["notes"].append(f"not answered: HTTP {answer.status}")
            return entry
        kind, items = _answered(answer.body)
        entry.update(kind=kind, items=items)
        expected_items = s.items_for(self.options.count)
        if s.expected_kind and kind != s.expected_kind:
            entry["notes"].append(f"answered as {kind}, not {s.expected_kind}: not like for like")
        if expected_items is not None and items != expected_items:
            entry["notes"].append(f"answered {items} items, not {expected_items}: not like for like")
        entry["body"] = answer.body
        return entry

    def sample_write(self, s: sc.Scenario) -> dict[str, Any]:
        """One write of a write scenario, outside its runs: the answer its floor gives back byte for byte."""
        target = f"{s.path}/{_SAMPLE_TARGET}"
        if s.driver == "create":
            answer = self.client.call("POST", s.path + s.query,
                                      objects.configmap(sc.WRITE_NAMESPACE, _prefix(s, self.options, 0) + "-sample", 1))
        elif s.driver == "update":
            current = self.client.call("GET", target)
            whole = orjson.loads(current.body) if current.status == 200 else {}
            whole.setdefault("data", {})["mode"] = f"{self.options.run_id}-sample"
            answer = self.client.call("PUT", target, whole)
        elif s.driver == "apply":
            answer = self.client.call("PATCH", target + s.query, _applied(_SAMPLE_TARGET, "sample"),
                                      content_type=APPLY_PATCH)
        else:
            answer = self.client.call("PATCH", target, {"data": {"mode": f"{self.options.run_id}-sample"}},
                                      content_type=MERGE_PATCH)
        entry: dict[str, Any] = {"path": s.path, "notes": []}
        if answer.status not in (200, 201):
            entry["notes"].append(f"a sample write was answered HTTP {answer.status}: no floor")
            return entry
        entry["body"] = answer.body
        entry["floor_answer"] = {"status": answer.status, "bytes": len(answer.body),
                                 "kind": str(orjson.loads(answer.body).get("kind", ""))}
        return entry

    def _load_once(self, s: sc.Scenario, run: int) -> wrk.RunFigures:
        if s.driver == "watch":
            revision = self.client.revision(s.path)
            duration = self.options.load.duration_s
            return watch.measure(self.target, sc.WATCH_NAMESPACE, revision, _prefix(s, self.options, run),
                                 s.watchers, duration)
        if s.driver == "schedule":
            return schedule.measure(self.target, sc.SCHEDULE_NAMESPACE, self.client.revision(s.path),
                                    _prefix(s, self.options, run), sc.SCHEDULE_REPLICAS)
        script = None if s.driver == "wrk" else _script(s, self.options, run, sc.PATCH_TARGETS)
        return wrk.run(self.target.url + s.path, {**self.headers, "Accept": s.accept}, self.options.load, script)

    def prepare(self) -> None:
        """Seeds, checks each read once, writes each write once, and starts the floors with the bytes
        these got."""
        self.seed()
        self.selected = [sc.BY_NAME[n] for n in self.options.scenarios]
        for s in self.selected:
            if s.driver == "wrk":
                self.entries[s.name] = self.check(s)
            elif s.driver in _WRITES and s.floor and self.options.floor:
                self.entries[s.name] = self.sample_write(s)
            else:
                self.entries[s.name] = {"path": s.path, "notes": []}
            skipped = schedule.not_applicable(self.client) if s.driver == "schedule" else None
            if skipped is not None:
                self.entries[s.name]["skipped"] = skipped
        self.floor_urls = self._start_floor()
        self.memory = MemorySampler(self.target.pid)
        self.memory.start()
        self.cpu = CpuMeter(self.target.pid)

    def run_once(self, s: sc.Scenario, run: int) -> None:
        """Run `run` of scenario `s`, then of its floor; the medians are taken in `finish`."""
        entry = self.entries[s.name]
        if entry.get("http_status", 200) != 200 or "skipped" in entry:
            return  # not answered, or not applicable: nothing to load; compare.py reports either one that a branch lost
        before = controllers.backlog(self.client) if s.driver in _WRITES else None
        entry.setdefault("runs", []).append(self.cpu.measure(lambda: self._load_once(s, run)))
        if before is not None:
            caught_up = controllers.drain(self.client, before[1])
            if caught_up is not None:
                entry.setdefault("controller_runs", []).append(caught_up)
        floor_url = self.floor_urls.get(s.name)
        if floor_url is not None:
            # A write's floor gets the run's own requests, sent to the floor's path for it.
            script = None if s.driver == "wrk" else _script(s, self.options, run, sc.PATCH_TARGETS, f"/{s.name}")
            entry.setdefault("floor", {"runs": []})["runs"].append(self.floor_meters[s.name].measure(
                lambda: wrk.run(floor_url, {**self.headers, "Accept": s.accept}, self.options.load, script)))

    def finish(self) -> dict[str, Any]:
        self.memory.stop()
        for s in self.selected:
            self._summarize(s, self.entries[s.name])
        return {"label": "", "url": self.target.url, "when_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "run_id": self.options.run_id,
                "host": {"nproc": os.cpu_count(), "loadavg_at_end": list(os.getloadavg())},
                "load": {"threads": self.options.load.threads, "connections": self.options.load.connections,
                         "duration_s": self.options.load.duration_s, "runs": self.options.runs,
                         "objects": self.options.count, "event_loop": self.options.event_loop},
                "server_rss_kb": {"at_rest": self.memory.at_rest_kb, "peak": self.memory.peak_kb},
                "warnings": self.warnings, "baseline_ok": not self.warnings,
                "scenarios": self.entries}

    def close(self) -> None:
        for floor in self._floors:
            floor.stop()

    def _start_floor(self) -> dict[str, str]:
        """The read floor and the write floor, each where a selected scenario has one: scenario -> URL."""
        floored = [s for s in self.selected if s.floor and "body" in self.entries[s.name]]
        if not self.options.floor or not floored:
            return {}
        cert, key = floor_credentials(os.path.join(self.options.work_dir, "floor-pki"))
        urls = {}
        for kind, app in (("reads", FLOOR_APP), ("writes", WRITE_FLOOR_APP)):
            served = [s for s in floored if (s.driver == "wrk") == (kind == "reads")]
            if not served:
                continue
            body_dir = os.path.join(self.options.work_dir, f"floor-{kind}")
            os.makedirs(body_dir, exist_ok=True)
            for s in served:
                entry = self.entries[s.name]
                with open(os.path.join(body_dir, f"{s.name}.body"), "wb") as f:
                    f.write(entry["body"])
                if "floor_answer" in entry:  # a write's status; the read floor answers 200
                    with open(os.path.join(body_dir, f"{s.name}.status"), "w") as f:
                        f.write(str(entry["floor_answer"]["status"]))
            floor = Floor(body_dir, cert, key, free_port(), self.options.event_loop, app)
            url = floor.start()
            self._floors.append(floor)
            meter = CpuMeter(None if floor.proc is None else floor.proc.pid)
            for s in served:
                urls[s.name] = f"{url}/{s.name}"
                self.floor_meters[s.name] = meter
        return urls

    def _summarize(self, s: sc.Scenario, entry: dict[str, Any]) -> None:
        entry.pop("body", None)
        runs: list[wrk.RunFigures] = entry.get("runs", [])
        if not runs:
            return
        entry["median"] = medians(runs)
        entry["failed"] = sum(r["failed"] for r in runs)
        if entry.get("controller_runs"):
            entry["controllers"] = controllers.summary(entry["controller_runs"])
        loaded = statistics.median(r["bytes_per_response"] for r in runs)
        if s.driver == "schedule":
            entry["pods"] = sc.SCHEDULE_REPLICAS
        elif s.driver == "watch":
            entry["response_bytes"] = int(loaded)
            entry["watchers"] = s.watchers
        elif "response_bytes" in entry and abs(loaded - entry["response_bytes"]) > 512 + 0.1 * entry["response_bytes"]:
            # wrk counts headers too (a few hundred bytes), and a Table's Age cells grow during a run
            # ("9s" to "2m10s"); more than that means another answer than the one checked
            entry["notes"].append(f"under load answered {loaded:,.0f} bytes per response, "
                                  f"not the checked {entry['response_bytes']:,}")
        if "floor" in entry:
            entry["floor"]["median"] = medians(entry["floor"]["runs"])
            entry["ratio_to_floor"] = entry["median"]["rps"] / max(entry["floor"]["median"]["rps"], 1e-9)
            ours_cpu, floor_cpu = entry["median"].get("server_cpu_us"), entry["floor"]["median"].get("server_cpu_us")
            if ours_cpu and floor_cpu:
                # The floor's CPU per request over ours: what ours / floor in requests/s would be where each
                # server had a core of its own, on a machine nothing else loads.
                entry["cpu_ratio_to_floor"] = floor_cpu / ours_cpu


def measure_interleaved(measurements: list[Measurement], runs: int) -> list[dict[str, Any]]:
    """Every scenario's runs, taking turns between the servers (ABBA...) so that a drift of the
    machine's load between two runs falls on both alike; the results, in the order given."""
    try:
        for m in measurements:
            m.prepare()
        for s in measurements[0].selected:
            for run in range(1, runs + 1):
                for m in (measurements if run % 2 else measurements[::-1]):
                    m.run_once(s, run)
            for m in measurements:
                e = m.entries[s.name]
                if "skipped" in e:
                    print(f"   {s.name} [{m.options.label}]: skipped: {e['skipped']}", flush=True)
                if e.get("runs"):
                    rps = statistics.median(r["rps"] for r in e["runs"])
                    p99 = statistics.median(r["p99_ms"] for r in e["runs"])
                    tails = [r["p999_ms"] for r in e["runs"] if "p999_ms" in r]
                    p999 = f", p99.9 {statistics.median(tails):.1f} ms" if tails else ""
                    print(f"   {s.name} [{m.options.label}]: {rps:.1f} ops/s, p99 {p99:.1f} ms{p999}, "
                          f"{sum(r['failed'] for r in e['runs'])} failed", flush=True)
        return [m.finish() for m in measurements]
    finally:
        for m in measurements:
            m.close()
