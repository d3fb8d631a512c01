"""Records kube-apiserver's answers to tests/crd_openapi_cases.py into tests/fixtures/crd_openapi.json.

Usage: python tools/capture_crd_openapi.py KUBECONFIG ETCD_URL  (a reference started by
../shared/reference/start.sh; ETCD_URL its etcd's client URL, from `ps` or DIR/etcd.log). The stored forms
a create would refuse are written into etcd directly, as tools/capture_crd_update_ratchet.py does.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")
sys.path.insert(0, TESTS)
sys.path.insert(0, HERE)

import crd_openapi_cases as cases
from capture_crd_update_ratchet import etcd_rewrite
from capture_patch_decoding import record
from capture_validation import sender


def main(kubeconfig: str, etcd_url: str) -> None:
    send = sender(kubeconfig)
    cases.cleanup(send)
    try:
        answers = cases.run_creates(send) | cases.run_updates(send, etcd_rewrite(etcd_url.rstrip("/"), send))
    finally:
        cases.cleanup(send)
    record(os.path.join(TESTS, "fixtures", cases.FIXTURE), answers)
    print(f"{sum(1 for a in answers.values() if a['code'] >= 300)} refused")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
