"""Records kube-apiserver's answers to tests/crd_update_ratchet_cases.py into tests/fixtures/crd_update_ratchet.json.

Usage: python tools/capture_crd_update_ratchet.py KUBECONFIG ETCD_URL  (a reference started by
../shared/reference/start.sh; ETCD_URL its etcd's client URL, from `ps` or DIR/etcd.log). The over-budget
CRDs are written into etcd directly, through its JSON gateway, as no API write would take them.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import time
import urllib.request
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")
sys.path.insert(0, TESTS)
sys.path.insert(0, HERE)

import crd_update_ratchet_cases as cases
from capture_patch_decoding import record
from capture_validation import sender

_PREFIX = "/registry/apiextensions.k8s.io/customresourcedefinitions/"


def _etcd(url: str, verb: str, body: dict[str, str]) -> Any:
    request = urllib.request.Request(f"{url}/v3/kv/{verb}", data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _b64(text: bytes) -> str:
    return base64.b64encode(text).decode()


def etcd_rewrite(url: str, send: cases.Send) -> cases.Rewrite:
    def rewrite(versions_by_name: dict[str, list[dict[str, Any]]]) -> None:
        for name, versions in versions_by_name.items():
            # etcd holds CRDs as v1beta1, whose shared schema sits apart from the versions: the object is
            # put back as v1 (read through the API), which the server decodes as well.
            path = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"
            crd = send("GET", path, None, "")[1]
            crd["metadata"].pop("resourceVersion")
            crd["spec"]["versions"] = versions
            _etcd(url, "put", {"key": _b64((_PREFIX + name).encode()), "value": _b64(json.dumps(crd).encode())})
        for name, versions in versions_by_name.items():  # until the server's cache has them
            path = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"
            for _ in range(100):
                if send("GET", path, None, "")[1]["spec"]["versions"] == versions:
                    break
                time.sleep(0.1)
            else:
                raise RuntimeError(f"{name} not seen rewritten")
    return rewrite


def main(kubeconfig: str, etcd_url: str) -> None:
    send = sender(kubeconfig)
    cases.cleanup(send)
    try:
        answers = cases.run(send, etcd_rewrite(etcd_url.rstrip("/"), send))
    finally:
        cases.cleanup(send)
    record(os.path.join(TESTS, "fixtures", cases.FIXTURE), answers)
    print(f"{sum(1 for a in answers.values() if a['code'] >= 300)} refused")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
