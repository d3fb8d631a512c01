"""Records kube-apiserver's answers to tests/crd_structural_cases.py into tests/fixtures/crd_structural.json.

Usage: python tools/capture_crd_structural.py KUBECONFIG  (a reference started by ../shared/reference/start.sh).
The creates are dry runs: nothing is left behind.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")
sys.path.insert(0, TESTS)
sys.path.insert(0, HERE)

import crd_structural_cases as cases
from capture_patch_decoding import record
from capture_validation import sender


def main(kubeconfig: str) -> None:
    answers = cases.run(sender(kubeconfig))
    record(os.path.join(TESTS, "fixtures", cases.FIXTURE), answers)
    print(f"{sum(1 for a in answers.values() if a['code'] >= 300)} refused")


if __name__ == "__main__":
    main(sys.argv[1])
