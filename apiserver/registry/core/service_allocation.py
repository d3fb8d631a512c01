"""A Service's cluster IP and node ports: allocated on create, kept across updates, released on delete
(pkg/registry/core/service/storage: BeginCreate, the allocators, AfterDelete).

Upstream allocates from the service CIDR (kube-apiserver's --service-cluster-ip-range; 10.96.0.0/12
here, as kubeadm sets it) and the node port range 30000-32767; a port or IP someone else holds is a 422.
Pure functions over what is already taken. Each allocated cluster IP is held by an IPAddress object
named after it (as 1.36's allocator keeps them); any IPAddress, whoever made it, takes its address out
of the pool.
"""

from __future__ import annotations

import ipaddress
import json
import random
from dataclasses import dataclass
from typing import Any, Iterable

from apiserver import errors
from apiserver.kinds.managedfields import KUBE_APISERVER
from apiserver.registry.hooks import Cluster, Request

NODE_PORTS = range(30000, 32768)


@dataclass(frozen=True)
class ServiceRange:
    """The service CIDR as upstream's ipallocator splits it (KEP-3070): the first addresses (16 to 256,
    a sixteenth of the range) are kept for IPs that clients ask for, such as the `kubernetes` Service's
    first address; dynamic allocation takes from above them, and from below only when above is full."""

    cidr: ipaddress.IPv4Network | ipaddress.IPv6Network

    @classmethod
    def parse(cls, value: str) -> ServiceRange:
        cidr = ipaddress.ip_network(value, strict=False)
        if cidr.version == 6 and cidr.prefixlen < 64:
            raise ValueError(f"shortest allowed prefix length for service CIDR is 64, got {cidr.prefixlen}")
        if cidr.num_addresses < 4:
            raise ValueError(f"the service CIDR {cidr} holds no assignable address")
        return cls(cidr)

    @property
    def family(self) -> str:
        return "IPv6" if self.cidr.version == 6 else "IPv4"

    @property
    def first(self) -> str:
        """The first address, which kube-apiserver gives its own `kubernetes` Service."""
        return str(self.cidr.network_address + 1)

    @property
    def _last(self) -> int:
        # The broadcast address is not used in IPv4; in IPv6 it is an address like any other.
        return self.cidr.num_addresses - (2 if self.cidr.version == 4 else 1)

    @property
    def _offset(self) -> int:
        """calculateRangeOffset: min(max(16, size/16), 256), none for ranges of 16 addresses or fewer."""
        size = self.cidr.num_addresses
        return 0 if size <= 16 else min(max(16, size // 16), 256)

    def usable(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        index = int(address) - int(self.cidr.network_address)
        return address.version == self.cidr.version and 1 <= index <= self._last

    def free_ip(self, ips: set[str]) -> str | None:
        upper = self._free_between(ips, self._offset + 1, self._last)
        if upper is None and self._offset:
            return self._free_between(ips, 1, self._offset)
        return upper

    def _free_between(self, ips: set[str], low: int, high: int) -> str | None:
        """A random start, then every address in turn (upstream's ipIterator), so a full range is found full."""
        count = high - low + 1
        if count <= 0:
            return None
        start = random.randrange(count)
        base = self.cidr.network_address
        for step in range(min(count, len(ips) + 1)):
            candidate = str(base + low + (start + step) % count)
            if candidate not in ips:
                return candidate
        return None


DEFAULT_SERVICE_RANGE = ServiceRange(ipaddress.ip_network("10.96.0.0/12"))

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


def allocate(svc: Obj, ips: set[str], ports: set[int], service_range: ServiceRange = DEFAULT_SERVICE_RANGE) -> None:
    """Fills in a new Service's IP families, cluster IP and node ports; 422 for ones already held."""
    spec = svc.setdefault("spec", {})
    problems: list[errors.FieldError] = []
    if spec.get("type") != "ExternalName":
        ip = spec.get("clusterIP") or (spec.get("clusterIPs") or [None])[0]
        if ip is None or ip == "":
            ip = service_range.free_ip(ips)
            if ip is None:
                name = svc["metadata"].get("name") or ""
                raise errors.internal(f'failed to allocate a serviceIP for Service "{name}": range is full')
            ips.add(ip)
        elif ip != "None":
            problems.extend(_check_ip(ip, ips, service_range))
        spec["clusterIP"] = ip
        spec["clusterIPs"] = [ip]
        spec.setdefault("ipFamilies", [service_range.family])
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


def prepare_update(new: Obj, old: Obj) -> None:
    """An update's cluster IPs as upstream's service storage reads them (normalizeClusterIPs, then
    patchAllocatedValues); 422 when the primary one would change."""
    _normalize_cluster_ips(new.setdefault("spec", {}), old.get("spec") or {})
    keep_allocated(new, old)
    problems = _cluster_ip_changes(new["spec"], old.get("spec") or {})
    if problems:
        raise errors.invalid("Service", "", str(new["metadata"].get("name") or ""), problems)


def _normalize_cluster_ips(spec: Obj, old_spec: Obj) -> None:
    """What a client that sets only the singular clusterIP meant for the plural clusterIPs."""
    ip, old_ip = spec.get("clusterIP") or "", old_spec.get("clusterIP") or ""
    ips, old_ips = spec.get("clusterIPs") or [], old_spec.get("clusterIPs") or []
    if old_ips and not ips and old_ip == ip:
        spec["clusterIPs"] = ips = old_ips
    if old_ip != ip and ips == old_ips:
        if old_ip and not ip:
            spec.pop("clusterIPs", None)
        else:
            spec["clusterIPs"] = [ip]


def _headless(spec: Obj) -> bool:
    return spec.get("type", "ClusterIP") == "ClusterIP" and spec.get("clusterIPs") == ["None"]


def _cluster_ip_changes(spec: Obj, old_spec: Obj) -> list[errors.FieldError]:
    """validateUpgradeDowngradeClusterIPs: assigned cluster IPs may not change, unless to or from
    ExternalName (a second family's address may come and go: dual-stack is not served here)."""
    if "ExternalName" in (spec.get("type"), old_spec.get("type")) or (_headless(spec) and _headless(old_spec)):
        return []
    ips, old_ips = spec.get("clusterIPs") or [], old_spec.get("clusterIPs") or []
    shown = json.dumps(ips, separators=(",", ":"))
    if len(old_ips) == len(ips):
        return [errors.FieldError("FieldValueInvalid", f"spec.clusterIPs[{i}]",
                                  f"Invalid value: {shown}: may not change once set")
                for i, ip in enumerate(old_ips) if ip != ips[i]]
    if len(old_ips) > len(ips):
        if not ips:
            return [errors.FieldError("FieldValueInvalid", "spec.clusterIPs[0]",
                                      f"Invalid value: {shown}: primary clusterIP can not be unset")]
        if ips[0] != old_ips[0]:
            return [errors.FieldError("FieldValueInvalid", "spec.clusterIPs[0]",
                                      f"Invalid value: {shown}: may not change once set")]
    return []


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


def _check_ip(ip: str, ips: set[str], service_range: ServiceRange) -> list[errors.FieldError]:
    shown = f'[]string{{"{ip}"}}'
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return [errors.FieldError("FieldValueInvalid", "spec.clusterIPs[0]",
                                  f'Invalid value: "{ip}": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')]
    if not service_range.usable(address):
        return [errors.FieldError("FieldValueInvalid", "spec.clusterIPs",
                                  f"Invalid value: {shown}: failed to allocate IP {ip}: the provided IP ({ip}) "
                                  f"is not in the valid range. The range of valid IPs is {service_range.cidr}")]
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
    allocate(svc, ips, ports, cluster.service_range)
    return decided_at


async def hold_cluster_ips(svc: Obj, cluster: Cluster, now: str) -> None:
    """The allocator's IPAddress objects, written before the Service as upstream's are."""
    for ip in cluster_ips(svc):
        await cluster.create(IP_ADDRESSES, ip_address(ip, svc), KUBE_APISERVER)


async def release_cluster_ips(svc: Obj, cluster: Cluster, now: str) -> None:
    for ip in cluster_ips(svc):
        await cluster.delete(IP_ADDRESSES, ip, lambda address: held_by(address, svc))
