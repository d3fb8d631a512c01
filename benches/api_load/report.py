"""Results as a markdown table and a bar chart, with ratios to the floor and kube-apiserver's share of it."""

from __future__ import annotations

from typing import Any

# kube-apiserver 1.36.2's share of the floor: its requests/s over the floor app's serving its own
# compact answers, alternating with it on one quiet machine (shared/bench/README.md, "Side by side",
# 2026-11-30 evening). Requests/s move by 2x between days and machines; a share of the floor travels.
KUBE_FLOOR_SHARES = {"get": 0.31, "list_all": 0.056, "list_selector": 0.021, "list_table": 0.050,
                     "list_table_none": 0.017, "list_metadata": 0.053, "list_pods_table": 0.049}
# Measured there with kubectl's limit=500 (half the rows per request); ours list everything.
_KUBE_PAGED = frozenset({"list_table", "list_pods_table"})


def attach_kube_shares(results: dict[str, Any], reference_names: dict[str, str | None]) -> None:
    """Puts kube-apiserver's share of the floor beside ours, and ours over it, where both are known."""
    for name, entry in results["scenarios"].items():
        reference = reference_names.get(name) or ""
        share = KUBE_FLOOR_SHARES.get(reference)
        ours = entry.get("ratio_to_floor")
        if share is None or ours is None:
            continue
        entry["kube"] = {"reference": reference, "floor_share": share, "ours_over_kube": ours / share}
        if reference in _KUBE_PAGED:
            entry["notes"].append("kube-apiserver's share was measured with limit=500")


def _f(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _controllers(c: dict[str, Any]) -> str:
    drained = "never drained" if c["drain_s_max"] is None else f"drained within {c['drain_s_max']:.2f} s"
    return (f"controllers: at most {c['unfinished_at_end_max']:,} keys and changes left when the load ended, "
            f"{drained}; {c['relists']} relists")


def markdown(results: dict[str, Any]) -> str:
    lines = [f"Measured {results['when_utc']} at {results['url']} "
             f"(wrk -t{results['load']['threads']} -c{results['load']['connections']} "
             f"-d{results['load']['duration_s']:g}s, median of {results['load']['runs']} runs, "
             f"{results['load']['objects']} objects; server RSS at rest {results['server_rss_kb']['at_rest']:,} KB, "
             f"peak {results['server_rss_kb']['peak']:,} KB)", "",
             "| scenario | bytes/resp | items | ops/s | p50 ms | p90 ms | p99 ms | failed | floor ops/s | ÷ floor "
             "| CPU µs/req | floor CPU µs/req | ÷ floor by CPU | kube ÷ floor | ÷ kube (by share of floor) | notes |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, e in results["scenarios"].items():
        notes = "; ".join(([f"skipped: {e['skipped']}"] if "skipped" in e else []) + e.get("notes", [])
                          + ([_controllers(e["controllers"])] if "controllers" in e else []))
        if "median" not in e:
            lines.append(f"| {name} |" + " - |" * 14 + f" {notes} |")
            continue
        m, kube = e["median"], e.get("kube", {})
        floor = e.get("floor", {}).get("median", {})
        lines.append(
            f"| {name} | {_f(e.get('response_bytes'), 0)} | {e.get('items', '-')} | {_f(m['rps'])} | {_f(m['p50_ms'], 2)} "
            f"| {_f(m['p90_ms'], 2)} | {_f(m['p99_ms'], 2)} | {e['failed']} | {_f(floor.get('rps'))} "
            f"| {_f(e.get('ratio_to_floor'), 2)} | {_f(m.get('server_cpu_us'))} | {_f(floor.get('server_cpu_us'))} "
            f"| {_f(e.get('cpu_ratio_to_floor'), 2)} | {_f(kube.get('floor_share'), 3)} "
            f"| {_f(kube.get('ours_over_kube'), 1)} | {notes} |")
    for warning in results["warnings"]:
        lines.append(f"\n**warning**: {warning}")
    return "\n".join(lines) + "\n"


def chart(results: dict[str, Any], path: str) -> None:
    """Grouped bars of ops/s per scenario: ours, the floor, and kube-apiserver's share of this floor."""
    import matplotlib
    matplotlib.use("Agg")  # files only: no display on a build machine
    import matplotlib.pyplot as plt

    names = [n for n, e in results["scenarios"].items() if "median" in e]
    series = [("this server", [results["scenarios"][n]["median"]["rps"] for n in names], "tab:blue"),
              ("floor app, same bytes", [results["scenarios"][n].get("floor", {}).get("median", {}).get("rps", 0)
                                         for n in names], "tab:gray"),
              ("kube-apiserver (its share × this floor)",
               [results["scenarios"][n].get("floor", {}).get("median", {}).get("rps", 0)
                * results["scenarios"][n].get("kube", {}).get("floor_share", 0) for n in names], "tab:orange")]
    width = 0.27
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(names)), 5))
    for i, (label, values, color) in enumerate(series):
        xs = [x + (i - 1) * width for x in range(len(names))]
        ax.bar(xs, [v or 0 for v in values], width, label=label, color=color)
    for x, n in enumerate(names):
        ratio = results["scenarios"][n].get("kube", {}).get("ours_over_kube")
        if ratio is not None:
            unlike = "*" if results["scenarios"][n].get("notes") else ""
            ax.annotate(f"×{ratio:.2f}{unlike}", (x - width, results["scenarios"][n]["median"]["rps"]),
                        ha="center", va="bottom", fontsize=8)
    ax.set_yscale("log")  # a get and a 4 MB list differ by three orders of magnitude
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_ylabel("ops/s (median of runs, log scale)")
    ax.set_title(f"{results['label']} {results['when_utc']}\n"
                 f"×: ours over kube-apiserver, by share of the floor; *: see the notes in results.md", fontsize=10)
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
