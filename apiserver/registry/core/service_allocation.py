"""A Service's cluster IP and node ports: allocated on create, kept across updates, released on delete
(pkg/registry/core/service/storage: BeginCreate, the allocators, AfterDelete).

Upstream allocates from the service CIDR (10.96.0.0/12 by default) and the node port range
30000-32767; a port or IP someone else holds is a 422. Pure functions over what is already taken.
Each allocated cluster IP is held by an IPAddress object named after it (as 1.36's allocator
keeps them); any IPAddress, whoever made it, takes its address out of the pool.
"""

from __future__ import annotations

import ipaddress
import random
from typing import Any, Iterable

from apiserver import errors
from apiserver.kinds.managedfields import KUBE_APISERVER
from apiserver.registry.hooks import Cluster, Request

SERVICE_CIDR = ipaddress.ip_network("10.96.0.0/12")
NODE_PORTS = range(30000, 32768)
_UNUSABLE = {SERVICE_CIDR.network_address, SERVICE_CIDR.broadcast_address}
# The first address is the `kubernetes` service's: never handed out dynamically, only when asked for.
_RESERVED = _UNUSABLE | {SERVICE_CIDR.network_address + 1}

Obj = dict[str, Any]


def taken(services: Iterable[Obj]) -> tuple[set[str], set[int]]:
    ips: set[str] = set()
    ports: set[int] = set()
    for svc in services:
        spec = svc.get("spec") or {}
        ips.update(ip for ip in spec.get("clusterIPs") or () if ip != "None")
        ports.update(int(p["nodePort"]) for p in spec.get("ports") or () if p.get("nodePort"))
    return ips, ports


# The IPAddress objects kube-apiserver's allocator keeps, one per allocated cluster IP.
IP_ADDRESSES = "networking.k8s.io/ipaddresses"
MANAGED_BY = {"ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io"}


def cluster_ips(svc: Obj) -> list[str]:
    return [ip for ip in (svc.get("spec") or {}).get("clusterIPs") or () if isinstance(ip, str) and ip != "None"]


def ip_address(ip: str, svc: Obj) -> Obj:
    """The IPAddress that holds a Service's cluster IP, as the allocator writes it."""
    family = "IPv6" if ":" in ip else "IPv4"
    meta = svc["metadata"]
    return {"apiVersion": "networking.k8s.io/v1", "kind": "IPAddress",
            "metadata": {"name": ip, "labels": {"ipaddress.kubernetes.io/ip-family": family, **MANAGED_BY}},
            "spec": {"parentRef": {"group": "", "resource": "services", "namespace": meta.get("namespace", ""),
                                   "name": meta.get("name", "")}}}


def held_by(address: Obj, svc: Obj) -> bool:
    ref = (address.get("spec") or {}).get("parentRef") or {}
    meta = svc["metadata"]
    return (ref.get("resource") == "services" and ref.get("namespace") == meta.get("namespace")
            and ref.get("name") == meta.get("name"))


