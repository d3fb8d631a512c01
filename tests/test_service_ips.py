"""Cluster IPs are held by IPAddress objects, as kube-apiserver 1.36's allocator keeps them."""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from support import ServerProcess, run_kubectl

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
    # the empty core group is left out, as Go writes the omitempty string (kube-apiserver 1.36.2 does)
    assert address["spec"] == {"parentRef": {"resource": "services", "namespace": "default",
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


def test_the_service_range_flag_places_every_address(tmp_path: object) -> None:
    """kube-apiserver's --service-cluster-ip-range, as test/cmd runs it: the `kubernetes` Service takes the
    first address, the default ServiceCIDR names the range, dynamic addresses come from above the first
    sixteen, which stay free for the ones clients ask for (kubectl create service --clusterip)."""
    with ServerProcess(str(tmp_path), extra_args=["--service-cluster-ip-range=10.0.0.0/24"]) as server:
        status, kubernetes = server.json("GET", f"{SERVICES}/kubernetes")
        assert status == 200 and kubernetes["spec"]["clusterIPs"] == ["10.0.0.1"]
        status, cidr = server.json("GET", "/apis/networking.k8s.io/v1/servicecidrs/kubernetes")
        assert status == 200 and cidr["spec"]["cidrs"] == ["10.0.0.0/24"]
        run_kubectl(server, "create", "service", "clusterip", "asked", "--tcp=80", "--clusterip=10.0.0.12")
        assert server.json("GET", f"{SERVICES}/asked")[1]["spec"]["clusterIP"] == "10.0.0.12"
        for i in range(5):
            run_kubectl(server, "create", "service", "clusterip", f"dynamic-{i}", "--tcp=80")
            ip = ipaddress.ip_address(server.json("GET", f"{SERVICES}/dynamic-{i}")[1]["spec"]["clusterIP"])
            assert ipaddress.ip_address("10.0.0.17") <= ip <= ipaddress.ip_address("10.0.0.254")
        out = run_kubectl(server, "create", "service", "clusterip", "outside", "--tcp=80",
                          "--clusterip=10.96.0.10", check=False)
        assert out.returncode == 1
        # The reference's words: no allocator of any ServiceCIDR holds the address (the MetaAllocator's).
        assert ('spec.clusterIPs: Invalid value: ["10.96.0.10"]: failed to allocate IP 10.96.0.10: the provided '
                "network does not match the current range" in out.stderr)


def test_a_full_range_is_refused(tmp_path: object) -> None:
    with ServerProcess(str(tmp_path), extra_args=["--service-cluster-ip-range=10.1.0.0/28"]) as server:
        # 14 addresses, the first held by the kubernetes Service; no reserved band in a range this small
        for i in range(13):
            status, svc = server.json("POST", SERVICES, {"metadata": {"name": f"s{i}"}, "spec": {"ports": [{"port": 80}]}})
            assert status == 201, svc
        status, refused = server.json("POST", SERVICES, {"metadata": {"name": "one-too-many"},
                                                         "spec": {"ports": [{"port": 80}]}})
        assert status == 500
        assert refused["message"] == ('Internal error occurred: failed to allocate a serviceIP for Service '
                                      '"one-too-many": range is full')


def test_an_assigned_cluster_ip_may_not_change(shared_server: ServerProcess) -> None:
    """validateUpgradeDowngradeClusterIPs, as kubectl apply meets it (headless, then an address); the
    message is kube-apiserver 1.36.2's for the same two applies. --force deletes and recreates."""
    headless = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "revised"},
                "spec": {"clusterIP": "None", "selector": {"app": "test"}, "ports": [{"port": 80}]}}
    run_kubectl(shared_server, "apply", "-f", "-", stdin=json.dumps(headless))
    headless["spec"]["clusterIP"] = "10.96.0.12"
    out = run_kubectl(shared_server, "apply", "-f", "-", stdin=json.dumps(headless), check=False)
    assert out.returncode == 1
    assert 'spec.clusterIPs[0]: Invalid value: ["10.96.0.12"]: may not change once set' in out.stderr
    run_kubectl(shared_server, "apply", "--force", "-f", "-", stdin=json.dumps(headless))
    assert shared_server.json("GET", f"{SERVICES}/revised")[1]["spec"]["clusterIPs"] == ["10.96.0.12"]


