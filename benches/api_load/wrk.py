"""Driving one scenario with wrk (2 threads, 32 keep-alive connections) and reading its figures back.

Writes need a body per request: a small Lua script builds it. Created names carry the run's prefix,
the wrk thread and a counter, so no two requests of any run ever ask for the same name (a 409 is then
a server fault, and counted as one).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import NotRequired, TypedDict

_UNIT_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}
_UNIT_BYTES = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}


class RunFigures(TypedDict):
    rps: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    # From the Lua script's `done`, so only for the write scenarios: wrk's --latency stops at 99%.
    p999_ms: NotRequired[float]
    requests: int
    failed: int  # non-2xx answers, socket errors and timeouts
    bytes_per_response: float  # headers included: a check that the load got the answer that was checked
    loadavg: float
    # The server's CPU time (all its processes) over the run, per request answered: unlike requests/s,
    # barely moved by other work on the machine. Absent for a server this process did not start.
    server_cpu_us: NotRequired[float]


@dataclass(frozen=True)
class Load:
    threads: int = 2
    connections: int = 32
    duration_s: float = 10.0
    timeout_s: float = 10.0


def require_wrk() -> str:
    found = shutil.which("wrk")
    if found is None:
        raise SystemExit("wrk not found: apt-get install -y wrk (see benches/README.md)")
    return found


def _ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text.strip())
    if match is None:
        raise ValueError(f"not a wrk duration: {text!r}")
    return float(match.group(1)) * _UNIT_MS[match.group(2)]


def parse(output: str) -> RunFigures:
    """wrk's --latency report: requests/s, the latency distribution, and every kind of failure."""
    rps = re.search(r"Requests/sec:\s+([\d.]+)", output)
    total = re.search(r"(\d+) requests in [^,]+, ([\d.]+)([KMG]?B) read", output)
    if rps is None or total is None:
        raise RuntimeError(f"wrk gave no figures:\n{output}")
    percentiles = {p: _ms(m.group(1)) for p in ("50", "90", "99")
                   if (m := re.search(rf"^\s+{p}(?:\.000)?%\s+(\S+)", output, re.MULTILINE))}
    p999 = re.search(r"^p99\.9 (\d+)$", output, re.MULTILINE)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    sockets = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    failed = (int(non2xx.group(1)) if non2xx else 0) + (sum(int(g) for g in sockets.groups()) if sockets else 0)
    figures = RunFigures(rps=float(rps.group(1)), p50_ms=percentiles.get("50", 0.0),
                         p90_ms=percentiles.get("90", 0.0), p99_ms=percentiles.get("99", 0.0),
                         requests=int(total.group(1)), failed=failed,
                         bytes_per_response=float(total.group(2)) * _UNIT_BYTES[total.group(3)]
                         / max(int(total.group(1)), 1),
                         loadavg=os.getloadavg()[0])
    if p999 is not None:
        figures["p999_ms"] = int(p999.group(1)) / 1000
    return figures


def run(url: str, headers: dict[str, str], load: Load, script: str | None = None) -> RunFigures:
    cmd = [require_wrk(), f"-t{load.threads}", f"-c{load.connections}", f"-d{load.duration_s:g}s", "--latency",
           "--timeout", f"{load.timeout_s:g}s"]
    for name, value in headers.items():
        cmd += ["-H", f"{name}: {value}"]
    if script is not None:
        cmd += ["-s", script]
    done = subprocess.run(cmd + [url], check=False, capture_output=True, text=True, timeout=load.duration_s + 60)
    if done.returncode != 0:
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr}")
    return parse(done.stdout)


def _lua_string(text: str) -> str:
    level = "=" * 4
    assert f"]{level}]" not in text
    return f"[{level}[{text}]{level}]"


NAME = "@@NAME@@"


def write_script(path: str, method: str, request_path: str, content_type: str, body_before: str,
                 body_after: str, unique_prefix: str, target_prefix: str | None = None, targets: int = 0,
                 query: str = "") -> str:
    """A script whose every request carries `body_before + UNIQUE + body_after`, UNIQUE new each time.

    UNIQUE is `unique_prefix-thread-counter`. Without `target_prefix` every request goes to
    `request_path` (creates); with it, to `request_path/target_prefix-K` for K cycling through
    0..targets-1 (patches, updates and applies of seeded objects), and NAME in `body_before` becomes
    that object's name (a full object's metadata.name must match the path's). `query` follows the path.
    The script prints the 99.9th percentile of latency (µs) when the run ends, which `parse` reads.
    """
    script = f"""
local before, after, prefix = {_lua_string(body_before)}, {_lua_string(body_after)}, {_lua_string(unique_prefix)}
local base, target, targets = {_lua_string(request_path)}, {_lua_string(target_prefix or "")}, {targets}
local counter, threads = 0, 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
function request()
  counter = counter + 1
  local path, head = base, before
  if targets > 0 then
    local name = string.format("%s-%06d", target, (counter * 2 + tid) % targets)
    path = base .. "/" .. name
    head = string.gsub(before, "{NAME}", name)
  end
  wrk.headers["Content-Type"] = "{content_type}"
  return wrk.format("{method}", path .. {_lua_string(query)}, nil, head .. prefix .. "-" .. tid .. "-" .. counter .. after)
end
function done(summary, latency, requests)
  io.write(string.format("p99.9 %d\\n", latency:percentile(99.9)))
end
"""
    with open(path, "w") as f:
        f.write(script)
    return path
