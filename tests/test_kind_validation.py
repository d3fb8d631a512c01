"""422 Invalid for the built-in fields users get wrong most, with upstream's field paths and messages."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from support import ServerProcess, run_kubectl

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
       "spec": {"containers": [{"name": "app", "image": "app:1"}]}}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
              "spec": {"selector": {"matchLabels": {"app": "d"}},
                       "template": {"metadata": {"labels": {"app": "d"}},
                                    "spec": {"containers": [{"name": "app", "image": "app:1"}]}}}}
SERVICE = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}}


def _with(base: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    obj = copy.deepcopy(base)
    *parents, last = path.split(".")
    node: Any = obj
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    if value is _DELETE:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return obj


_DELETE = object()

CASES = [
    ("pod without containers", "/api/v1/namespaces/default/pods", _with(POD, "spec.containers", []),
     'Pod "p" is invalid: spec.containers: Required value',
     [("FieldValueRequired", "spec.containers", "Required value")]),
    ("container without image, and a name used twice", "/api/v1/namespaces/default/pods",
     _with(POD, "spec.containers", [{"name": "app", "image": "a"}, {"name": "app"}]),
     'Pod "p" is invalid: [spec.containers[1].image: Required value, spec.containers[1].name: Duplicate value: "app"]',
     [("FieldValueRequired", "spec.containers[1].image", "Required value"),
      ("FieldValueDuplicate", "spec.containers[1].name", 'Duplicate value: "app"')]),
    ("container port out of range", "/api/v1/namespaces/default/pods",
     _with(POD, "spec.containers.0.ports", [{"containerPort": 70000}]),
     ('Pod "p" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and '
      "65535, inclusive"),
     [("FieldValueInvalid", "spec.containers[0].ports[0].containerPort",
       "Invalid value: 70000: must be between 1 and 65535, inclusive")]),
    ("deployment selector that misses its template", "/apis/apps/v1/namespaces/default/deployments",
     _with(DEPLOYMENT, "spec.template.metadata.labels", {"app": "other"}),
     ('Deployment.apps "d" is invalid: spec.template.metadata.labels: Invalid value: '
      '{"app":"other"}: `selector` does not match template `labels`'),
     [("FieldValueInvalid", "spec.template.metadata.labels",
       'Invalid value: {"app":"other"}: `selector` does not match template `labels`')]),
    ("deployment without selector", "/apis/apps/v1/namespaces/default/deployments",
     _with(DEPLOYMENT, "spec.selector", _DELETE),
     # A nil selector picks nothing, so the template does not match it either (kube-apiserver 1.36.2's answer).
     ('Deployment.apps "d" is invalid: [spec.selector: Required value, spec.template.metadata.labels: '
      'Invalid value: {"app":"d"}: `selector` does not match template `labels`]'),
     [("FieldValueRequired", "spec.selector", "Required value"),
      ("FieldValueInvalid", "spec.template.metadata.labels",
       'Invalid value: {"app":"d"}: `selector` does not match template `labels`')]),
    ("service port zero", "/api/v1/namespaces/default/services", _with(SERVICE, "spec.ports.0.port", 0),
     ('Service "s" is invalid: [spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, '
      "spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive]"),
     [("FieldValueInvalid", "spec.ports[0].port", "Invalid value: 0: must be between 1 and 65535, inclusive"),
      ("FieldValueInvalid", "spec.ports[0].targetPort", "Invalid value: 0: must be between 1 and 65535, inclusive")]),
]


@pytest.mark.parametrize(("case", "path", "obj", "message", "causes"), CASES, ids=[c[0] for c in CASES])
def test_invalid_objects_are_refused(shared_server: ServerProcess, case: str, path: str, obj: dict[str, Any],
                                     message: str, causes: list[tuple[str, str, str]]) -> None:
    status, body = shared_server.json("POST", path, obj)
    assert status == 422, body
    assert body["reason"] == "Invalid"
    assert body["message"] == message
    assert [(c["reason"], c["field"], c["message"]) for c in body["details"]["causes"]] == causes


def test_a_jobs_selector_cannot_change(shared_server: ServerProcess) -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
           "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "a", "image": "a"}]}}}}
    status, created = shared_server.json("POST", "/apis/batch/v1/namespaces/default/jobs", job)
    assert status == 201
    uid = created["metadata"]["uid"]
    status, body = shared_server.json("PATCH", "/apis/batch/v1/namespaces/default/jobs/j",
                                      {"spec": {"selector": {"matchLabels": {"app": "mine"}}}},
                                      content_type="application/merge-patch+json")
    assert status == 422
    # Upstream validates the new job whole before comparing it with the old one (kube-apiserver 1.36.2's answer).
    selector = f'{{"matchLabels":{{"app":"mine","batch.kubernetes.io/controller-uid":"{uid}"}}}}'
    labels = (f'{{"batch.kubernetes.io/controller-uid":"{uid}","batch.kubernetes.io/job-name":"j",'
              f'"controller-uid":"{uid}","job-name":"j"}}')
    assert body["message"] == (
        f'Job.batch "j" is invalid: [spec.selector: Invalid value: {selector}: `selector` not auto-generated, '
        f"spec.template.metadata.labels: Invalid value: {labels}: `selector` does not match template `labels`, "
        f"spec.selector: Invalid value: {selector}: field is immutable]")


def test_a_storage_class_provisioner_cannot_change(shared_server: ServerProcess) -> None:
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "sc"},
          "provisioner": "example.com/a"}
    run_kubectl(shared_server, "apply", "-f", "-", stdin=json.dumps(sc))
    sc["provisioner"] = "example.com/b"
    out = run_kubectl(shared_server, "apply", "-f", "-", stdin=json.dumps(sc), check=False)
    assert out.returncode == 1
    # kube-apiserver 1.36.2's words (its ValidateImmutableField), no longer the older "Forbidden: updates to ...".
    assert 'The StorageClass "sc" is invalid: provisioner: Invalid value: "example.com/b": field is immutable' \
        in out.stderr


def test_a_deployments_selector_cannot_change(shared_server: ServerProcess) -> None:
    base = "/apis/apps/v1/namespaces/default/deployments"
    assert shared_server.json("POST", base, _with(DEPLOYMENT, "metadata.name", "fixed"))[0] == 201
    moved = {"spec": {"selector": {"matchLabels": {"app": "e"}}, "template": {"metadata": {"labels": {"app": "e"}}}}}
    status, body = shared_server.json("PATCH", f"{base}/fixed", moved, content_type="application/merge-patch+json")
    assert status == 422
    assert body["message"] == (
        'Deployment.apps "fixed" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"e"}}: '
        'field is immutable')