def test_leaving_load_balancer_drops_what_only_it_used(shared_server: ServerProcess) -> None:
    """Upstream's dropTypeDependentFields: the node ports, health-check node port,
    allocateLoadBalancerNodePorts and externalTrafficPolicy a LoadBalancer had, which the patch left as
    they were, are gone once it is a ClusterIP Service (the spec's keys as kube-apiserver 1.36.2 kept
    them for the same two patches)."""
    run_kubectl(shared_server, "create", "service", "loadbalancer", "shop", "--tcp=80:8080")
    run_kubectl(shared_server, "patch", "service", "shop", "-p",
                json.dumps({"spec": {"externalTrafficPolicy": "Local"}}))
    run_kubectl(shared_server, "patch", "service", "shop", "-p", json.dumps({"spec": {"type": "ClusterIP"}}))
    svc = json.loads(run_kubectl(shared_server, "get", "service", "shop", "-o", "json").stdout)
    assert sorted(svc["spec"]) == ["clusterIP", "clusterIPs", "internalTrafficPolicy", "ipFamilies",
                                   "ipFamilyPolicy", "ports", "selector", "sessionAffinity", "type"]
    assert [sorted(port) for port in svc["spec"]["ports"]] == [["name", "port", "protocol", "targetPort"]]
    assert svc["status"] == {"loadBalancer": {}}
    run_kubectl(shared_server, "delete", "service", "shop")


def test_a_load_balancer_gets_its_health_check_port_and_its_status_is_warned_of(
        shared_server: ServerProcess) -> None:
    """allocateUpdate's health-check node port when a LoadBalancer turns to Local traffic, and the status
    strategy's WarningsOnUpdate for ingress IPs (the warning as kube-apiserver 1.36.2 words it)."""
    run_kubectl(shared_server, "create", "service", "loadbalancer", "edge", "--tcp=80")
    run_kubectl(shared_server, "patch", "service", "edge", "-p",
                json.dumps({"spec": {"externalTrafficPolicy": "Local"}}))
    spec = shared_server.json("GET", f"{SERVICES}/edge")[1]["spec"]
    assert 30000 <= spec["healthCheckNodePort"] <= 32767
    assert spec["healthCheckNodePort"] != spec["ports"][0]["nodePort"]
    out = run_kubectl(shared_server, "patch", "service", "edge", "--subresource=status", "-p",
                      json.dumps({"status": {"loadBalancer": {"ingress": [{"ip": "2001:0db8::1"}]}}}))
    assert ('Warning: status.loadBalancer.ingress[0]: IPv6 address "2001:0db8::1" should be in RFC 5952 '
            'canonical format ("2001:db8::1")') in out.stderr
    status = shared_server.json("GET", f"{SERVICES}/edge")[1]["status"]
    assert status == {"loadBalancer": {"ingress": [{"ip": "2001:0db8::1", "ipMode": "VIP"}]}}
    run_kubectl(shared_server, "delete", "service", "edge")


def test_an_ingress_status_is_warned_of_as_a_services(shared_server: ServerProcess) -> None:
    """The Ingress status strategy's WarningsOnUpdate is the Service's: the same words from kube-apiserver
    1.36.2 for `kubectl patch ingress --subresource=status`."""
    run_kubectl(shared_server, "create", "ingress", "front", "--default-backend=web:80")
    out = run_kubectl(shared_server, "patch", "ingress", "front", "--subresource=status", "--type=merge", "-p",
                      json.dumps({"status": {"loadBalancer": {"ingress": [{"ip": "2001:DB8:0::1"}, {"ip": "1.2.3.4"}]}}}))
    assert out.stderr.splitlines() == ['Warning: status.loadBalancer.ingress[0]: IPv6 address "2001:DB8:0::1" '
                                       'should be in RFC 5952 canonical format ("2001:db8::1")']
    run_kubectl(shared_server, "delete", "ingress", "front")


