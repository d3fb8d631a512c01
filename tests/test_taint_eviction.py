"""The taint eviction controller on a real server, as kube-controller-manager's: a pod bound to a node
whose `unreachable` taint was added long ago still gets its 300 seconds (counted from when the
controller finds it, not from the taint's timeAdded; test/cmd's drain entry binds pods to such a node),
a pod that tolerates a taint for a second goes after it, and one that does not tolerate it goes at once."""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest
from support import ServerProcess, run_kubectl, wait_for

LONG_AGO = "2020-01-01T00:00:00Z"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("taints")),
                       extra_args=["--controllers=-*,taint-eviction-controller"]) as proc:
        yield proc


def _pod(name: str, tolerations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"nodeName": "tainted", "containers": [{"name": "app", "image": "registry.example/app:1"}]}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def _marked(server: ServerProcess, name: str) -> bool:
    """Marked for deletion: a bound pod waits, deleting, for a kubelet this server does not run."""
    pod = json.loads(run_kubectl(server, "get", "pod", name, "-o", "json").stdout)
    return "deletionTimestamp" in pod["metadata"]


def test_pods_leave_a_tainted_node_after_their_own_grace(server: ServerProcess) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "tainted"},
            "spec": {"taints": [{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": LONG_AGO},
                                {"key": "dedicated", "value": "db", "effect": "NoExecute", "timeAdded": LONG_AGO}]}}
    run_kubectl(server, "create", "-f", "-", stdin=json.dumps(node))
    both_for_long = [{"key": "dedicated", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 3600}]
    for_a_second = [{"key": "dedicated", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 1}]
    pods = [_pod("stays", both_for_long), _pod("after-a-second", for_a_second), _pod("at-once")]
    run_kubectl(server, "create", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}))
    # Admission gave every pod the 300-second `unreachable` toleration; only `at-once` lacks one for `dedicated`.
    wait_for("the pod that tolerates nothing to be deleted", lambda: _marked(server, "at-once"))
    wait_for("the pod tolerating a second to be deleted", lambda: _marked(server, "after-a-second"))
    # Its taint was added years ago, yet the pod's 300 seconds are counted from now.
    assert not _marked(server, "stays")
    events = json.loads(run_kubectl(server, "get", "events", "-o", "json").stdout)["items"]
    marked = sorted(e["involvedObject"]["name"] for e in events if e["reason"] == "TaintManagerEviction")
    assert marked == ["after-a-second", "at-once"]


def test_a_taint_removed_cancels_the_scheduled_deletion(server: ServerProcess) -> None:
    run_kubectl(server, "taint", "node", "tainted", "dedicated:NoExecute-")
    run_kubectl(server, "taint", "node", "tainted", "node.kubernetes.io/unreachable:NoExecute-")

    def cancelled() -> bool:
        events = json.loads(run_kubectl(server, "get", "events", "-o", "json").stdout)["items"]
        return any(e["reason"] == "TaintManagerEviction" and e["involvedObject"]["name"] == "stays"
                   and e.get("message", e.get("note", "")).startswith("Cancelling deletion") for e in events)

    wait_for("the scheduled deletion of `stays` to be cancelled", cancelled)
    assert not _marked(server, "stays")
