"""A smoke subset with every kubectl minor version beside the real binary (1.27 .. 1.33).

1.27 and 1.28 ask for aggregated discovery v2beta1 first and fall back to the per-group-version
documents on 406; later versions use v2. Both paths must lead kubectl to the same resources.
"""

from __future__ import annotations

import json

import pytest
import yaml

from support import ServerProcess, kubectl_versions, run_kubectl

# Once, on the embedded store: what each kubectl release sends and prints does not depend on the store.
pytestmark = pytest.mark.store_once

VERSIONS = kubectl_versions()


def test_versioned_kubectl_binaries_are_present() -> None:
    assert VERSIONS, "no kubectl.1.NN binaries beside kubectl"


@pytest.mark.parametrize("minor", sorted(VERSIONS))
def test_smoke(shared_server: ServerProcess, minor: str) -> None:
    binary = VERSIONS[minor]
    namespace = "smoke-" + minor.replace(".", "-")
    manifest = yaml.safe_dump_all([
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": namespace},
         "data": {"k": "v"}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": namespace},
         "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                  "template": {"metadata": {"labels": {"app": "web"}},
                               "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}}},
    ])
    run_kubectl(shared_server, "apply", "--validate=false", "-f", "-", stdin=manifest, binary=binary)
    cm = json.loads(run_kubectl(shared_server, "-n", namespace, "get", "cm", "cfg", "-o", "json",
                                binary=binary).stdout)
    assert cm["data"] == {"k": "v"}
    run_kubectl(shared_server, "-n", namespace, "label", "cm", "cfg", "smoke=yes", binary=binary)
    run_kubectl(shared_server, "-n", namespace, "scale", "deploy", "web", "--replicas=3", binary=binary)
    deploy = json.loads(run_kubectl(shared_server, "-n", namespace, "get", "deploy", "web", "-o", "json",
                                    binary=binary).stdout)
    assert deploy["spec"]["replicas"] == 3
    names = run_kubectl(shared_server, "-n", namespace, "get", "all", "-o", "name", binary=binary).stdout.split()
    assert "deployment.apps/web" in names
    run_kubectl(shared_server, "-n", namespace, "delete", "cm", "cfg", binary=binary)
    gone = run_kubectl(shared_server, "-n", namespace, "get", "cm", "cfg", binary=binary, check=False)
    assert gone.returncode == 1 and "not found" in gone.stderr
