"""Records how kube-apiserver writes back each quantity spelling of tests/quantity_spellings.py.

Usage: python tools/capture_quantities.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
Each spelling is sent as the raw JSON value of a CSIStorageCapacity's maximumVolumeSize (dryRun=All);
the answer kept is the value written back, or the decoding error. tests/test_quantity_answers.py holds
apiserver/kinds/quantity.py to them.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")
sys.path.insert(0, TESTS)
sys.path.insert(0, HERE)

import capture_validation
from quantity_spellings import SPELLINGS

_PATH = "/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities?dryRun=All"
_PREFIX = 'CSIStorageCapacity in version "v1" cannot be handled as a CSIStorageCapacity: '


def main(kubeconfig: str) -> None:
    send = capture_validation.sender(kubeconfig)
    answers: dict[str, Any] = {}
    for raw in SPELLINGS:
        body = ('{"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity","metadata":{"name":"q"},'
                '"storageClassName":"s","maximumVolumeSize":' + raw + "}").encode()
        status, answer = send("POST", _PATH, body, "application/json")
        if status < 300:
            answers[raw] = {"written": answer.get("maximumVolumeSize")}
        else:
            answers[raw] = {"code": status, "error": str(answer.get("message", "")).removeprefix(_PREFIX)}
    with open(os.path.join(TESTS, "quantity_answers.json"), "w") as f:
        json.dump(answers, f, indent=1)
        f.write("\n")
    print(f"{len(answers)} answers")


if __name__ == "__main__":
    main(sys.argv[1])
