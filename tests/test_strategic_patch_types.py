"""A strategic merge patch whose result does not fit the kind's Go types is refused in the words of
upstream's unstructured converter, as kube-apiserver's patch handler wraps them (a 422 naming the patch)."""

from __future__ import annotations

import pytest
from support import ServerProcess, run_kubectl


@pytest.fixture(scope="module")
def pod(shared_server: ServerProcess) -> str:
    run_kubectl(shared_server, "run", "patched", "--image=registry.example/app:1", "--labels=app=patched")
    return "patched"


def test_kubectl_patch_labels_with_a_string(shared_server: ServerProcess, pod: str) -> None:
    out = run_kubectl(shared_server, "patch", "pod", pod, "-p", '{"metadata":{"labels":"invalid"}}', check=False)
    assert out.returncode == 1
    assert out.stderr.strip() == ('The request is invalid: patch: Invalid value: "map[metadata:map[labels:invalid]]": '
                                  "cannot restore map from string")


@pytest.mark.parametrize(("patch", "field", "message"), [
    ({"spec": {"containers": {"name": "c"}}}, "map[spec:map[containers:map[name:c]]]", "cannot restore slice from map"),
    ({"spec": "none"}, "map[spec:none]", "cannot restore struct from: string"),
    ({"spec": {"activeDeadlineSeconds": "long"}}, "map[spec:map[activeDeadlineSeconds:long]]",
     "unrecognized type: int64"),
    ({"spec": {"hostname": 5}}, "map[spec:map[hostname:5]]", "cannot convert int64 to string"),
])
def test_the_converter_names_the_first_misfit(shared_server: ServerProcess, pod: str, patch: dict, field: str,
                                              message: str) -> None:
    status, refused = shared_server.json("PATCH", f"/api/v1/namespaces/default/pods/{pod}", patch,
                                         content_type="application/strategic-merge-patch+json")
    assert status == 422, refused
    assert refused["reason"] == "Invalid"
    assert refused["message"] == f' "" is invalid: patch: Invalid value: "{field}": {message}'
    assert refused["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "patch",
                                             "message": f'Invalid value: "{field}": {message}'}]


def test_a_merge_patch_keeps_the_json_decoder_words(shared_server: ServerProcess, pod: str) -> None:
    status, refused = shared_server.json("PATCH", f"/api/v1/namespaces/default/pods/{pod}",
                                         {"metadata": {"labels": "invalid"}},
                                         content_type="application/merge-patch+json")
    # kube-apiserver 1.36.2 (checked): a 422 naming the patched document, with the decoder's words
    assert (status, refused["reason"]) == (422, "Invalid"), refused
    assert refused["message"].startswith(' "" is invalid: patch: Invalid value: ')
    assert "cannot unmarshal string into Go struct field ObjectMeta.metadata.labels" in refused["message"]
