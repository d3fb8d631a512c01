"""Cluster IPs are held by IPAddress objects, as kube-apiserver 1.36's allocator keeps them."""

from __future__ import annotations

from support import ServerProcess

SERVICES = "/api/v1/namespaces/default/services"
IPS = "/apis/networking.k8s.io/v1/ipaddresses"


def test_a_service_holds_its_cluster_ip_until_it_is_deleted(server: ServerProcess) -> None:
    status, svc = server.json("POST", SERVICES, {"metadata": {"name": "web"}, "spec": {"ports": [{"port": 80}]}})
    assert status == 201
    ip = svc["spec"]["clusterIP"]
    status, address = server.json("GET", f"{IPS}/{ip}")
    assert status == 200
    assert address["metadata"]["labels"] == {"ipaddress.kubernetes.io/ip-family": "IPv4",
                                             "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io"}
    assert address["spec"] == {"parentRef": {"group": "", "resource": "services", "namespace": "default",
                                             "name": "web"}}
    assert server.json("DELETE", f"{SERVICES}/web")[0] == 200
    assert server.json("GET", f"{IPS}/{ip}")[0] == 404
    # The `kubernetes` Service's address is held from the start.
    assert server.json("GET", f"{IPS}/10.96.0.1")[1]["spec"]["parentRef"]["name"] == "kubernetes"


def test_an_address_someone_holds_is_not_handed_out(server: ServerProcess) -> None:
    held = {"apiVersion": "networking.k8s.io/v1", "kind": "IPAddress", "metadata": {"name": "10.96.100.100"},
            "spec": {"parentRef": {"resource": "gateways", "namespace": "default", "name": "edge"}}}
    assert server.json("POST", IPS, held)[0] == 201
    status, answer = server.json("POST", SERVICES, {"metadata": {"name": "wants-it"},
                                                    "spec": {"clusterIP": "10.96.100.100", "ports": [{"port": 80}]}})
    assert status == 422
    assert answer["message"].endswith("failed to allocate IP 10.96.100.100: provided IP is already allocated")
    assert server.json("GET", f"{SERVICES}/wants-it")[0] == 404
