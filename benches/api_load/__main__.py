"""`python -m benches.api_load`: measure our server (started here) or any Kubernetes API server (--url).

Writes OUT/results.json, OUT/results.md and OUT/results.png. See benches/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from typing import Any

from apiserver.server import DEFAULT_EVENT_LOOP, EVENT_LOOPS
from benches.api_load import report
from benches.api_load import scenarios as sc
from benches.api_load.measure import Measurement, Options, measure_interleaved, overload_warning
from benches.api_load.servers import REPO, LocalServer, Target, free_port, from_kubeconfig
from benches.api_load.wrk import Load, require_wrk

sys.path.insert(0, os.path.join(REPO, "tests"))
from support import EtcdCluster  # noqa: E402  (tests/support.py starts etcd for tests and benches alike)

QUICK_COUNT = 50
QUICK_DURATION_S = 1.0
BASELINE_REFUSED = 3  # the exit status when --save-baseline was asked for and refused (perf-compare.sh reads it)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benches.api_load", description=__doc__)
    where = p.add_argument_group("server (default: start `python -m apiserver` from --server-repo)")
    where.add_argument("--url", help="measure this server instead (with --token or --kubeconfig)")
    where.add_argument("--token", help="bearer token for --url")
    where.add_argument("--ca", help="CA file for --url (default: do not verify)")
    where.add_argument("--kubeconfig", help="take server, token and CA from this kubeconfig's current context")
    where.add_argument("--server-repo", action="append", metavar="[NAME=]DIR",
                       help="checkout whose server to start (default: this one); given several times, each "
                            "server is started and the runs take turns between them; results go to OUT/NAME/")
    p.add_argument("--store", default="embedded",
                   help="embedded, etcd (a private etcd is started: Debian's etcd-server) or both, comma separated")
    p.add_argument("--workers", default="1",
                   help="--workers of started etcd servers, comma separated (e.g. 1,2): with several stores or "
                        "worker counts, each is a server of its own and the runs take turns between them")
    p.add_argument("--scenarios", default=" ".join(s.name for s in sc.ALL),
                   help="space or comma separated, from: " + " ".join(sc.BY_NAME))
    p.add_argument("--http-server", choices=["uvicorn", "granian"], nargs="+", default=["uvicorn"],
                   help="the HTTP server our app runs behind when started here (granian: "
                        "benches/api_load/granian_app.py); given both, each server is started behind each, "
                        "the runs taking turns")
    p.add_argument("--event-loop", choices=EVENT_LOOPS,
                   help="the loop of the servers started here and of the floor, which must match for ours / floor "
                        f"to mean anything (default: the server's default, {DEFAULT_EVENT_LOOP}, not passed on)")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--duration", type=float, default=10.0, help="seconds per run")
    p.add_argument("--connections", type=int, default=32)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--count", type=int, default=1_000, help="ConfigMaps and Pods to seed")
    p.add_argument("--no-floor", action="store_true", help="skip the floor app runs")
    p.add_argument("--quick", action="store_true",
                   help=f"a few seconds: {QUICK_COUNT} objects, {QUICK_DURATION_S:g}s runs, no floor, "
                        f"scenarios {' '.join(sc.QUICK)} unless --scenarios is given")
    p.add_argument("--out", help="output directory (default: bench-results/api_load-<time>)")
    p.add_argument("--label", default="", help="free text stored in the results")
    p.add_argument("--save-baseline", metavar="PATH",
                   help="also copy results.json here, unless more than one server was measured or the machine "
                        f"was too loaded to trust it (then exit {BASELINE_REFUSED})")
    return p


def _target(args: argparse.Namespace) -> Target | None:
    if args.kubeconfig:
        return from_kubeconfig(args.kubeconfig)
    if args.url:
        if not args.token:
            raise SystemExit("--url needs --token (or use --kubeconfig)")
        return Target(args.url.rstrip("/"), args.token, args.ca)
    return None


def _servers(args: argparse.Namespace) -> list[tuple[str, str, tuple[str, ...], str]]:
    """(name, checkout, store flags, HTTP server) of each server to start; names default to the checkout's
    directory name, followed by the store and worker count, and the HTTP server, when more than one is measured."""
    stores = args.store.replace(",", " ").split()
    if not set(stores) <= {"embedded", "etcd"}:
        raise SystemExit(f"--store: embedded or etcd, not {args.store}")
    workers = [int(n) for n in args.workers.replace(",", " ").split()]
    variants = [("embedded", 1)] if "embedded" in stores else []
    variants += [("etcd", n) for n in workers] if "etcd" in stores else []
    out = []
    for spec in args.server_repo or [REPO]:
        name, _, path = spec.rpartition("=")
        name = name or os.path.basename(os.path.abspath(path))
        for store, count in variants:
            label = name if len(variants) == 1 else f"{name}-{store}" + (f"-w{count}" if store == "etcd" else "")
            flags = ("--workers", str(count)) if count > 1 else ()
            for http_server in args.http_server:
                out.append((label if len(args.http_server) == 1 else f"{label}-{http_server}", os.path.abspath(path),
                            ("--store-etcd",) + flags if store == "etcd" else flags, http_server))
    if len({name for name, *_ in out}) != len(out):
        raise SystemExit("--server-repo: give each server a distinct NAME=")
    return out


def baseline_refusal(all_results: list[dict[str, Any]]) -> str | None:
    """Why these results must not become a saved baseline, or None. The one place deciding it:
    perf-compare.sh's --save-baseline measures the base alone and leaves the verdict to this."""
    if len(all_results) != 1:
        return "more than one server measured"
    if not all_results[0]["baseline_ok"]:
        return "; ".join(all_results[0]["warnings"])
    return None