def test_a_dry_run_allocates_placeholders(shared_server: ServerProcess) -> None:
    """Upstream's dry-run allocators draw nothing: the range's own address, and node ports above the range
    (kube-apiserver 1.36.2 answers this create with the same values)."""
    out = run_kubectl(shared_server, "create", "service", "nodeport", "rehearsal", "--tcp=80", "--tcp=81",
                      "--dry-run=server", "-o", "json")
    spec = json.loads(out.stdout)["spec"]
    assert spec["clusterIPs"] == ["10.96.0.0"]
    assert [port["nodePort"] for port in spec["ports"]] == [32769, 32770]


def test_an_external_name_service_turned_cluster_ip_gets_an_address(shared_server: ServerProcess) -> None:
    """updateClusterIPs' first case, and the storage's Decorator hiding internalTrafficPolicy from an
    ExternalName Service (kube-apiserver 1.36.2 answers these patches with the same spec keys)."""
    run_kubectl(shared_server, "create", "service", "clusterip", "turning", "--tcp=80")
    out = run_kubectl(shared_server, "patch", "service", "turning", "-o", "json", "-p", json.dumps(
        {"spec": {"type": "ExternalName", "externalName": "x.example.com"}}))
    assert sorted(json.loads(out.stdout)["spec"]) == ["externalName", "ports", "selector", "sessionAffinity",
                                                      "type"]
    out = run_kubectl(shared_server, "patch", "service", "turning", "-o", "json", "-p", json.dumps(
        {"spec": {"type": "ClusterIP", "externalName": None}}))
    spec = json.loads(out.stdout)["spec"]
    assert spec["clusterIPs"] == [spec["clusterIP"]]
    assert ipaddress.ip_address(spec["clusterIP"]) in ipaddress.ip_network("10.96.0.0/12")
    assert (spec["ipFamilies"], spec["ipFamilyPolicy"]) == (["IPv4"], "SingleStack")
    # The allocator's transaction holds the new address by an IPAddress, as on create.
    status, address = shared_server.json("GET", f"{IPS}/{spec['clusterIP']}")
    assert status == 200 and address["spec"]["parentRef"]["name"] == "turning"
    run_kubectl(shared_server, "delete", "service", "turning")
    assert shared_server.json("GET", f"{IPS}/{spec['clusterIP']}")[0] == 404


def test_another_service_cidr_widens_what_is_allocated(tmp_path: object) -> None:
    """A ServiceCIDR of the cluster's family adds its addresses (MultiCIDRServiceAllocator, GA): one asked
    for there is taken, as the reference takes it, and new addresses come from it once the server's own
    range is full; one marked not Ready, or being deleted, adds nothing."""
    with ServerProcess(str(tmp_path), extra_args=["--service-cluster-ip-range=10.1.0.0/29"]) as server:
        def cidr(name: str, cidrs: list[str]) -> None:
            status, made = server.json("POST", "/apis/networking.k8s.io/v1/servicecidrs", {
                "apiVersion": "networking.k8s.io/v1", "kind": "ServiceCIDR", "metadata": {"name": name},
                "spec": {"cidrs": cidrs}})
            assert status == 201, made

        def service(name: str, ip: str | None = None) -> tuple[int, Any]:
            spec: dict[str, Any] = {"ports": [{"port": 80}]}
            if ip:
                spec["clusterIP"] = ip
            return server.json("POST", SERVICES, {"metadata": {"name": name}, "spec": spec})

        cidr("extra", ["10.200.0.0/30"])
        status, asked = service("asked", "10.200.0.2")
        assert (status, asked["spec"]["clusterIPs"]) == (201, ["10.200.0.2"])
        # 10.1.0.0/29 holds six addresses, the first the kubernetes Service's: five more, then extra's one left.
        taken = [service(f"s{i}")[1]["spec"]["clusterIP"] for i in range(6)]
        assert sorted(taken[:5]) == [f"10.1.0.{i}" for i in range(2, 7)] and taken[5] == "10.200.0.1"
        status, refused = service("full")
        assert status == 500 and "range is full" in refused["message"]
        cidr("unready", ["10.201.0.0/30"])
        status, marked = server.json("PATCH", "/apis/networking.k8s.io/v1/servicecidrs/unready/status", {
            "status": {"conditions": [{"type": "Ready", "status": "False", "reason": "Terminating",
                                       "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}},
            content_type="application/merge-patch+json")
        assert status == 200, marked
        status, refused = service("in-unready", "10.201.0.1")
        assert status == 422 and "the provided network does not match the current range" in refused["message"]
