"""The core/v1 printers (Pods aside) against the cells a real kube-apiserver 1.36.2 printed for the same objects."""

from __future__ import annotations

import pytest
from columns_golden import cells

from columns import core
from columns.base import RenderedCell


def service(spec: dict[str, object], ingress: list[dict[str, str]] | None = None) -> list[RenderedCell]:
    return cells(core.SERVICES, {"spec": spec, "status": {"loadBalancer": {"ingress": ingress or []}}})


def test_service_external_ips() -> None:
    assert service({"type": "LoadBalancer"})[3] == "<pending>"
    assert service({"type": "LoadBalancer"}, [{"hostname": "b.example"}, {"ip": "1.2.3.4"}])[3] == \
        "1.2.3.4,b.example"
    assert service({"type": "LoadBalancer", "externalIPs": ["9.9.9.9"]}, [{"ip": "1.2.3.4"}])[3] == \
        "1.2.3.4,9.9.9.9"
    assert service({"type": "NodePort", "externalIPs": ["9.9.9.9", "8.8.8.8"]})[3] == "9.9.9.9,8.8.8.8"
    assert service({"type": "Weird"})[3] == "<unknown>"
    assert service({"type": "ClusterIP", "clusterIP": "10.0.0.1"})[2] == "10.0.0.1"


def endpoints(subsets: list[dict[str, object]]) -> object:
    return cells(core.ENDPOINTS, {"subsets": subsets})[1]


def test_endpoints_show_three_then_count_the_rest() -> None:
    addresses = [{"ip": f"10.0.0.{i}"} for i in range(1, 4)] + [{"ip": "fd00::1"}]
    assert endpoints([{"addresses": addresses, "ports": [{"port": 80}, {"port": 443}]}]) == \
        "10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 5 more..."
    assert endpoints([{"addresses": addresses[3:], "ports": [{"port": 80}]}]) == "[fd00::1]:80"
    assert endpoints([{"addresses": addresses[:2]}]) == "10.0.0.1,10.0.0.2"  # headless, no ports
    assert endpoints([]) == "<none>"


def test_node_roles_and_unknown_status() -> None:
    node = {"metadata": {"labels": {"kubernetes.io/role": "infra", "node-role.kubernetes.io/": "",
                                    "node-role.kubernetes.io/edge": ""}}}
    row = cells(core.NODES, node)
    assert row[1:3] == ["Unknown", "edge,infra"]
    assert row[5:] == ["<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"]


def _node(labels: dict[str, str] | None = None, conditions: list[dict[str, str]] | None = None,
          unschedulable: bool | None = None, **status: object) -> dict[str, object]:
    meta: dict[str, object] = {"name": "n", "creationTimestamp": "2033-05-18T02:33:20Z"}
    if labels is not None:
        meta["labels"] = labels
    node: dict[str, object] = {"metadata": meta}
    if unschedulable is not None:
        node["spec"] = {"unschedulable": unschedulable}
    if conditions is not None or status:
        node["status"] = {**({"conditions": conditions} if conditions is not None else {}), **status}
    return node


_READY = {"type": "Ready", "status": "True"}
_INFO = {"kubeletVersion": "v1.36.2", "osImage": "Debian GNU/Linux 12 (bookworm)", "kernelVersion": "6.1.0-27-amd64",
         "architecture": "amd64", "containerRuntimeVersion": "containerd://2.1.4"}

