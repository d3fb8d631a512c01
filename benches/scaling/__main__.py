"""`python -m benches.scaling`: list_all, list_table and list_metadata at 100 .. 100,000 ConfigMaps in one namespace.

One server (started here, its store on disk) grows through the sizes. At each size every list is loaded
by one connection (wrk -t1 -c1: a 60 MB answer times 32 connections would measure memory pressure, not
the list), then the floor app serves the same bytes the same way. Reported: ms per list, µs per object,
the floor's µs per object, and the server's resident memory at rest (also per stored object, over the
empty server's) and at its peak while listing.

    python -m benches.scaling                       # 100 1,000 10,000 100,000; 3 runs of 5 s each
    python -m benches.scaling --sizes 100 1000 --duration 2
    python -m benches.scaling --store etcd          # the same on a private etcd, read through the watch cache
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any

from benches.api_load import scenarios as sc
from benches.api_load import wrk
from benches.api_load.client import Client, seed_configmaps
from benches.api_load.measure import MemorySampler, overload_warning
from benches.api_load.servers import REPO, Floor, LocalServer, free_port

sys.path.insert(0, os.path.join(REPO, "tests"))
from support import EtcdCluster  # noqa: E402  (tests/support.py starts etcd for tests and benches alike)

SCENARIOS = {"list_all": sc.JSON, "list_table": sc.TABLE_ACCEPT, "list_metadata": sc.METADATA_ACCEPT}
PATH = f"/api/v1/namespaces/{sc.READ_NAMESPACE}/configmaps"


def _median_run(url: str, headers: dict[str, str], load: wrk.Load, runs: int) -> dict[str, float]:
    figures = [wrk.run(url, headers, load) for _ in range(runs)]
    return {"p50_ms": statistics.median(f["p50_ms"] for f in figures),
            "p99_ms": statistics.median(f["p99_ms"] for f in figures),
            "failed": sum(f["failed"] for f in figures)}


def measure(repo: str, sizes: list[int], load: wrk.Load, runs: int, work: str,
            store_args: tuple[str, ...] = ()) -> dict[str, Any]:
    warnings = [w for w in [overload_warning()] if w]
    server = LocalServer(repo, os.path.join(work, "server"), free_port(), extra_args=store_args)
    target = server.start()
    client = Client(target)
    client.ensure_namespace(sc.READ_NAMESPACE)
    empty_kb = MemorySampler(target.pid).at_rest_kb  # the server before any object is stored
    headers = {"Authorization": f"Bearer {target.token}"}
    rows: list[dict[str, Any]] = []
    try:
        seeded = 0
        for size in sizes:
            seed_configmaps(client, sc.READ_NAMESPACE, size, start=seeded)
            seeded = size
            memory = MemorySampler(target.pid)
            memory.start()
            body_dir = os.path.join(work, f"bodies-{size}")
            os.makedirs(body_dir)
            checked = {}
            for name, accept in SCENARIOS.items():
                answer = client.call("GET", PATH, accept=accept)
                checked[name] = answer
                with open(os.path.join(body_dir, f"{name}.body"), "wb") as f:
                    f.write(answer.body)
            floor = Floor(body_dir, os.path.join(server.pki, "apiserver.crt"), os.path.join(server.pki, "apiserver.key"),
                          free_port())
            floor_url = floor.start()
            try:
                for name, accept in SCENARIOS.items():
                    ours = _median_run(target.url + PATH, {**headers, "Accept": accept}, load, runs)
                    base = _median_run(f"{floor_url}/{name}", {**headers, "Accept": accept}, load, runs)
                    row = {"objects": size, "scenario": name, "http_status": checked[name].status,
                           "response_bytes": len(checked[name].body),
                           "kind": json.loads(checked[name].body).get("kind", "") if checked[name].body else "",
                           # the median latency, not 1/(requests/s): a run of a few seconds holds only a
                           # few 2-second lists, and wrk's requests/s drops the one cut off at the end
                           "ms_per_list": ours["p50_ms"], "us_per_object": 1000 * ours["p50_ms"] / size,
                           "floor_us_per_object": 1000 * base["p50_ms"] / size, "p99_ms": ours["p99_ms"],
                           "failed": ours["failed"], "rss_at_rest_kb": memory.at_rest_kb,
                           # what the store added, at rest: before this size's lists (the previous
                           # size's assembled lists are still held until their next list)
                           "rss_bytes_per_object": (memory.at_rest_kb - empty_kb) * 1024 / size}
                    rows.append(row)
                    print(f"   {size:>7} {name:<14} {row['ms_per_list']:9.2f} ms/list {row['us_per_object']:7.2f} "
                          f"us/object (floor {row['floor_us_per_object']:.2f}), {row['response_bytes']:,} bytes, "
                          f"{row['kind']}", flush=True)
            finally:
                floor.stop()
                memory.stop()
            for row in rows:
                if row["objects"] == size:
                    row["rss_peak_kb"] = memory.peak_kb
    finally:
        server.stop()
    return {"when_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "repo": repo,
            "load": {"threads": load.threads, "connections": load.connections, "duration_s": load.duration_s,
                     "runs": runs},
            "warnings": warnings, "rows": rows}


def markdown(results: dict[str, Any]) -> str:
    lines = [f"Measured {results['when_utc']} (wrk -t1 -c1 -d{results['load']['duration_s']:g}s, "
             f"median of {results['load']['runs']} runs)", "",
             "| objects | scenario | kind | bytes | ms/list (p50) | µs/object | floor µs/object | p99 ms | failed "
             "| RSS at rest KB | RSS bytes per stored object | RSS peak KB |",
             "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results["rows"]:
        lines.append(f"| {r['objects']:,} | {r['scenario']} | {r['kind']} | {r['response_bytes']:,} "
                     f"| {r['ms_per_list']:.2f} | {r['us_per_object']:.2f} | {r['floor_us_per_object']:.2f} "
                     f"| {r['p99_ms']:.2f} | {r['failed']} | {r['rss_at_rest_kb']:,} | {r['rss_bytes_per_object']:,.0f} "
                     f"| {r['rss_peak_kb']:,} |")
    lines += [f"\n**warning**: {w}" for w in results["warnings"]]
    return "\n".join(lines) + "\n"


def chart(results: dict[str, Any], path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")  # files only: no display on a build machine
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name in SCENARIOS:
        rows = [r for r in results["rows"] if r["scenario"] == name]
        ax.plot([r["objects"] for r in rows], [r["us_per_object"] for r in rows], marker="o", label=name)
    rows = [r for r in results["rows"] if r["scenario"] == "list_all"]
    ax.plot([r["objects"] for r in rows], [r["floor_us_per_object"] for r in rows], "k--", label="floor (list_all bytes)")
    ax.set_xscale("log")
    ax.set_xlabel("objects in the namespace")
    ax.set_ylabel("µs per object (one connection)")
    ax.set_title(f"List cost per object, {results['when_utc']}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benches.scaling", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="+", default=[100, 1_000, 10_000, 100_000])
    p.add_argument("--duration", type=float, default=5.0, help="seconds per run")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--server-repo", default=REPO, help="checkout whose server to start (default: this one)")
    p.add_argument("--store", choices=("embedded", "etcd"), default="embedded",
                   help="etcd: start a private etcd (Debian's etcd-server) and serve from it")
    p.add_argument("--out", help="output directory (default: bench-results/scaling-<time>)")
    args = p.parse_args(argv)
    wrk.require_wrk()
    out = os.path.abspath(args.out or os.path.join("bench-results", time.strftime("scaling-%Y%m%dT%H%M%S")))
    os.makedirs(out, exist_ok=True)
    load = wrk.Load(threads=1, connections=1, duration_s=args.duration, timeout_s=120)
    with tempfile.TemporaryDirectory(dir=out) as work:
        etcd = EtcdCluster(os.path.join(work, "etcd")).start() if args.store == "etcd" else None
        try:
            results = measure(os.path.abspath(args.server_repo), sorted(args.sizes), load, args.runs, work,
                              ("--etcd-servers", etcd.servers) if etcd is not None else ())
        finally:
            if etcd is not None:
                etcd.stop()
        results["store"] = args.store
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=2)
    table = markdown(results)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(table)
    chart(results, os.path.join(out, "results.png"))
    print(f"\n{table}\nresults in {out}/results.{{json,md,png}}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
