"""Records the reference's answers to every generated case, as the fixture the replay compares with.

Usage: python -m tools.differential.record --kubeconfig REF_KUBECONFIG [--seed N] [--out FILE] [--workers N]
                                           [--skip-unstable FIXTURE]

REF_KUBECONFIG is a fresh kube-apiserver 1.36.2 (../shared/reference/start.sh prints one): the cases'
namespaces and cluster-scoped names are fixed, so a second recording needs a second fresh reference.
The fixture (gzipped JSON lines, one per case: the case itself and its normalized answers) lets the
replay run without the generator; a first line `{"meta": ...}` says what it was recorded from.
`--skip-unstable FIXTURE` records again and leaves out every case whose answers differ from that
earlier recording: an answer that changes between two runs of the reference cannot be compared.
`--seed N` (one of cases.MORE_SEEDS) records what that seed adds to the main seed's cases
(generate.seeded_cases) into its own fixture (fixture_for).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time

from tools.differential.cases import MORE_SEEDS, SEED
from tools.differential.client import Client
from tools.differential.generate import all_cases, seeded_cases
from tools.differential.runner import read_fixture, run_all, stderr_progress

FIXTURE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "tests", "differential", "answers.jsonl.gz")


def fixture_for(seed: int) -> str:
    """The recording of a seed: the main one's, or what another seed adds to it."""
    return FIXTURE if seed == SEED else FIXTURE.replace("answers.", f"answers-seed{seed}.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--seed", type=int, default=SEED, choices=(SEED, *MORE_SEEDS))
    parser.add_argument("--out", help="default: the seed's fixture in tests/differential/")
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--skip-unstable", metavar="FIXTURE")
    args = parser.parse_args()
    client = Client.from_kubeconfig(args.kubeconfig)
    version = json.loads(client.request("GET", "/version").body)
    cases = all_cases() if args.seed == SEED else seeded_cases(args.seed)
    out = args.out or fixture_for(args.seed)
    started = time.monotonic()
    answers = run_all(client, cases, args.workers, stderr_progress())
    unstable: set[str] = set()
    if args.skip_unstable:
        earlier = {line["case"]["id"]: line["answers"] for line in read_fixture(args.skip_unstable)}
        unstable = {case_id for case_id, got in answers.items() if earlier.get(case_id, got) != got}
        for case_id in sorted(unstable):
            print(f"unstable  {case_id}", file=sys.stderr)
    kept = [c for c in cases if c["id"] not in unstable]
    with gzip.open(out, "wt", compresslevel=9) as f:
        meta = {"reference": version.get("gitVersion"), "seed": args.seed, "cases": len(kept),
                "left_out_unstable": len(unstable)}
        f.write(json.dumps({"meta": meta}) + "\n")
        for case in kept:
            f.write(json.dumps({"case": case, "answers": answers[case["id"]]}, separators=(",", ":")) + "\n")
    print(f"recorded {len(kept)} cases from {version.get('gitVersion')} in {time.monotonic() - started:.0f}s "
          f"into {out} ({os.path.getsize(out) // 1024} KiB); {len(unstable)} unstable left out")


if __name__ == "__main__":
    main()
