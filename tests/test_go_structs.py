"""The internal Go structs as upstream's messages print them (apiserver/registry/core/go_structs.py):
json.Marshal without json tags, and diff.Diff's unified diff, held to messages kube-apiserver 1.36.2
wrote (recorded in validation_answers.json by tools/capture_validation.py)."""

from __future__ import annotations

import json
import os

import pytest

from apiserver.registry.core import go_structs

pytestmark = pytest.mark.store_once

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "validation_answers.json")) as _f:
    ANSWERS = json.load(_f)


def _diff_of(case: str) -> str:
    return str(ANSWERS[case]["message"]).split("\n", 1)[1]


def test_volume_source_diff_is_upstreams() -> None:
    old = go_structs.struct("PersistentVolumeSource", {"hostPath": {"path": "/data/pv", "type": ""}})
    new = go_structs.struct("PersistentVolumeSource", {"hostPath": {"path": "/data/other", "type": ""}})
    assert go_structs.diff(old, new) == _diff_of("pv-update-source")


def test_claim_spec_diff_is_upstreams() -> None:
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, "volumeMode": "Filesystem"}
    old = go_structs.struct("PersistentVolumeClaimSpec", spec)
    new = go_structs.struct("PersistentVolumeClaimSpec", {**spec, "accessModes": ["ReadWriteMany"]})
    assert go_structs.diff(old, new) == _diff_of("pvc-update-access-modes")


def test_pod_spec_keeps_host_namespaces_in_the_security_context() -> None:
    shown = go_structs.pod_spec({"hostNetwork": True, "containers": [], "securityContext": {"runAsUser": 5}})
    assert shown["SecurityContext"]["HostNetwork"] is True
    assert shown["SecurityContext"]["RunAsUser"] == 5
    assert list(shown)[:3] == ["Volumes", "InitContainers", "Containers"]


def test_marshal_escapes_as_go_does() -> None:
    assert go_structs.marshal_indent({"A": "<&>"}) == '{\n "A": "\\u003c\\u0026\\u003e"\n}'
