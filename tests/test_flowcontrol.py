"""API priority and fairness configuration: the bootstrap objects, and FlowSchemas' Dangling condition."""

from __future__ import annotations

from typing import Any

from support import ServerProcess

FLOWCONTROL = "/apis/flowcontrol.apiserver.k8s.io/v1"


def _dangling(server: ServerProcess, name: str) -> dict[str, Any]:
    status, flow_schema = server.json("GET", f"{FLOWCONTROL}/flowschemas/{name}")
    assert status == 200
    [condition] = flow_schema["status"]["conditions"]
    assert condition["type"] == "Dangling"
    return condition  # type: ignore[no-any-return]


def test_a_flow_schema_dangles_until_its_level_exists(server: ServerProcess) -> None:
    body = {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema", "metadata": {"name": "batch"},
            "spec": {"priorityLevelConfiguration": {"name": "batch-level"}}}
    status, created = server.json("POST", f"{FLOWCONTROL}/flowschemas", body)
    assert status == 201 and created["spec"]["matchingPrecedence"] == 1000
    condition = _dangling(server, "batch")
    assert (condition["status"], condition["reason"], condition["message"]) == (
        "True", "NotFound", 'This FlowSchema references the PriorityLevelConfiguration object named "batch-level" '
        "but there is no such object")
    level = {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
             "metadata": {"name": "batch-level"},
             "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Reject"}}}}
    assert server.json("POST", f"{FLOWCONTROL}/prioritylevelconfigurations", level)[0] == 201
    assert (_dangling(server, "batch")["status"], _dangling(server, "batch")["reason"]) == ("False", "Found")
    assert server.json("DELETE", f"{FLOWCONTROL}/prioritylevelconfigurations/batch-level")[0] == 200
    assert _dangling(server, "batch")["status"] == "True"


def test_the_bootstrap_configuration_is_there_and_tables_list_it_in_matching_order(server: ServerProcess) -> None:
    status, table = server.json("GET", f"{FLOWCONTROL}/flowschemas",
                                headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    assert status == 200
    assert [row["cells"][0] for row in table["rows"]] == [
        "exempt", "probes", "system-leader-election", "system-node-high", "system-nodes", "kube-controller-manager",
        "kube-scheduler", "kube-system-service-accounts", "service-accounts", "global-default", "catch-all"]
    status, levels = server.json("GET", f"{FLOWCONTROL}/prioritylevelconfigurations")
    assert [item["metadata"]["name"] for item in levels["items"]] == [
        "catch-all", "exempt", "global-default", "leader-election", "node-high", "system", "workload-high",
        "workload-low"]
    assert all(_dangling(server, name)["status"] == "False" for name in ("exempt", "catch-all"))
