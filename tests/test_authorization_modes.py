"""kube-apiserver's --authorization-mode: authorizers tried in order, RBAC allowing or having no opinion,
AlwaysAllow allowing what reaches it (test/cmd runs RBAC,AlwaysAllow), AlwaysDeny refusing it."""

from __future__ import annotations

import os
import subprocess
import sys

from accounts import add_token
from support import REPO, ServerProcess, run_kubectl

SAR = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
       "spec": {"user": "bob", "groups": ["the-group"], "resourceAttributes": {
           "namespace": "ns", "verb": "create", "group": "autoscaling", "resource": "horizontalpodautoscalers"}}}


def _allowed(server: ServerProcess) -> bool:
    status, review = server.json("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", SAR)
    assert status == 201, review
    return review["status"]["allowed"]  # type: ignore[no-any-return]


def test_rbac_then_always_allow_allows_what_rbac_does_not(tmp_path: object) -> None:
    with ServerProcess(str(tmp_path), extra_args=["--authorization-mode=RBAC,AlwaysAllow"]) as server:
        assert _allowed(server)
        kubeconfig, _ = add_token(server, "viewer", "view")  # view grants no secrets: AlwaysAllow does
        out = run_kubectl(server, "--kubeconfig", kubeconfig, "auth", "can-i", "delete", "secrets", "-n", "kube-system")
        assert out.stdout.strip() == "yes"


def test_rbac_alone_refuses_what_no_binding_grants(shared_server: ServerProcess) -> None:
    assert not _allowed(shared_server)
    kubeconfig, _ = add_token(shared_server, "viewer", "view")
    out = run_kubectl(shared_server, "--kubeconfig", kubeconfig, "auth", "can-i", "delete", "secrets", check=False)
    assert out.stdout.strip() == "no"


def test_an_unknown_mode_is_refused_at_start() -> None:
    done = subprocess.run([sys.executable, "-m", "apiserver", "--authorization-mode=RBAC,Webhook", "--help"],
                          cwd=REPO, capture_output=True, text=True, timeout=30, check=False,
                          env={**os.environ, "PYTHONPATH": REPO})
    assert done.returncode == 2
    assert "not Webhook" in done.stderr
