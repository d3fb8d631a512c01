"""Deciding what counts as a regression between two measurements of the same scenarios on one machine.

A scenario regressed when, branch against base: its throughput fell by more than MARGIN, its p99
grew by more than twice MARGIN (tail latency is noisier) and by more than P99_SLACK_MS, any of its requests failed (non-2xx,
socket error, timeout), or the base answered it and the branch does not. perf-compare.sh re-measures
the suspects and fails only on a scenario that regressed in both rounds.

    python -m benches.api_load.compare BASE.json HEAD.json [BASE2.json HEAD2.json] [--margin 0.2]

With two files: prints the suspects' names (one line, space separated), exits 0. With four: prints
the verdict and exits 1 when some scenario regressed in both rounds.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

MARGIN = 0.20
# A p99 must also grow by this much: below it the difference is a scheduler time slice on a shared machine.
P99_SLACK_MS = 2.0


def regressions(base: dict[str, Any], head: dict[str, Any], margin: float = MARGIN) -> dict[str, list[str]]:
    """Scenario -> why it regressed, over the scenarios both measurements were asked for."""
    out: dict[str, list[str]] = {}
    for name, h in head["scenarios"].items():
        b = base["scenarios"].get(name)
        if b is None:
            continue
        why = []
        if "median" in b and "median" not in h:
            why.append("no longer answered: " + "; ".join(([h["skipped"]] if "skipped" in h else []) + h.get("notes", [])))
        if h.get("failed", 0):
            why.append(f"{h['failed']} failed requests")
        if "median" in b and "median" in h:
            bm, hm = b["median"], h["median"]
            if hm["rps"] < bm["rps"] * (1 - margin):
                why.append(f"ops/s {bm['rps']:.1f} -> {hm['rps']:.1f} ({hm['rps'] / bm['rps'] - 1:+.0%})")
            if hm["p99_ms"] > bm["p99_ms"] * (1 + 2 * margin) and hm["p99_ms"] - bm["p99_ms"] > P99_SLACK_MS:
                why.append(f"p99 {bm['p99_ms']:.1f} -> {hm['p99_ms']:.1f} ms ({hm['p99_ms'] / bm['p99_ms'] - 1:+.0%})")
        if why:
            out[name] = why
    return out


def byte_changes(base: dict[str, Any], head: dict[str, Any]) -> dict[str, str]:
    """Scenarios whose answers changed size by more than 10%: their speeds compare different work."""
    out = {}
    for name, h in head["scenarios"].items():
        b = base["scenarios"].get(name, {})
        hb, bb = h.get("response_bytes"), b.get("response_bytes")
        if hb and bb and abs(hb - bb) > 0.1 * bb:
            out[name] = f"answers {bb:,} -> {hb:,} bytes"
    return out


def confirmed(first: dict[str, list[str]], second: dict[str, list[str]]) -> dict[str, list[str]]:
    """Regressions seen in both rounds: only these fail a comparison."""
    return {name: first[name] + second[name] for name in first if name in second}


def _read(path: str) -> dict[str, Any]:
    with open(path) as f:
        return dict(json.load(f))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benches.api_load.compare", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", help="BASE.json HEAD.json [BASE2.json HEAD2.json]")
    parser.add_argument("--margin", type=float, default=MARGIN)
    args = parser.parse_args(argv)
    if len(args.files) not in (2, 4):
        parser.error("give two files (one round) or four (two rounds)")
    base, head = _read(args.files[0]), _read(args.files[1])
    for name, change in byte_changes(base, head).items():
        print(f"note {name}: {change}: not the same work", file=sys.stderr)
    first = regressions(base, head, args.margin)
    if len(args.files) == 2:
        for name, why in first.items():
            print(f"suspect {name}: {'; '.join(why)}", file=sys.stderr)
        print(" ".join(first))
        return 0
    second = regressions(_read(args.files[2]), _read(args.files[3]), args.margin)
    both = confirmed(first, second)
    for name, why in second.items():
        print(f"re-measured {name}: {'; '.join(why)}", file=sys.stderr)
    if both:
        for name, why in both.items():
            print(f"REGRESSION {name}: {'; '.join(why)}")
        return 1
    print(f"no regression (suspects in the first round: {' '.join(first) or 'none'}; none confirmed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
