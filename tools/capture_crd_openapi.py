"""Records kube-apiserver's answers to tests/crd_openapi_cases.py into tests/fixtures/crd_openapi.json.

Usage: python tools/capture_crd_openapi.py KUBECONFIG ETCD_URL  (a reference started by
../shared/reference/start.sh; ETCD_URL its etcd's client URL, from `ps` or DIR/etcd.log). The stored forms
a create would refuse are written into etcd directly, as tools/capture_crd_update_ratchet.py does.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")
sys.path.insert(0, TESTS)
sys.path.insert(0, HERE)

import crd_openapi_cases as cases
from capture_crd_update_ratchet import _PREFIX, _b64, _etcd
from capture_patch_decoding import record
from capture_validation import sender


def etcd_rewrite(url: str, send: cases.Send) -> cases.Rewrite:
    """Stores each CRD with the given spec fields, put back as v1 (read through the API) into etcd, and
    waits until the server's cache has them."""
    def rewrite(specs_by_name: dict[str, dict[str, Any]]) -> None:
        path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
        for name, spec in specs_by_name.items():
            crd = send("GET", path + name, None, "")[1]
            crd["metadata"].pop("resourceVersion")
            crd["spec"].update(spec)
            _etcd(url, "put", {"key": _b64((_PREFIX + name).encode()), "value": _b64(json.dumps(crd).encode())})
        for name, spec in specs_by_name.items():
            for _ in range(100):
                stored = send("GET", path + name, None, "")[1]["spec"]
                if all(stored.get(key) == value for key, value in spec.items()):
                    break
                time.sleep(0.1)
            else:
                raise RuntimeError(f"{name} not seen rewritten")
    return rewrite


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
