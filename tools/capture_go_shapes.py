"""Records how Go's types shape what kube-apiserver stores and compares: a pointer to an empty struct
is kept (`lifecycle: {}`) and is not the same as none, so a Job's immutable pod template refuses it;
an empty map or slice is the same as none; a field without omitempty is written even when unset
(`sources: null`, a resourceFieldRef's `divisor: "0"`), and
managedFields are computed from the object as Go wrote it (`overhead: {}` owned as a leaf once its
empty podFixed is gone).

Usage: python tools/capture_go_shapes.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
The objects read back are made by `prepare` (once per server); every change is a dry run. An answer
keeps the status and a refusal's message, or the part of the object the case is about and the
fieldsV1 of its writer. tests/test_go_shapes.py holds ours to them (apiserver/kinds/goshape.py,
tools/omitempty_facts.py, apiserver/registry/batch/internal.py).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import capture_patch_decoding as patching

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "go_shapes.json")
Send = patching.Send

NAMESPACE = "goshape"
JSON = "application/json"
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
APPLY = "application/apply-patch+yaml"
_CORE = f"/api/v1/namespaces/{NAMESPACE}"
_APPS = f"/apis/apps/v1/namespaces/{NAMESPACE}"
_JOBS = f"/apis/batch/v1/namespaces/{NAMESPACE}/jobs"
_RUNTIME_CLASSES = "/apis/node.k8s.io/v1/runtimeclasses"
_CONTAINER = {"name": "c", "image": "registry.example.com/app:1"}


def _pod_spec(**extra: Any) -> dict[str, Any]:
    return {"containers": [{**_CONTAINER, **extra.pop("container", {})}], **extra}


def _template(**extra: Any) -> dict[str, Any]:
    return {"metadata": {"labels": {"app": "shape"}}, "spec": _pod_spec(**extra)}


def _job(name: str, suspend: bool) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"suspend": suspend, "template": {"spec": _pod_spec(restartPolicy="Never")}}}


# What prepare makes, each read back by a case: (path, object).
_MADE: list[tuple[str, dict[str, Any]]] = [
    (f"{_CORE}/podtemplates", {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "empty-structs"},
                               "template": _template(container={"lifecycle": {}, "securityContext": {}},
                                                     securityContext={"seLinuxOptions": {}}, affinity={},
                                                     nodeSelector={}, tolerations=[])}),
    (f"{_CORE}/podtemplates", {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "projected"},
                               "template": _template(volumes=[{"name": "a", "projected": {}},
                                                              {"name": "b", "projected": {"sources": []}}])}),
    (f"{_APPS}/deployments", {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "projected"},
                              "spec": {"selector": {"matchLabels": {"app": "shape"}},
                                       "template": _template(volumes=[{"name": "a", "projected": {}}])}}),
    (_RUNTIME_CLASSES, {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "goshape-overhead"},
                        "handler": "runc", "overhead": {"podFixed": {}}}),
    (_RUNTIME_CLASSES, {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "goshape-plain"},
                        "handler": "runc"}),
    (f"{_CORE}/pods", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "debugged"},
                       "spec": _pod_spec(automountServiceAccountToken=False)}),
    (_JOBS, _job("running", suspend=False)),
    (_JOBS, _job("suspended", suspend=True)),
]


def _pod(**extra: Any) -> bytes:
    """A pod without the service account's token volume, whose name is drawn at random."""
    spec = _pod_spec(automountServiceAccountToken=False, **extra)
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}).encode()


def _template_patch(**spec: Any) -> bytes:
    return json.dumps({"spec": {"template": {"spec": spec}}}).encode()


_CONTAINER_PATCH = {"containers": [{"name": "c", "lifecycle": {}}]}