def _needs_node_ports(spec: Obj) -> bool:
    kind = spec.get("type")
    return kind == "NodePort" or (kind == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts", True))


def allocate(svc: Obj, ips: set[str], ports: set[int]) -> None:
    """Fills in a new Service's IP families, cluster IP and node ports; 422 for ones already held."""
    spec = svc.setdefault("spec", {})
    problems: list[errors.FieldError] = []
    if spec.get("type") != "ExternalName":
        ip = spec.get("clusterIP") or (spec.get("clusterIPs") or [None])[0]
        if ip is None or ip == "":
            ip = _free_ip(ips)
        elif ip != "None":
            problems.extend(_check_ip(ip, ips))
        spec["clusterIP"] = ip
        spec["clusterIPs"] = [ip]
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")
    if _needs_node_ports(spec):
        for i, port in enumerate(spec.get("ports") or ()):
            requested = port.get("nodePort")
            if requested:
                problems.extend(_check_port(i, int(requested), ports))
                ports.add(int(requested))
            else:
                port["nodePort"] = _free_port(ports)
    if problems:
        raise errors.invalid("Service", "", str(svc["metadata"].get("name") or ""), problems)


def keep_allocated(new: Obj, old: Obj) -> None:
    """An update that leaves allocated values out keeps them (upstream's patchAllocatedValues)."""
    spec, old_spec = new.setdefault("spec", {}), old.get("spec") or {}
    if spec.get("type") == "ExternalName":
        return
    for key in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
        if key not in spec and key in old_spec:
            spec[key] = old_spec[key]
    if _needs_node_ports(spec):
        held = {(p.get("port"), p.get("protocol", "TCP")): p.get("nodePort") for p in old_spec.get("ports") or ()}
        for port in spec.get("ports") or ():
            previous = held.get((port.get("port"), port.get("protocol", "TCP")))
            if not port.get("nodePort") and previous:
                port["nodePort"] = previous


def _free_ip(ips: set[str]) -> str:
    while True:
        candidate = SERVICE_CIDR.network_address + random.randrange(SERVICE_CIDR.num_addresses)
        if candidate not in _RESERVED and str(candidate) not in ips:
            ips.add(str(candidate))
            return str(candidate)


def _check_ip(ip: str, ips: set[str]) -> list[errors.FieldError]:
    shown = f'[]string{{"{ip}"}}'
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return [errors.FieldError("FieldValueInvalid", "spec.clusterIPs[0]",
                                  f'Invalid value: "{ip}": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')]
    if address not in SERVICE_CIDR or address in _UNUSABLE:
        return [errors.FieldError("FieldValueInvalid", "spec.clusterIPs",
                                  f"Invalid value: {shown}: failed to allocate IP {ip}: the provided IP ({ip}) "
                                  f"is not in the valid range. The range of valid IPs is {SERVICE_CIDR}")]
    if ip in ips:
        return [errors.FieldError("FieldValueInvalid", "spec.clusterIPs",
                                  f"Invalid value: {shown}: failed to allocate IP {ip}: provided IP is already allocated")]
    ips.add(ip)
    return []


def _check_port(i: int, port: int, ports: set[int]) -> list[errors.FieldError]:
    path = f"spec.ports[{i}].nodePort"
    if port not in NODE_PORTS:
        return [errors.FieldError("FieldValueInvalid", path,
                                  f"Invalid value: {port}: provided port is not in the valid range. "
                                  f"The range of valid ports is {NODE_PORTS.start}-{NODE_PORTS.stop - 1}")]
    if port in ports:
        return [errors.FieldError("FieldValueInvalid", path, f"Invalid value: {port}: provided port is already allocated")]
    return []


def _free_port(ports: set[int]) -> int:
    free = [p for p in NODE_PORTS if p not in ports]
    port = random.choice(free)
    ports.add(port)
    return port


# -- the storage hooks ---------------------------------------------------------------------------

def begin_create(svc: Obj, request: Request, cluster: Cluster) -> int | None:
    """Allocates from what every Service and IPAddress holds; the revision that was read at, so the
    write fails if another server allocated meanwhile."""
    decided_at, held = cluster.listed("services")
    ips, ports = taken(held)
    ips.update(cluster.names(IP_ADDRESSES))
    allocate(svc, ips, ports)
    return decided_at


async def hold_cluster_ips(svc: Obj, cluster: Cluster, now: str) -> None:
    """The allocator's IPAddress objects, written before the Service as upstream's are."""
    for ip in cluster_ips(svc):
        await cluster.create(IP_ADDRESSES, ip_address(ip, svc), KUBE_APISERVER)


async def release_cluster_ips(svc: Obj, cluster: Cluster, now: str) -> None:
    for ip in cluster_ips(svc):
        await cluster.delete(IP_ADDRESSES, ip, lambda address: held_by(address, svc))
