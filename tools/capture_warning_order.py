"""Records the order of kube-apiserver's warnings on writes that collect them from decoding, the strategy
and validating admission (tests/warning_order_cases.py) into tests/fixtures/warning_order.json.

Usage: python tools/capture_warning_order.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
tests/test_warning_order.py holds ours to them.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")
sys.path.insert(0, TESTS)
sys.path.insert(0, HERE)

import warning_order_cases as cases
from capture_patch_decoding import record
from capture_validation import exchange


def main(kubeconfig: str) -> None:
    send = exchange(kubeconfig)
    cases.cleanup(send)
    cases.prepare(send)
    try:
        answers = cases.run(send)
    finally:
        cases.cleanup(send)
    record(os.path.join(TESTS, "fixtures", cases.FIXTURE), answers)


if __name__ == "__main__":
    main(sys.argv[1])
