"""Records kube-apiserver's warnings on the pods and pod templates of tests/pod_warning_cases.py into
tests/fixtures/pod_warnings.json.

Usage: python tools/capture_pod_warnings.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
tests/test_pod_warnings.py holds ours to them.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")
sys.path.insert(0, TESTS)
sys.path.insert(0, HERE)

import pod_warning_cases as cases
from capture_patch_decoding import record
from capture_validation import exchange


def main(kubeconfig: str) -> None:
    record(os.path.join(TESTS, "fixtures", cases.FIXTURE), cases.run(exchange(kubeconfig)))


if __name__ == "__main__":
    main(sys.argv[1])