def _write(results: dict[str, Any], out: str) -> None:
    report.attach_kube_shares(results, {s.name: s.reference for s in sc.ALL})
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=2)
    table = report.markdown(results)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(table)
    report.chart(results, os.path.join(out, "results.png"))
    print(f"\n## {results['label']}\n\n{table}\nresults in {out}/results.{{json,md,png}}")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    require_wrk()
    names = args.scenarios.replace(",", " ").split()
    if args.quick and "--scenarios" not in (argv if argv is not None else sys.argv):
        names = list(sc.QUICK)
    unknown = [n for n in names if n not in sc.BY_NAME]
    if unknown:
        raise SystemExit(f"unknown scenarios: {' '.join(unknown)}")
    out = os.path.abspath(args.out or os.path.join("bench-results", time.strftime("api_load-%Y%m%dT%H%M%S")))
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="work-", dir=out)
    warnings = [w for w in [overload_warning()] if w]
    for warning in warnings:
        print(f"warning: {warning}; no baseline will be saved", file=sys.stderr)

    def options(label: str) -> Options:
        return Options(names, QUICK_COUNT if args.quick else args.count, args.runs,
                       Load(args.threads, args.connections, QUICK_DURATION_S if args.quick else args.duration),
                       floor=not (args.no_floor or args.quick), work_dir=os.path.join(work, label), label=label,
                       event_loop=args.event_loop or DEFAULT_EVENT_LOOP)

    remote = _target(args)
    local: list[LocalServer] = []
    measurements: list[Measurement] = []
    etcds: list[EtcdCluster] = []
    try:
        if remote is not None:
            measurements.append(Measurement(remote, options(args.label or remote.url), list(warnings)))
        else:
            for label, repo, flags, http_server in _servers(args):
                opts = options(label)
                if flags[:1] == ("--store-etcd",):  # each etcd server gets an etcd of its own
                    etcds.append(EtcdCluster(os.path.join(opts.work_dir, "etcd")).start())
                    flags = ("--etcd-servers", etcds[-1].servers) + flags[1:]
                server = LocalServer(repo, os.path.join(opts.work_dir, "server"), free_port(), http_server,
                                     extra_args=flags, event_loop=args.event_loop)
                local.append(server)
                measurements.append(Measurement(server.start(), opts, list(warnings)))
        print(f"== {' / '.join(m.target.url for m in measurements)}: {len(names)} scenarios x {args.runs} runs of "
              f"{measurements[0].options.load.duration_s:g}s, {measurements[0].options.count} objects", flush=True)
        all_results = measure_interleaved(measurements, args.runs)
    finally:
        for server in local:
            server.stop()
        for etcd in etcds:
            etcd.stop()
    shutil.rmtree(work, ignore_errors=True)
    for m, results in zip(measurements, all_results):
        results["label"] = m.options.label if remote is not None or len(measurements) > 1 else (
            args.label or f"this server from {m.options.label}")
        _write(results, out if len(measurements) == 1 else os.path.join(out, m.options.label))
    if args.save_baseline:
        refusal = baseline_refusal(all_results)
        if refusal is not None:
            print(f"warning: baseline NOT saved to {args.save_baseline}: {refusal}", file=sys.stderr)
            return BASELINE_REFUSED
        shutil.copyfile(os.path.join(out, "results.json"), args.save_baseline)
        print(f"baseline saved to {args.save_baseline}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
