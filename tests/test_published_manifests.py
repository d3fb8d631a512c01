"""Manifests in the image of what well-known projects publish (tests/manifests/, written for these
tests) apply with kubectl as on kube-apiserver 1.36, and every object they declare is there after."""

from __future__ import annotations

import os

import pytest
from support import ServerProcess, run_kubectl

MANIFESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "manifests")


@pytest.mark.parametrize("name", sorted(os.listdir(MANIFESTS)))
def test_manifest_applies_and_every_object_is_served(server: ServerProcess, name: str) -> None:
    path = os.path.join(MANIFESTS, name)
    applied = run_kubectl(server, "apply", "-f", path).stdout.splitlines()
    with open(path) as f:
        declared = sum(1 for line in f if line.startswith("kind: "))
    assert len(applied) == declared and all(line.endswith(" created") for line in applied), applied
    versions = run_kubectl(server, "get", "-f", path, "-o", "jsonpath={.items[*].metadata.resourceVersion}").stdout
    assert len(versions.split()) == declared
    # Applying again writes nothing. kubectl may still send a patch (and say "configured") where the
    # server defaulted what the manifest leaves out of a list or a retained-keys struct, as on a real cluster.
    run_kubectl(server, "apply", "-f", path)
    assert run_kubectl(server, "get", "-f", path, "-o", "jsonpath={.items[*].metadata.resourceVersion}").stdout \
        == versions
