"""Records kube-apiserver's answers with the Priority admission plugin disabled
(tests/priority_disabled_cases.py) into tests/fixtures/priority_disabled.json.

Usage: python tools/capture_priority_disabled.py KUBECONFIG, for a kube-apiserver started with
../shared/reference/start.sh's flags but `--disable-admission-plugins=ServiceAccount,Priority` (by hand,
on the same etcd under another --etcd-prefix). tests/test_priority_admission.py holds ours to them.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")
sys.path.insert(0, TESTS)
sys.path.insert(0, HERE)

import priority_disabled_cases as cases
from capture_patch_decoding import record
from capture_validation import exchange


def main(kubeconfig: str) -> None:
    send = exchange(kubeconfig)
    cases.cleanup(send)
    try:
        answers = cases.run(send)
    finally:
        cases.cleanup(send)
    record(os.path.join(TESTS, "fixtures", cases.FIXTURE), answers)


if __name__ == "__main__":
    main(sys.argv[1])