# (name, method, path, body, content type, the part of the answer kept)
CASES: list[tuple[str, str, str, bytes | None, str, str]] = [
    ("pod template with empty structs read back", "GET", f"{_CORE}/podtemplates/empty-structs", None, JSON,
     "template"),
    ("pod template with projected volumes read back", "GET", f"{_CORE}/podtemplates/projected", None, JSON,
     "template"),
    ("deployment with a projected volume read back", "GET", f"{_APPS}/deployments/projected", None, JSON, "spec"),
    ("runtime class with empty podFixed read back", "GET", f"{_RUNTIME_CLASSES}/goshape-overhead", None, JSON,
     "overhead"),
    ("runtime class with empty podFixed created", "POST", f"{_RUNTIME_CLASSES}?dryRun=All",
     json.dumps({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "goshape-dry"},
                 "handler": "runc", "overhead": {"podFixed": {}}}).encode(), JSON, "overhead"),
    *[(f"runtime class gains an empty podFixed by {name}", "PATCH", f"{_RUNTIME_CLASSES}/goshape-plain?{query}",
       body, media, "overhead")
      for name, query, media, body in (
          ("merge patch", "dryRun=All", MERGE, b'{"overhead":{"podFixed":{}}}'),
          ("apply", "dryRun=All&fieldManager=shape", APPLY,
           (b'{"apiVersion":"node.k8s.io/v1","kind":"RuntimeClass","metadata":{"name":"goshape-plain"},'
            b'"handler":"runc","overhead":{"podFixed":{}}}')))],
    ("pod with a resourceFieldRef without divisor created", "POST", f"{_CORE}/pods?dryRun=All",
     _pod(container={"env": [{"name": "E", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}}]}), JSON,
     "spec"),
    ("pod with empty structs created", "POST", f"{_CORE}/pods?dryRun=All",
     _pod(container={"lifecycle": {}}, affinity={}, dnsConfig={}), JSON, "spec"),
    *[(f"running job {name}", "PATCH", f"{_JOBS}/running?dryRun=All", body, media, "spec")
      for name, body, media in (
          ("gains an empty lifecycle", json.dumps({"spec": {"template": {"spec": {"containers": [
              {**_CONTAINER, "lifecycle": {}}]}}}}).encode(), MERGE),
          ("gains an empty lifecycle by strategic merge", _template_patch(**_CONTAINER_PATCH), STRATEGIC),
          ("gains empty seLinuxOptions", _template_patch(securityContext={"seLinuxOptions": {}}), MERGE),
          ("gains an empty affinity", _template_patch(affinity={}), MERGE),
          ("gains an empty container securityContext", json.dumps({"spec": {"template": {"spec": {"containers": [
              {**_CONTAINER, "securityContext": {}}]}}}}).encode(), MERGE),
          ("gains an empty dnsConfig", _template_patch(dnsConfig={}), MERGE),
          ("gains an empty nodeSelector", _template_patch(nodeSelector={}), MERGE),
          ("gains empty tolerations", _template_patch(tolerations=[]), MERGE),
          ("gains empty resources", json.dumps({"spec": {"template": {"spec": {"containers": [
              {**_CONTAINER, "resources": {}}]}}}}).encode(), MERGE),
          ("gains empty labels", json.dumps({"spec": {"template": {"metadata": {"labels": {}}}}}).encode(), MERGE),
          ("gains an empty projected volume", _template_patch(volumes=[{"name": "a", "projected": {}}]), MERGE))],
    *[(f"suspended job {name}", "PATCH", f"{_JOBS}/suspended?dryRun=All", body, MERGE, "spec")
      for name, body in (
          ("gains an empty affinity", _template_patch(affinity={})),
          ("gains an empty node affinity", _template_patch(affinity={"nodeAffinity": {}})),
          ("gains an empty lifecycle", json.dumps({"spec": {"template": {"spec": {"containers": [
              {**_CONTAINER, "lifecycle": {}}]}}}}).encode()),
          ("gains empty resources", json.dumps({"spec": {"template": {"spec": {"containers": [
              {**_CONTAINER, "resources": {}}]}}}}).encode()))],
    *[(f"pod template with an ephemeral container setting {name} {verb}", method, path,
       json.dumps({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": target},
                   "template": _template(ephemeralContainers=[{"name": "e", "image": "busybox", **extra}])}).encode(),
       JSON, "template")
      for name, extra in (("an empty lifecycle", {"lifecycle": {}}), ("an empty readinessProbe", {"readinessProbe": {}}),
                          ("restartPolicy", {"restartPolicy": "Always"}), ("empty ports", {"ports": []}),
                          ("empty resizePolicy", {"resizePolicy": []}), ("empty resources", {"resources": {}}),
                          ("resources with empty limits", {"resources": {"limits": {}}}), ("empty env", {"env": []}))
      for verb, method, path, target in (
          ("created", "POST", f"{_CORE}/podtemplates?dryRun=All", "ephemeral"),
          ("updated", "PUT", f"{_CORE}/podtemplates/projected?dryRun=All", "projected"))
      # An update's empty lists and maps tagged omitempty are not kept to be judged (shaping drops them).
      if verb == "created" or not name.startswith(("empty", "resources"))],
    ("pod given an ephemeral container with an empty lifecycle", "PATCH",
     f"{_CORE}/pods/debugged/ephemeralcontainers?dryRun=All",
     json.dumps({"spec": {"ephemeralContainers": [{"name": "e", "image": "busybox", "lifecycle": {}}]}}).encode(),
     STRATEGIC, "spec"),
    ("job applied with an empty lifecycle", "PATCH", f"{_JOBS}/running?dryRun=All&fieldManager=shape&force=true",
     json.dumps({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "running"},
                 "spec": {"template": {"spec": {"containers": [{"name": "c", "lifecycle": {}}]}}}}).encode(),
     APPLY, "spec"),
]


def prepare(send: Send) -> None:
    send("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": NAMESPACE}}).encode(), JSON)
    # A pod is admitted only once its service account exists, which a controller would make a moment later.
    send("POST", f"{_CORE}/serviceaccounts", json.dumps({"apiVersion": "v1", "kind": "ServiceAccount",
                                                         "metadata": {"name": "default"}}).encode(), JSON)
    for path, obj in _MADE:
        status, body, _ = send("POST", path, json.dumps(obj).encode(), JSON)
        assert status in (201, 409), body


def _fields(reply: dict[str, Any]) -> Any:
    """The fieldsV1 of the object's writers, by manager and operation (times differ between servers)."""
    return {f"{entry.get('manager')} {entry.get('operation')}": entry.get("fieldsV1")
            for entry in (reply.get("metadata") or {}).get("managedFields") or ()}


def answer(send: Send, index: int) -> dict[str, Any]:
    _, method, path, body, content_type, part = CASES[index]
    status, reply, _ = send(method, path, body, content_type)
    if not isinstance(reply, dict) or reply.get("kind") == "Status":
        return {"status": status, "message": patching.masked(str((reply or {}).get("message")))}
    return {"status": status, part: reply.get(part, "<absent>"), "managedFields": _fields(reply)}


def main(kubeconfig: str) -> None:
    send = patching.sender(kubeconfig)
    prepare(send)
    patching.record(FIXTURE, {case[0]: answer(send, i) for i, case in enumerate(CASES)})


if __name__ == "__main__":
    main(sys.argv[1])
