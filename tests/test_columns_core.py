"""The core/v1 printers (Pods aside) against the cells a real kube-apiserver 1.36.2 printed for the same objects."""

from __future__ import annotations

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
