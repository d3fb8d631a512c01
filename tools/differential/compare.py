"""Replays the recorded cases against our server and compares its answers with the reference's.

Usage: python -m tools.differential.compare --kubeconfig OURS [--fixture FILE] [--expected FILE]
                                            [--workers N] [--show N] [--update-expected]

OURS must be a fresh server (the cases' names are fixed). Prints the equality rate per kind, the count
per difference category, then the cases that now differ but are not listed in the expected
differences (regressions, and listed cases that now crash our server where they did not) and those
listed that now match (remove them: the list only shrinks).
Exit status 0 when there are neither. `--update-expected` rewrites the list from this run instead.

A difference's category names the first thing that differs, in the order a user meets it: the status
code (`crash` for a 5xx, `accepts-invalid`, `refuses-valid`, `other-code`), then `reason`, `message`,
`warnings`, `managed-fields` (the body differs only there) and `body`; a `stored-` prefix says the
answer to the write was the same but the object read back afterwards was not. A word on where
follows: the field of the reference's first cause, the cause one message lacks, the first path
where two bodies part.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tools.differential.cases import MORE_SEEDS, SEED
from tools.differential.client import Client
from tools.differential.normalize import Normalized
from tools.differential.record import FIXTURE, fixture_for
from tools.differential.runner import read_fixture, run_all, stderr_progress

EXPECTED = os.path.join(os.path.dirname(FIXTURE), "expected_differences.txt")


def expected_for(seed: int) -> str:
    """The listed differences of a seed's recording (record.fixture_for)."""
    return EXPECTED if seed == SEED else EXPECTED.replace(".txt", f"-seed{seed}.txt")


def _without_managed_fields(body: Any) -> Any:
    if isinstance(body, dict):
        return {k: _without_managed_fields(v) for k, v in body.items() if k != "managedFields"}
    if isinstance(body, list):
        return [_without_managed_fields(v) for v in body]
    return body


def _causes(answer: Normalized) -> list[dict[str, Any]]:
    body = answer.get("body")
    details = body.get("details") if isinstance(body, dict) else None
    causes = details.get("causes") if isinstance(details, dict) else None
    return [c for c in causes if isinstance(c, dict)] if isinstance(causes, list) else []


def _where(cause: dict[str, Any]) -> str:
    return str(cause.get("field") or cause.get("reason") or "")


def _first_cause(answer: Normalized) -> str:
    """Where a refusal points: its first cause's field (or reason), else its reason."""
    causes = _causes(answer)
    return _where(causes[0]) if causes else str(answer.get("reason") or answer["code"])


def _message_part(ref: Normalized, got: Normalized) -> str:
    """The first cause one message has and the other lacks (`+field`: only ours), else `text`."""
    ref_causes, got_causes = _causes(ref), _causes(got)
    missing = [c for c in ref_causes if c not in got_causes]
    if missing:
        return _where(missing[0])
    extra = [c for c in got_causes if c not in ref_causes]
    return "+" + _where(extra[0]) if extra else "text"


def _first_path(ref: Any, got: Any) -> str:
    found = next(differences(ref, got), None)
    return found[0].lstrip(".") if found else ""


def answer_category(ref: Normalized, got: Normalized) -> str | None:
    """The first thing that differs, then a word on where: `accepts-invalid spec.replicas`."""
    if ref == got:
        return None
    rc, gc = ref["code"], got["code"]
    if rc != gc:
        if gc >= 500:
            return f"crash {got.get('message', '')[:60]}"
        if rc >= 400 and gc < 300:
            return f"accepts-invalid {rc} {_first_cause(ref)}"
        if rc < 300 and gc >= 400:
            return f"refuses-valid {gc} {_first_cause(got)}"
        return f"other-code {rc}/{gc}"
    if ref.get("reason") != got.get("reason"):
        return f"reason {ref.get('reason')}/{got.get('reason')}"
    if ref.get("message") != got.get("message"):
        return f"message {_message_part(ref, got)}"
    if ref.get("warnings") != got.get("warnings"):
        only_ref = [w for w in ref.get("warnings", []) if w not in got.get("warnings", [])]
        only_got = [w for w in got.get("warnings", []) if w not in ref.get("warnings", [])]
        if only_ref or only_got:
            return f"warnings {only_ref[0][:70]}" if only_ref else f"warnings +{only_got[0][:70]}"
        return "warnings order"
    if _without_managed_fields(ref.get("body")) == _without_managed_fields(got.get("body")):
        return "managed-fields"
    return f"body {_first_path(ref.get('body'), got.get('body'))}"


def case_category(ref: list[Normalized], got: list[Normalized]) -> str | None:
    first = answer_category(ref[0], got[0])
    if first is not None:
        return first
    for ref_answer, got_answer in zip(ref[1:], got[1:]):
        later = answer_category(ref_answer, got_answer)
        if later is not None:
            return "stored-" + later
    return None


@dataclass
class Report:
    kinds: dict[str, str] = field(default_factory=dict)  # case id -> kind
    categories: dict[str, str | None] = field(default_factory=dict)  # case id -> category, None if equal
    answers: dict[str, tuple[list[Normalized], list[Normalized]]] = field(default_factory=dict)

    def per_kind(self) -> list[tuple[str, int, int]]:
        totals: collections.Counter[str] = collections.Counter()
        equal: collections.Counter[str] = collections.Counter()
        for case_id, kind in self.kinds.items():
            totals[kind] += 1
            equal[kind] += self.categories[case_id] is None
        return [(kind, totals[kind], equal[kind]) for kind in totals]

    def differing(self) -> dict[str, str]:
        return {case_id: cat for case_id, cat in self.categories.items() if cat is not None}


