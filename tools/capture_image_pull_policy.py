"""Records the imagePullPolicy kube-apiserver defaults for container images that test the edges of
parsers.ParseImageName (distribution/reference's ParseNormalizedNamed): tags and digests, docker.io's
library/ prefix counting toward the 255-character repository path, domains, upper case, a bare 64-hex
identifier. A name it cannot parse defaults to IfNotPresent, as its error is ignored.

Usage: python tools/capture_image_pull_policy.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
One dry-run pod holds every image; tests/test_image_pull_policy.py holds ours to the answers
(apiserver/registry/core/defaults.py).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import capture_patch_decoding as patching

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "image_pull_policy.json")
Send = patching.Send
NAMESPACE = "pull-policy"
JSON = "application/json"
DOMAIN = "registry.example.com/"

IMAGES = [
    "nginx", "nginx:latest", "nginx:1.27", "nginx@sha256:" + "a" * 64, "nginx:1.27@sha256:" + "a" * 64,
    "x" * 247, "x" * 248, "x" * 254, "a" * 64, "b" * 63, DOMAIN + "y" * 255, DOMAIN + "y" * 256,
    DOMAIN + "y" * 255 + ":latest", "a/" + "b" * 253, "a/" + "b" * 254, "Reg.Example.com/app", "reg.example.com/App",
    "index.docker.io/nginx", "localhost/app", "localhost:5000/app:latest", "app:Latest", "app:", "[::1]:5000/app",
    "a.example.com", "a..b/c", "app:" + "t" * 128, "app:" + "t" * 129,
    # go-digest's Validate: a registered algorithm (sha256, sha384, sha512) of its length, lower-case hex.
    "app:latest@sha256:" + "A" * 64, "app:latest@sha256:" + "a" * 64, "app:latest@md5:" + "a" * 32,
    "app:latest@sha512:" + "a" * 64, "app:latest@sha512:" + "a" * 128, "app:latest@sha384:" + "a" * 96,
    "app:latest@sha256:" + "a" * 65,
]


def prepare(send: Send) -> None:
    send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": NAMESPACE}}).encode(), JSON)


def answer(send: Send) -> dict[str, Any]:
    """The pod's status, and each image's defaulted pull policy (or the refusal's message)."""
    containers = [{"name": f"c{i}", "image": image} for i, image in enumerate(IMAGES)]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pulls"}, "spec": {"containers": containers}}
    status, body, _ = send("POST", f"/api/v1/namespaces/{NAMESPACE}/pods?dryRun=All", json.dumps(pod).encode(), JSON)
    if status != 201:
        return {"status": status, "message": body.get("message") if isinstance(body, dict) else body}
    return {"status": status, "policies": {c["image"]: c["imagePullPolicy"] for c in body["spec"]["containers"]}}


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    prepare(send)
    recorded = answer(send)
    with open(FIXTURE, "w") as f:
        json.dump(recorded, f, indent=1, sort_keys=True)
        f.write("\n")
    print(recorded["status"], len(recorded.get("policies", {})), "images")


if __name__ == "__main__":
    main(sys.argv[1])
