"""LoadBalancer Services get addresses from `--load-balancer-ip-range`, as a cloud provider's service
controller gives them: a cleanup finalizer, the ingress IP, upstream's events; the address is freed when
the Service stops wanting one, and a Service that found none free gets the next one freed."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Iterator

import pytest
from support import ServerProcess, run_kubectl, wait_for

from apiserver.controllers.base import ControllerSettings

FINALIZER = "service.kubernetes.io/load-balancer-cleanup"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # A range of two usable addresses, so that running out is quick to reach.
    with ServerProcess(str(tmp_path_factory.mktemp("lb")),
                       extra_args=["--controllers=*", "--load-balancer-ip-range", "127.0.250.0/30"]) as proc:
        yield proc


def service(server: ServerProcess, name: str) -> Any:
    found = run_kubectl(server, "get", "service", name, "-o", "json", check=False)
    return json.loads(found.stdout) if found.returncode == 0 else None


def address(server: ServerProcess, name: str) -> str | None:
    ingress = ((service(server, name) or {}).get("status", {}).get("loadBalancer") or {}).get("ingress") or []
    return ingress[0]["ip"] if ingress else None


def test_the_default_range_is_on_the_loopback_network() -> None:
    printed = subprocess.run([sys.executable, "-m", "apiserver", "--help"], capture_output=True, text=True,
                             check=True).stdout
    assert "--load-balancer-ip-range CIDR" in printed
    assert ControllerSettings().load_balancer_ip_range == "127.0.240.0/24"


def test_load_balancers_get_addresses_and_give_them_back(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "service", "loadbalancer", "shop", "--tcp=80:8080")
    assert wait_for("shop's address", lambda: address(cluster, "shop")) == "127.0.250.1"
    shop = service(cluster, "shop")
    assert shop["metadata"]["finalizers"] == [FINALIZER]
    assert shop["status"]["loadBalancer"]["ingress"] == [{"ip": "127.0.250.1", "ipMode": "VIP"}]
    printed = run_kubectl(cluster, "get", "service", "shop", "--no-headers").stdout.split()
    assert printed[1:4] == ["LoadBalancer", printed[2], "127.0.250.1"]
    events = run_kubectl(cluster, "get", "events", "--field-selector", "involvedObject.name=shop").stdout
    assert "EnsuringLoadBalancer" in events and "Ensured load balancer" in events

    run_kubectl(cluster, "create", "service", "loadbalancer", "blog", "--tcp=80:8080")
    assert wait_for("blog's address", lambda: address(cluster, "blog")) == "127.0.250.2"
    run_kubectl(cluster, "create", "service", "loadbalancer", "wiki", "--tcp=80:8080")
    assert wait_for("the failure event", lambda: "no address left in 127.0.250.0/30" in run_kubectl(
        cluster, "get", "events", "--field-selector", "involvedObject.name=wiki").stdout)
    assert address(cluster, "wiki") is None
    assert run_kubectl(cluster, "get", "service", "wiki", "--no-headers").stdout.split()[3] == "<pending>"

    # blog no longer wants one: its address goes back, to the service that waited.
    run_kubectl(cluster, "patch", "service", "blog", "-p", json.dumps({"spec": {"type": "NodePort"}}))
    assert wait_for("wiki's address", lambda: address(cluster, "wiki")) == "127.0.250.2"
    blog = service(cluster, "blog")
    assert "finalizers" not in blog["metadata"] and blog["status"]["loadBalancer"] == {}

    run_kubectl(cluster, "delete", "service", "shop")  # waits for the finalizer to go
    assert service(cluster, "shop") is None
    assert "DeletedLoadBalancer" in run_kubectl(cluster, "get", "events").stdout


def test_a_requested_address_in_the_range_is_given(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "service", "loadbalancer", "pinned", "--tcp=80:8080")
    run_kubectl(cluster, "patch", "service", "pinned", "-p", json.dumps({"spec": {"loadBalancerIP": "127.0.250.1"}}))
    assert wait_for("the pinned address", lambda: address(cluster, "pinned")) == "127.0.250.1"


def test_a_service_with_a_load_balancer_class_is_left_to_its_controller(cluster: ServerProcess) -> None:
    manifest = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "classy"},
                "spec": {"type": "LoadBalancer", "loadBalancerClass": "example.com/lb",
                         "ports": [{"port": 80}], "selector": {"app": "x"}}}
    run_kubectl(cluster, "create", "-f", "-", stdin=json.dumps(manifest))
    run_kubectl(cluster, "create", "service", "clusterip", "after", "--tcp=80:80")  # a later change, seen after it
    wait_for("after exists", lambda: service(cluster, "after"))
    classy = service(cluster, "classy")
    assert "finalizers" not in classy["metadata"] and address(cluster, "classy") is None


def test_a_deployment_exposed_on_simulated_nodes_gets_a_default_address(tmp_path: Any) -> None:
    with ServerProcess(str(tmp_path), extra_args=["--controllers=*", "--simulate-nodes", "3"]) as server:
        run_kubectl(server, "create", "deployment", "front", "--image=nginx", "--replicas=2")
        run_kubectl(server, "expose", "deployment", "front", "--type=LoadBalancer", "--port=80")
        assert wait_for("front's address", lambda: address(server, "front")) == "127.0.240.1"
        run_kubectl(server, "rollout", "status", "deployment/front", "--timeout=60s")
        printed = run_kubectl(server, "get", "service", "front", "--no-headers").stdout.split()
        assert printed[1] == "LoadBalancer" and printed[3] == "127.0.240.1"
