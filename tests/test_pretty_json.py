"""kube-apiserver indents JSON for people: curl, Wget and browsers, or anyone asking `?pretty=true`
(negotiation's isPrettyPrint); programs such as kubectl get it compact."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from support import ServerProcess, unavailable


def _curl(server: ServerProcess, path: str, *extra: str) -> str:
    curl = shutil.which("curl") or unavailable("curl is not on PATH")
    done = subprocess.run([curl, "-sS", "--cacert", server.ca, "-H", f"Authorization: Bearer {server.token}",
                           *extra, server.url + path], capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_curl_gets_indented_json(shared_server: ServerProcess) -> None:
    body = _curl(shared_server, "/api/v1/namespaces/default")
    assert body.startswith('{\n  "kind": "Namespace",\n  "apiVersion": "v1",\n  "metadata": {\n    "name": "default"')
    assert body == json.dumps(json.loads(body), indent=2, ensure_ascii=False)  # no trailing newline, as Go


def test_errors_are_indented_too(shared_server: ServerProcess) -> None:
    body = _curl(shared_server, "/api/v1/namespaces/default/configmaps/absent")
    assert body == json.dumps(json.loads(body), indent=2)
    assert json.loads(body)["reason"] == "NotFound"


def test_a_subject_access_review_posted_by_curl(shared_server: ServerProcess) -> None:
    review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
              "spec": {"user": "someone", "resourceAttributes": {"verb": "get", "resource": "pods"}}}
    body = _curl(shared_server, "/apis/authorization.k8s.io/v1/subjectaccessreviews", "-XPOST",
                 "-H", "Content-Type: application/json", "-d", json.dumps(review))
    assert '\n  "status": {\n    "allowed": false' in body


@pytest.mark.parametrize(("agent", "query", "indented"), [
    ("kubectl/v1.36.2 (linux/amd64)", "", False),
    ("Wget/1.21", "", True),
    ("Mozilla/5.0 (X11)", "", True),
    ("curl/8.5.0", "?pretty=false", False),
    ("curl/8.5.0", "?pretty=nonsense", False),
    ("kubectl/v1.36.2", "?pretty=true", True),
    ("kubectl/v1.36.2", "?pretty=1", True),
])
def test_who_gets_indented_json(shared_server: ServerProcess, agent: str, query: str, indented: bool) -> None:
    body = _curl(shared_server, f"/api/v1/namespaces{query}", "-A", agent)
    assert body.startswith('{\n  "kind"') is indented
    assert json.loads(body)["kind"] == "NamespaceList"


def test_a_watch_stays_one_event_a_line(shared_server: ServerProcess) -> None:
    body = _curl(shared_server, "/api/v1/namespaces?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Ddefault")
    lines = body.splitlines()
    assert lines and all(json.loads(line)["type"] == "ADDED" for line in lines)


def test_a_refused_credential_is_indented_for_curl_too(shared_server: ServerProcess) -> None:
    curl = shutil.which("curl") or unavailable("curl is not on PATH")
    done = subprocess.run([curl, "-sS", "--cacert", shared_server.ca, "-H", "Authorization: Bearer wrong",
                           shared_server.url + "/api/v1/namespaces"], capture_output=True, text=True, timeout=30,
                          check=False)
    assert done.stdout.startswith('{\n  "kind": "Status"')
    assert json.loads(done.stdout)["code"] == 401
