"""Records kube-apiserver's answers to the admission-policy sweep (tests/policy_sweep_scenarios.py).

    /work/shared/reference/start.sh ~/k8s-ref/bin ~/ref-run-celpolicy
    python tools/capture_policy_sweep.py ~/ref-run-celpolicy/kubeconfig [scenario ...]

Each scenario runs in its own namespaces and writes tests/fixtures/policy_sweep/<scenario>.json; run it
on a fresh reference (names are fixed: a second run meets the first one's objects).
"""

from __future__ import annotations

import json
import os
import sys

TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests")
sys.path.insert(0, TESTS)

from admission_replay import api_client, run
from policy_sweep_scenarios import SCENARIOS, normalized

FIXTURES = os.path.join(TESTS, "fixtures", "policy_sweep")


def main() -> None:
    kubeconfig, *names = sys.argv[1:]
    api = api_client(kubeconfig)
    os.makedirs(FIXTURES, exist_ok=True)
    for name in names or list(SCENARIOS):
        answers = normalized(run(api, SCENARIOS[name]))
        with open(os.path.join(FIXTURES, f"{name}.json"), "w") as f:
            json.dump(answers, f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
        print(f"{name}: {len(answers)} answers")


if __name__ == "__main__":
    main()
