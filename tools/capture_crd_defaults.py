"""Records kube-apiserver's answers to tests/crd_defaults_cases.py into tests/fixtures/crd_defaults.json.

Usage: python tools/capture_crd_defaults.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
The answers are what CI, which has no reference, holds our server to (tests/test_crd_defaults.py).
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")
sys.path.insert(0, TESTS)
sys.path.insert(0, HERE)

import crd_defaults_cases as cases
from capture_patch_decoding import record
from capture_validation import sender


def main(kubeconfig: str) -> None:
    record(os.path.join(TESTS, "fixtures", cases.FIXTURE), cases.run(sender(kubeconfig)))


if __name__ == "__main__":
    main(sys.argv[1])