# printNode's paths: STATUS is the Ready condition (the last of that type wins), else Unknown, then
# SchedulingDisabled; ROLES from both label forms, sorted, without empty roles; wide cells fall back to
# <none> (addresses) and <unknown> (node info), the kernel followed by the architecture when one is reported.
NODE_CASES: list[tuple[str, dict[str, object], list[object]]] = [
    ("a node without status", _node(),
     ["n", "Unknown", "<none>", "60m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"]),
    ("ready", _node(conditions=[{"type": "MemoryPressure", "status": "False"}, _READY]),
     ["n", "Ready", "<none>", "60m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"]),
    ("not ready: False", _node(conditions=[{"type": "Ready", "status": "False"}]),
     ["n", "NotReady", "<none>", "60m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"]),
    ("not ready: Unknown status", _node(conditions=[{"type": "Ready", "status": "Unknown"}]),
     ["n", "NotReady", "<none>", "60m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"]),
    ("the last Ready condition wins", _node(conditions=[_READY, {"type": "Ready", "status": "False"}]),
     ["n", "NotReady", "<none>", "60m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"]),
    ("other conditions alone leave it Unknown", _node(conditions=[{"type": "DiskPressure", "status": "True"}]),
     ["n", "Unknown", "<none>", "60m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"]),
    ("cordoned and ready", _node(conditions=[_READY], unschedulable=True),
     ["n", "Ready,SchedulingDisabled", "<none>", "60m", "", "<none>", "<none>", "<unknown>", "<unknown>",
      "<unknown>"]),
    ("cordoned without status", _node(unschedulable=True),
     ["n", "Unknown,SchedulingDisabled", "<none>", "60m", "", "<none>", "<none>", "<unknown>", "<unknown>",
      "<unknown>"]),
    ("several roles, both label forms, sorted and deduplicated",
     _node(labels={"node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/control-plane": "true",
                   "kubernetes.io/role": "worker", "node-role.kubernetes.io/": "", "kubernetes.io/hostname": "n"}),
     ["n", "Unknown", "control-plane,worker", "60m", "", "<none>", "<none>", "<unknown>", "<unknown>",
      "<unknown>"]),
    ("an empty kubernetes.io/role is no role", _node(labels={"kubernetes.io/role": ""}),
     ["n", "Unknown", "<none>", "60m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"]),
    ("a full node, first address of each type",
     _node(conditions=[_READY], nodeInfo=_INFO,
           addresses=[{"type": "Hostname", "address": "n"}, {"type": "InternalIP", "address": "10.0.0.1"},
                      {"type": "InternalIP", "address": "10.0.0.2"}, {"type": "ExternalIP", "address": "1.2.3.4"}]),
     ["n", "Ready", "<none>", "60m", "v1.36.2", "10.0.0.1", "1.2.3.4", "Debian GNU/Linux 12 (bookworm)",
      "6.1.0-27-amd64 (amd64)", "containerd://2.1.4"]),
    ("a kernel without an architecture", _node(nodeInfo={"kernelVersion": "6.1.0"}),
     ["n", "Unknown", "<none>", "60m", "", "<none>", "<none>", "<unknown>", "6.1.0", "<unknown>"]),
    ("an architecture without a kernel", _node(nodeInfo={"architecture": "arm64"}),
     ["n", "Unknown", "<none>", "60m", "", "<none>", "<none>", "<unknown>", "<unknown> (arm64)", "<unknown>"]),
]


@pytest.mark.parametrize(("case", "node", "expected"), NODE_CASES, ids=[c[0] for c in NODE_CASES])
def test_node_rows(case: str, node: dict[str, object], expected: list[object]) -> None:
    assert cells(core.NODES, node) == expected


def test_replication_controller_without_a_template() -> None:
    rc = {"metadata": {"name": "rc"}, "spec": {"replicas": 2}, "status": {"replicas": 1}}
    assert cells(core.REPLICATION_CONTROLLERS, rc)[:4] == ["rc", 2, 1, 0]
    assert cells(core.REPLICATION_CONTROLLERS, rc)[5:] == ["", "", "<none>"]


def test_resource_quota_splits_limits_and_sorts_by_resource() -> None:
    quota = {"status": {"hard": {"pods": "10", "limits.memory": "2048Mi", "limits": "1", "requests.cpu": "500m"},
                        "used": {"limits.memory": "1Gi", "pods": 3}}}
    assert cells(core.RESOURCE_QUOTAS, quota)[1:3] == ["limits: 0/1, pods: 3/10, requests.cpu: 0/500m",
                                                       "limits.memory: 1Gi/2Gi"]


def test_component_status_without_a_healthy_condition_is_unknown() -> None:
    status = {"metadata": {"name": "etcd-1"},
              "conditions": [{"type": "Other", "status": "True"},
                             {"type": "Healthy", "status": "False", "message": "m", "error": "refused"}]}
    assert cells(core.COMPONENT_STATUSES, status) == ["etcd-1", "Unhealthy", "m", "refused"]
    assert cells(core.COMPONENT_STATUSES, {"conditions": [{"type": "Other"}]}) == ["", "Unknown", "", ""]
