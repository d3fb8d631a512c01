"""Resources answered without being stored: who the caller is, and the component statuses."""

from __future__ import annotations

import json
import re

from support import ServerProcess, run_kubectl


def test_kubectl_auth_whoami(server: ServerProcess) -> None:
    got = json.loads(run_kubectl(server, "auth", "whoami", "-o", "json").stdout)
    # Upstream's REST stamps the review with the time it was made.
    created = got["metadata"].pop("creationTimestamp")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", created)
    assert got == {"kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1", "metadata": {},
                   "status": {"userInfo": {"username": "admin", "uid": "admin",
                                           "groups": ["system:masters", "system:authenticated"]}}}


def test_a_self_subject_review_that_is_not_one_is_400(server: ServerProcess) -> None:
    status, answer = server.json("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                                 {"kind": "TokenReview", "apiVersion": "authentication.k8s.io/v1"})
    assert status == 400 and answer["reason"] == "BadRequest"


def test_component_statuses_as_a_server_with_an_embedded_store(server: ServerProcess) -> None:
    status, got = server.json("GET", "/api/v1/componentstatuses")
    assert status == 200 and got["kind"] == "ComponentStatusList"
    by_name = {item["metadata"]["name"]: item["conditions"] for item in got["items"]}
    assert by_name["etcd-0"] == [{"type": "Healthy", "status": "True", "message": "ok"}]
    # Nothing listens on the controller manager's and scheduler's ports in a test.
    for name, port in (("controller-manager", 10257), ("scheduler", 10259)):
        [condition] = by_name[name]
        assert condition["status"] == "False"
        assert condition["message"] == (f'Get "https://127.0.0.1:{port}/healthz": dial tcp 127.0.0.1:{port}: '
                                        "connect: connection refused")


def test_subresources_discovery_lists_but_this_server_does_not_carry_out_are_404(server: ServerProcess) -> None:
    for method, path in (("POST", "/api/v1/namespaces/default/serviceaccounts/default/token"),
                         ("GET", "/api/v1/namespaces/default/pods/absent/log")):
        status, answer = server.json(method, path, {} if method == "POST" else None)
        assert (status, answer["reason"]) == (404, "NotFound")
    # Served subresources still refuse the verbs discovery does not list for them.
    status, answer = server.json("POST", "/api/v1/namespaces/default/status", {})
    assert status == 405
