"""Time to ready under envtest's exact arguments: `fastkube-kube-apiserver` beside kube-apiserver.

    python3 -m benches.envtest_ready [--rounds 5] [--reference ~/k8s-ref/bin/kube-apiserver]

Each round does what controller-runtime's envtest does before a test suite: a fresh etcd (Debian's,
started before the clock runs), a fresh cert dir, the server started with envtest's argument list, and
`/healthz` polled every 100 ms without verifying the certificate until it answers 200 (envtest's
readiness), and the CPU seconds the server process had spent by then (which the machine's load does
not stretch); `/readyz` is timed too, and the first write by envtest's admin client certificate (a
Namespace, as a suite's first step would). The two servers take turns, so the machine's load falls on
both alike. Without the reference binary its side is skipped and no ratio is given. Prints a JSON
report: per server, the seconds of each round and their median; ratios are reference over ours
(above 1: ours is ready sooner). `fastkube-embedded` is ours with the same arguments but
`--etcd-servers`: its embedded store, the start a pytest plugin's session pays.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from typing import Any

import psutil

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))

import envtest_assets
from support import REPO, EtcdCluster, free_port

OURS = [sys.executable, "-m", "apiserver.kube_apiserver"]
DEFAULT_REFERENCE = os.path.expanduser("~/k8s-ref/bin/kube-apiserver")
POLL_SECONDS = 0.1  # envtest's HealthCheck poll interval
TIMEOUT_SECONDS = 120.0


def _status(url: str, context: ssl.SSLContext, body: bytes | None = None) -> int:
    request = urllib.request.Request(url, data=body, method="POST" if body else "GET",
                                     headers={"Content-Type": "application/json"} if body else {})
    try:
        with urllib.request.urlopen(request, context=context, timeout=2) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as err:
        return int(err.code)
    except OSError:
        return 0


def _unverified() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def one_round(command: list[str], workdir: str, embedded: bool = False) -> dict[str, float]:
    """Seconds from the server's start to /healthz 200, to /readyz 200, and to a first Namespace created.

    `embedded`: envtest's arguments but `--etcd-servers`, so ours serves from its embedded store (as
    the pytest plugin's server does); etcd is started all the same, so the machine carries the same load."""
    etcd = EtcdCluster(os.path.join(workdir, "etcd")).start()
    env = envtest_assets.prepare(os.path.join(workdir, "certs"))
    port = free_port()
    url = f"https://127.0.0.1:{port}"
    admin = ssl.create_default_context(cafile=env.serving_ca)
    admin.load_cert_chain(env.admin_cert, env.admin_key)
    marks: dict[str, float] = {}
    with open(os.path.join(workdir, "server.log"), "wb") as log:
        start = time.monotonic()
        arguments = [a for a in envtest_assets.arguments(env.cert_dir, etcd.servers, port)
                     if not (embedded and a.startswith("--etcd-servers="))]
        proc = subprocess.Popen([*command, *arguments], cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    try:
        probes = [("healthz", lambda: _status(url + "/healthz", _unverified()) == 200),
                  ("readyz", lambda: _status(url + "/readyz", admin) == 200),
                  ("first_write", lambda: _status(url + "/api/v1/namespaces", admin,
                                                  b'{"metadata":{"name":"suite"}}') == 201)]
        for name, probe in probes:
            while not probe():
                if proc.poll() is not None or time.monotonic() - start > TIMEOUT_SECONDS:
                    raise RuntimeError(f"{command[0]} was not {name} (see {workdir}/server.log)")
                time.sleep(POLL_SECONDS)
            marks[name] = time.monotonic() - start
            if name == "healthz":
                # CPU the server spent to get there: what the machine's load does not stretch
                cpu = psutil.Process(proc.pid).cpu_times()
                marks["healthz_cpu"] = cpu.user + cpu.system
    finally:
        proc.terminate()
        proc.wait(30)
        etcd.stop()
    return marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reference", default=DEFAULT_REFERENCE, help="a kube-apiserver binary")
    args = parser.parse_args()
    sides = {"fastkube": OURS, "fastkube-embedded": OURS}
    if os.access(args.reference, os.X_OK):
        sides["kube-apiserver"] = [args.reference]
    else:
        print(f"no reference at {args.reference}: measuring fastkube alone", file=sys.stderr)
    rounds: dict[str, list[dict[str, float]]] = {side: [] for side in sides}
    for _ in range(args.rounds):
        for side, command in sides.items():
            workdir = tempfile.mkdtemp(prefix=f"envtest-ready-{side}-")
            rounds[side].append(one_round(command, workdir, embedded=side == "fastkube-embedded"))
            shutil.rmtree(workdir, ignore_errors=True)
    report: dict[str, Any] = {"rounds": args.rounds, "poll_seconds": POLL_SECONDS, "servers": {}}
    for side, marks in rounds.items():
        report["servers"][side] = {mark: {"seconds": [round(m[mark], 3) for m in marks],
                                          "median": round(statistics.median(m[mark] for m in marks), 3)}
                                   for mark in marks[0]}
    if "kube-apiserver" in sides:
        ours, ref = report["servers"]["fastkube"], report["servers"]["kube-apiserver"]
        report["reference_over_ours"] = {mark: round(ref[mark]["median"] / ours[mark]["median"], 2)
                                         for mark in ours}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
