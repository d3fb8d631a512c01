"""Records kube-apiserver's answers to the admission scenarios as the fixtures the tests compare with.

    /work/shared/reference/start.sh ~/k8s-ref/bin ~/ref-run-plugins --controllers
    python tools/capture_admission_plugins.py ~/ref-run-plugins/kubeconfig [scenario ...]

Each scenario (tests/admission_scenarios.py, tests/admission_sweep_scenarios.py) is replayed in its own namespaces on a fresh reference
(the controllers are needed: quotas limit nothing until the resourcequota controller fills their
status) and its answers are written to tests/admission_fixtures/<scenario>.json.
"""

from __future__ import annotations

import json
import os
import sys

TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests")
sys.path.insert(0, TESTS)

from admission_replay import api_client, run  # noqa: E402
from admission_scenarios import SCENARIOS as FIRST  # noqa: E402
from admission_sweep_scenarios import SCENARIOS as SWEEP  # noqa: E402

SCENARIOS = {**FIRST, **SWEEP}


def main() -> None:
    kubeconfig, *names = sys.argv[1:]
    api = api_client(kubeconfig)
    for name in names or list(SCENARIOS):
        answers = run(api, SCENARIOS[name])
        with open(os.path.join(TESTS, "admission_fixtures", f"{name}.json"), "w") as f:
            json.dump(answers, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"{name}: {len(answers)} answers")


if __name__ == "__main__":
    main()