def replay(client: Client, fixture: str = FIXTURE, workers: int = 8, quiet: bool = False,
           only: str = "") -> Report:
    lines = [line for line in read_fixture(fixture) if line["case"]["id"].startswith(only)]
    got = run_all(client, [line["case"] for line in lines], workers, None if quiet else stderr_progress())
    report = Report()
    for line in lines:
        case_id = line["case"]["id"]
        report.kinds[case_id] = line["case"]["kind"]
        report.categories[case_id] = case_category(line["answers"], got[case_id])
        report.answers[case_id] = (line["answers"], got[case_id])
    return report


def read_expected(path: str = EXPECTED) -> dict[str, str]:
    out: dict[str, str] = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                case_id, _, category = line.rstrip("\n").partition("\t")
                out[case_id] = category
    return out


def write_expected(differing: dict[str, str], path: str = EXPECTED) -> None:
    with open(path, "w") as f:
        f.write("# Cases our server does not yet answer as kube-apiserver 1.36.2 does: id<TAB>category.\n"
                "# Written by `python -m tools.differential.compare --update-expected`; remove a line when\n"
                "# its case matches (tests/test_differential.py fails until it is removed).\n")
        for case_id in sorted(differing):
            f.write(f"{case_id}\t{' '.join(differing[case_id].split())}\n")


def _crash(category: str) -> bool:
    return category.split(" ", 1)[0] in ("crash", "stored-crash")


def judge(report: Report, expected: dict[str, str]) -> tuple[list[str], list[str]]:
    """(regressions: differing but not listed, or listed but now a crash where it was not; fixed:
    listed but now equal)."""
    differing = report.differing()
    regressions = sorted(case_id for case_id, category in differing.items()
                         if case_id not in expected or (_crash(category) and not _crash(expected[case_id])))
    fixed = sorted(case_id for case_id in expected
                   if case_id in report.categories and case_id not in differing)
    return regressions, fixed


def summary(report: Report) -> str:
    rows = sorted(report.per_kind())
    lines = [f"{'kind':62} {'cases':>6} {'equal':>6} {'rate':>7}"]
    for kind, total, equal in rows:
        lines.append(f"{kind:62} {total:6d} {equal:6d} {100 * equal / total:6.1f}%")
    total = sum(r[1] for r in rows)
    equal = sum(r[2] for r in rows)
    lines.append(f"{'all':62} {total:6d} {equal:6d} {100 * equal / max(total, 1):6.1f}%")
    counts = collections.Counter(category.split()[0] for category in report.differing().values())
    lines.append("differences: " + ", ".join(f"{cat} {n}" for cat, n in counts.most_common()))
    return "\n".join(lines)


def differences(ref: Any, got: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """(path, reference's value, ours) wherever two normalized answers part."""
    if isinstance(ref, dict) and isinstance(got, dict):
        for key in [*ref, *(k for k in got if k not in ref)]:
            yield from differences(ref.get(key, "<absent>"), got.get(key, "<absent>"), f"{path}.{key}")
    elif isinstance(ref, list) and isinstance(got, list) and len(ref) == len(got):
        for i, (r, g) in enumerate(zip(ref, got)):
            yield from differences(r, g, f"{path}[{i}]")
    elif ref != got:
        yield path, ref, got


def explain(report: Report, case_id: str, limit: int = 6) -> str:
    ref, got = report.answers[case_id]
    lines = [f"{case_id} [{report.categories[case_id]}]"]
    for path, r, g in itertools.islice(differences(ref, got), limit):
        lines.append(f"   {path}\n      ref: {json.dumps(r)[:400]}\n      got: {json.dumps(g)[:400]}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--seed", type=int, default=SEED, choices=(SEED, *MORE_SEEDS),
                        help="replay this seed's recording against its listed differences")
    parser.add_argument("--fixture", help="default: the seed's recording")
    parser.add_argument("--expected", help="default: the seed's listed differences")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--show", type=int, default=0,
                        help="print where the answers part for the first N differing cases")
    parser.add_argument("--only", default="", help="replay only the cases whose id starts with this")
    parser.add_argument("--update-expected", action="store_true")
    args = parser.parse_args()
    args.fixture = args.fixture or fixture_for(args.seed)
    args.expected = args.expected or expected_for(args.seed)
    if args.only and args.update_expected:
        parser.error("--update-expected rewrites the whole list: replay every case")
    report = replay(Client.from_kubeconfig(args.kubeconfig), args.fixture, args.workers, only=args.only)
    print(summary(report))
    for case_id in sorted(report.differing())[:args.show]:
        print(explain(report, case_id))
    if args.update_expected:
        write_expected(report.differing(), args.expected)
        print(f"wrote {len(report.differing())} expected differences to {args.expected}")
        return
    regressions, fixed = judge(report, read_expected(args.expected))
    for case_id in regressions:
        print(f"regression  {case_id}  [{report.categories[case_id]}]")
    for case_id in fixed:
        print(f"now equal   {case_id}  (remove it from {args.expected})")
    sys.exit(1 if regressions or fixed else 0)


if __name__ == "__main__":
    main()
