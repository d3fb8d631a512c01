"""`python -m benches.api_load`: measure our server (started here) or any Kubernetes API server (--url).

Writes OUT/results.json, OUT/results.md and OUT/results.png. See benches/README.md.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys
import tempfile
import time

from benches.api_load import report
from benches.api_load import scenarios as sc
from benches.api_load.measure import Measurement, Options, overload_warning
from benches.api_load.servers import REPO, SHARED, LocalServer, Target, free_port, from_kubeconfig
from benches.api_load.wrk import Load, require_wrk

QUICK_COUNT = 50
QUICK_DURATION_S = 1.0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benches.api_load", description=__doc__)
    where = p.add_argument_group("server (default: start `python -m apiserver` from --server-repo)")
    where.add_argument("--url", help="measure this server instead (with --token or --kubeconfig)")
    where.add_argument("--token", help="bearer token for --url")
    where.add_argument("--ca", help="CA file for --url (default: do not verify)")
    where.add_argument("--kubeconfig", help="take server, token and CA from this kubeconfig's current context")
    where.add_argument("--server-repo", default=REPO, help="checkout whose server to start (default: this one)")
    p.add_argument("--scenarios", default=" ".join(s.name for s in sc.ALL),
                   help="space or comma separated, from: " + " ".join(sc.BY_NAME))
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--duration", type=float, default=10.0, help="seconds per run")
    p.add_argument("--connections", type=int, default=32)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--count", type=int, default=1_000, help="ConfigMaps and Pods to seed")
    p.add_argument("--no-floor", action="store_true", help="skip the floor app runs")
    p.add_argument("--quick", action="store_true",
                   help=f"a few seconds: {QUICK_COUNT} objects, {QUICK_DURATION_S:g}s runs, no floor, "
                        f"scenarios {' '.join(sc.QUICK)} unless --scenarios is given")
    p.add_argument("--reference", nargs="*",
                   default=sorted(glob.glob(os.path.join(SHARED, "bench", "results-kube-apiserver-*.json"))),
                   help="apiload.sh result files to compare with (default: shared/bench's kube-apiserver ones)")
    p.add_argument("--out", help="output directory (default: bench-results/api_load-<time>)")
    p.add_argument("--label", default="", help="free text stored in the results")
    p.add_argument("--save-baseline", metavar="PATH",
                   help="also copy results.json here, unless the machine was too loaded to trust it")
    return p


def _target(args: argparse.Namespace) -> Target | None:
    if args.kubeconfig:
        return from_kubeconfig(args.kubeconfig)
    if args.url:
        if not args.token:
            raise SystemExit("--url needs --token (or use --kubeconfig)")
        return Target(args.url.rstrip("/"), args.token, args.ca)
    return None


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
    options = Options(names, QUICK_COUNT if args.quick else args.count, args.runs,
                      Load(args.threads, args.connections, QUICK_DURATION_S if args.quick else args.duration),
                      floor=not (args.no_floor or args.quick), work_dir=tempfile.mkdtemp(prefix="work-", dir=out))
    warnings = [w for w in [overload_warning()] if w]
    for warning in warnings:
        print(f"warning: {warning}; no baseline will be saved", file=sys.stderr)
    target = _target(args)
    local = None
    if target is None:
        local = LocalServer(os.path.abspath(args.server_repo), os.path.join(options.work_dir, "server"), free_port())
        target = local.start()
    print(f"== {target.url}: {len(names)} scenarios x {options.runs} runs of {options.load.duration_s:g}s, "
          f"{options.count} objects", flush=True)
    try:
        results = Measurement(target, options, warnings).run()
    finally:
        if local is not None:
            local.stop()
    shutil.rmtree(options.work_dir, ignore_errors=True)
    results["label"] = args.label or (f"this server from {args.server_repo}" if local else target.url)
    report.attach_references(results, report.load_references(args.reference),
                             {s.name: s.reference for s in sc.ALL})
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=2)
    table = report.markdown(results)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(table)
    report.chart(results, os.path.join(out, "results.png"))
    print(table)
    print(f"results in {out}/results.{{json,md,png}}")
    if args.save_baseline:
        if results["baseline_ok"]:
            shutil.copyfile(os.path.join(out, "results.json"), args.save_baseline)
            print(f"baseline saved to {args.save_baseline}")
        else:
            print(f"warning: baseline NOT saved to {args.save_baseline}: {'; '.join(results['warnings'])}",
                  file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
