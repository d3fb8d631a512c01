"""Records how kube-apiserver writes back each quantity spelling of tests/quantity_spellings.py.

Usage: python tools/capture_quantities.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
Each spelling is sent as the raw JSON value of a CSIStorageCapacity's maximumVolumeSize (dryRun=All);
the answer kept is the value written back, or the decoding error. tests/test_quantity_answers.py holds
apiserver/kinds/quantity.py to them.
"""

from __future__ import annotations

import json
import os
import ssl
import sys
import urllib.error
import urllib.request
from typing import Any

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")
sys.path.insert(0, TESTS)

from quantity_spellings import SPELLINGS

_PATH = "/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities?dryRun=All"
_PREFIX = 'CSIStorageCapacity in version "v1" cannot be handled as a CSIStorageCapacity: '


def main(kubeconfig: str) -> None:
    with open(kubeconfig) as f:
        config = yaml.safe_load(f)
    server = config["clusters"][0]["cluster"]["server"]
    token = config["users"][0]["user"]["token"]
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    answers: dict[str, Any] = {}
    for raw in SPELLINGS:
        body = ('{"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity","metadata":{"name":"q"},'
                '"storageClassName":"s","maximumVolumeSize":' + raw + "}").encode()
        request = urllib.request.Request(server + _PATH, data=body, method="POST")
        request.add_header("Authorization", f"Bearer {token}")
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, context=context, timeout=30) as response:
                answers[raw] = {"written": json.loads(response.read()).get("maximumVolumeSize")}
        except urllib.error.HTTPError as err:
            answer = json.loads(err.read())
            answers[raw] = {"code": err.code, "error": str(answer.get("message", "")).removeprefix(_PREFIX)}
    with open(os.path.join(TESTS, "quantity_answers.json"), "w") as f:
        json.dump(answers, f, indent=1)
        f.write("\n")
    print(f"{len(answers)} answers")


if __name__ == "__main__":
    main(sys.argv[1])
