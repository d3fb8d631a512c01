"""Results as a markdown table and a bar chart, with ratios to the floor and to recorded kube-apiserver figures."""

from __future__ import annotations

import json
from typing import Any


def load_references(paths: list[str]) -> dict[str, dict[str, Any]]:
    """Scenario -> {rps, p99_ms, response_bytes, label} from apiload.sh result files (later files add to earlier)."""
    out: dict[str, dict[str, Any]] = {}
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        for name, s in doc["scenarios"].items():
            out[name] = {"rps": s["median"]["rps"], "p99_ms": s["median"]["p99_ms"],
                         "response_bytes": s["response_bytes"], "label": doc["label"]}
    return out


def attach_references(results: dict[str, Any], references: dict[str, dict[str, Any]],
                      reference_names: dict[str, str | None]) -> None:
    for name, entry in results["scenarios"].items():
        ref = references.get(reference_names.get(name) or "")
        if ref is not None and "median" in entry:
            entry["reference"] = {**ref, "ratio": entry["median"]["rps"] / ref["rps"]}
            ours = entry.get("response_bytes") or 0
            if abs(ours - ref["response_bytes"]) > 0.1 * ref["response_bytes"]:
                # kube-apiserver's recorded objects carried managedFields: equal work is equal bytes
                entry["notes"].append(f"kube-apiserver answered {ref['response_bytes']:,} bytes, "
                                      f"ours {ours / ref['response_bytes']:.2f}x that")


def _f(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def markdown(results: dict[str, Any]) -> str:
    lines = [f"Measured {results['when_utc']} at {results['url']} "
             f"(wrk -t{results['load']['threads']} -c{results['load']['connections']} "
             f"-d{results['load']['duration_s']:g}s, median of {results['load']['runs']} runs, "
             f"{results['load']['objects']} objects; server RSS at rest {results['server_rss_kb']['at_rest']:,} KB, "
             f"peak {results['server_rss_kb']['peak']:,} KB)", "",
             "| scenario | bytes/resp | items | ops/s | p50 ms | p90 ms | p99 ms | failed | floor ops/s | ÷ floor "
             "| kube ops/s | ÷ kube | kube bytes | notes |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, e in results["scenarios"].items():
        notes = "; ".join(e.get("notes", []))
        if "median" not in e:
            lines.append(f"| {name} |" + " - |" * 12 + f" {notes} |")
            continue
        m, ref = e["median"], e.get("reference", {})
        floor = e.get("floor", {}).get("median", {})
        lines.append(
            f"| {name} | {_f(e.get('response_bytes'), 0)} | {e.get('items', '-')} | {_f(m['rps'])} | {_f(m['p50_ms'], 2)} "
            f"| {_f(m['p90_ms'], 2)} | {_f(m['p99_ms'], 2)} | {e['failed']} | {_f(floor.get('rps'))} "
            f"| {_f(e.get('ratio_to_floor'), 2)} | {_f(ref.get('rps'))} | {_f(ref.get('ratio'), 2)} "
            f"| {_f(ref.get('response_bytes'), 0)} | {notes} |")
    for warning in results["warnings"]:
        lines.append(f"\n**warning**: {warning}")
    return "\n".join(lines) + "\n"


def chart(results: dict[str, Any], path: str) -> None:
    """Grouped bars of ops/s per scenario (ours, the floor, kube-apiserver), ratio to kube above ours."""
    import matplotlib
    matplotlib.use("Agg")  # files only: no display on a build machine
    import matplotlib.pyplot as plt

    names = [n for n, e in results["scenarios"].items() if "median" in e]
    series = [("this server", [results["scenarios"][n]["median"]["rps"] for n in names], "tab:blue"),
              ("floor app, same bytes", [results["scenarios"][n].get("floor", {}).get("median", {}).get("rps", 0)
                                         for n in names], "tab:gray"),
              ("kube-apiserver (recorded)", [results["scenarios"][n].get("reference", {}).get("rps", 0)
                                             for n in names], "tab:orange")]
    width = 0.27
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(names)), 5))
    for i, (label, values, color) in enumerate(series):
        xs = [x + (i - 1) * width for x in range(len(names))]
        ax.bar(xs, [v or 0 for v in values], width, label=label, color=color)
    for x, n in enumerate(names):
        ratio = results["scenarios"][n].get("reference", {}).get("ratio")
        if ratio is not None:
            unlike = "*" if results["scenarios"][n].get("notes") else ""
            ax.annotate(f"×{ratio:.2f}{unlike}", (x - width, results["scenarios"][n]["median"]["rps"]),
                        ha="center", va="bottom", fontsize=8)
    ax.set_yscale("log")  # a get and a 4 MB list differ by three orders of magnitude
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_ylabel("ops/s (median of runs, log scale)")
    ax.set_title(f"{results['label']} {results['when_utc']}\n"
                 f"×: ratio to kube-apiserver; *: not like for like (see the notes in results.md)", fontsize=10)
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
