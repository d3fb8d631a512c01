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
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from apiserver import errors
from apiserver.kinds.managedfields import KUBE_APISERVER
from apiserver.registry import field
from apiserver.registry.core import defaults, service_ip_families, service_node_ports
from apiserver.registry.hooks import Cluster, Request


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
        ports.update(service_node_ports.held(spec))
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


SERVICE_CIDRS = "networking.k8s.io/servicecidrs"


def ranges_of(cluster: Cluster) -> list[ServiceRange]:
    """What the MetaAllocator allocates from: the server's range, then every other CIDR of its family that a
    ServiceCIDR holds while it is ready (its Ready condition true, or none yet: no controller has judged it)
    and not being deleted."""
    primary = cluster.service_range
    found = [primary]
    for obj in cluster.listed(SERVICE_CIDRS)[1]:
        conditions = [c for c in (obj.get("status") or {}).get("conditions") or () if isinstance(c, dict)]
        ready = next((c.get("status") == "True" for c in conditions if c.get("type") == "Ready"), True)
        if not ready or (obj.get("metadata") or {}).get("deletionTimestamp"):
            continue
        for cidr in (obj.get("spec") or {}).get("cidrs") or ():
            try:
                network = ipaddress.ip_network(str(cidr), strict=False)
            except ValueError:
                continue
            if network.version == primary.cidr.version and all(r.cidr != network for r in found):
                found.append(ServiceRange(network))
    return found


def allocate(svc: Obj, ips: set[str], ports: set[int], ranges: Sequence[ServiceRange] = (DEFAULT_SERVICE_RANGE,),
             dry_run: bool = False) -> None:
    """Fills in a new Service's IP families, cluster IP and node ports (allocateCreate); 422 for ones
    already held or out of range, and for cluster-IP fields initIPFamilyFields refuses."""
    spec = svc.setdefault("spec", {})
    service_ip_families.normalize_cluster_ips(spec, None)
    service_ip_families.init_ip_family_fields(svc, None, (ranges[0].family,))
    _allocate_cluster_ips(svc, ips, ranges, dry_run)
    service_node_ports.allocate_create(svc, ports, dry_run)


def _allocate_cluster_ips(svc: Obj, ips: set[str], ranges: Sequence[ServiceRange], dry_run: bool) -> None:
    """allocClusterIPs: an address for each family, a requested one checked (single-stack here: the
    server's range's family); none for ExternalName or headless Services. A new address comes from the
    server's range, then from the other ranges in turn as each fills up."""
    spec = svc["spec"]
    name = str(svc["metadata"].get("name") or "")
    problems: list[errors.FieldError] = []
    cluster_ips = list(spec.get("clusterIPs") or [])
    if spec.get("type") == "ExternalName" or cluster_ips[:1] == ["None"]:
        return
    # "" marks an address to allocate.
    cluster_ips += [""] * (len(spec.get("ipFamilies") or ()) - len(cluster_ips))
    spec["clusterIPs"] = cluster_ips
    ip = cluster_ips[0]
    if ip == "" and dry_run:
        # A dry run draws nothing: upstream's dry-run allocator answers the range's own address.
        ip = str(ranges[0].cidr.network_address)
    elif ip == "":
        free = next((found for r in ranges if (found := r.free_ip(ips)) is not None), None)
        if free is None:
            raise errors.internal(f'failed to allocate a serviceIP for Service "{name}": range is full')
        if not name:
            problems.append(_unnamed(cluster_ips, "failed to allocate IP", free))
        ips.add(free)
        ip = free
    else:
        problems.extend(_check_ip(ip, cluster_ips, ips, ranges, name, dry_run))
    if problems:
        raise errors.invalid("Service", "", name, problems)
    spec["clusterIP"] = ip
    spec["clusterIPs"] = [ip]


def _unnamed(cluster_ips: list[str], what: str, ip: str) -> errors.FieldError:
    """The allocator's IPAddress names the Service as its parent: without a name it fails validation."""
    shown = field.go_json(cluster_ips)
    return errors.FieldError("FieldValueInvalid", "spec.clusterIPs",
                             f"Invalid value: {shown}: {what}: IPAddress.networking.k8s.io "
                             f'"{ip}" is invalid: spec.parentRef.name: Required value')


def begin_update(new: Obj, old: Obj, request: Request, cluster: Cluster) -> None:
    """An update's allocated fields as upstream's service storage settles them (patchAllocatedValues,
    normalizeClusterIPs, then allocateUpdate's initIPFamilyFields and node ports); a changed primary IP is
    validation's to refuse."""
    defaults.service(new)  # upstream's decoding defaulted the body before the storage sees it
    keep_allocated(new, old)
    spec = new.setdefault("spec", {})
    old_spec: Obj = old["spec"] if isinstance(old.get("spec"), dict) else {}
    service_ip_families.normalize_cluster_ips(spec, old_spec)
    service_ip_families.init_ip_family_fields(new, old, (cluster.service_range.family,))
    this = (old["metadata"].get("namespace"), old["metadata"].get("name"))
    others = [svc for svc in cluster.listed("services")[1]
              if (svc["metadata"].get("namespace"), svc["metadata"].get("name")) != this]
    ips, ports = taken(others)
    if old_spec.get("type") == "ExternalName" and spec.get("type") != "ExternalName":
        # updateClusterIPs' case A: a Service that needed no address now does (the only case a
        # single-stack cluster allocates on update; releasing is the delete's and the type change's).
        ips.update(cluster.names(IP_ADDRESSES))
        _allocate_cluster_ips(new, ips, ranges_of(cluster), request.dry_run)
    service_node_ports.allocate_update(new, old, ports, request.dry_run)


def keep_allocated(new: Obj, old: Obj) -> None:
    """patchAllocatedValues: an update that leaves allocated values out keeps them, so a client may send
    back what it created. Node ports are matched by port name, unless another port now uses one."""
    spec, old_spec = new.setdefault("spec", {}), old.get("spec") or {}
    if old_spec.get("type") != "ExternalName" and spec.get("type") != "ExternalName":
        if not spec.get("clusterIP") and old_spec.get("clusterIP"):
            spec["clusterIP"] = old_spec["clusterIP"]
        if not spec.get("clusterIPs") and old_spec.get("clusterIPs"):
            spec["clusterIPs"] = old_spec["clusterIPs"]
    if service_node_ports.allocates(old_spec) and service_node_ports.allocates(spec):
        ports = [p for p in spec.get("ports") or () if isinstance(p, dict)]
        old_ports = [p for p in old_spec.get("ports") or () if isinstance(p, dict)]
        used = {p.get("nodePort") for p in old_ports if p.get("nodePort")} & \
            {p.get("nodePort") for p in ports if p.get("nodePort")}
        by_name = {p.get("name") or "": p.get("nodePort") or 0 for p in old_ports}
        for port in ports:
            previous = by_name.get(port.get("name") or "", 0)
            if not port.get("nodePort") and previous not in used and previous:
                port["nodePort"] = previous
    if service_node_ports.needs_health_check(old_spec) and service_node_ports.needs_health_check(spec) \
            and not spec.get("healthCheckNodePort") and old_spec.get("healthCheckNodePort"):
        spec["healthCheckNodePort"] = old_spec["healthCheckNodePort"]


def _check_ip(ip: str, cluster_ips: list[str], ips: set[str], ranges: Sequence[ServiceRange], name: str,
              dry_run: bool) -> list[errors.FieldError]:
    def refused(why: str) -> list[errors.FieldError]:
        shown = field.go_json(cluster_ips)
        return [errors.FieldError("FieldValueInvalid", "spec.clusterIPs",
                                  f"Invalid value: {shown}: failed to allocate IP {ip}: {why}")]
    address = ipaddress.ip_address(ip)  # validated by initIPFamilyFields
    if not any(r.usable(address) for r in ranges):
        return refused("the provided network does not match the current range")  # no allocator holds it
    if dry_run:
        return []  # nor is the address held by an IPAddress, which is what a held one would clash with
    if not name:
        return [_unnamed(cluster_ips, f"failed to allocate IP {ip}", ip)]
    if ip in ips:
        return refused("provided IP is already allocated")
    ips.add(ip)
    return []


# -- the storage hooks ---------------------------------------------------------------------------

def begin_create(svc: Obj, request: Request, cluster: Cluster) -> int | None:
    """Allocates from what every Service and IPAddress holds; the revision that was read at, so the
    write fails if another server allocated meanwhile."""
    decided_at, held = cluster.listed("services")
    ips, ports = taken(held)
    ips.update(cluster.names(IP_ADDRESSES))
    allocate(svc, ips, ports, ranges_of(cluster), request.dry_run)
    return decided_at


async def hold_cluster_ips(svc: Obj, cluster: Cluster, now: str) -> None:
    """The allocator's IPAddress objects, written before the Service as upstream's are."""
    for ip in cluster_ips(svc):
        await cluster.create(IP_ADDRESSES, ip_address(ip, svc), KUBE_APISERVER)


async def rehold_cluster_ips(svc: Obj, old: Obj, cluster: Cluster, now: str) -> None:
    """An update's allocator transaction: IPAddresses for the addresses it allocated (a Service turned
    from ExternalName), and none any more for those it released (one turned into ExternalName)."""
    new_ips, old_ips = cluster_ips(svc), cluster_ips(old)
    for ip in new_ips:
        if ip not in old_ips:
            await cluster.create(IP_ADDRESSES, ip_address(ip, svc), KUBE_APISERVER)
    for ip in old_ips:
        if ip not in new_ips:
            await cluster.delete(IP_ADDRESSES, ip, lambda address: held_by(address, old))


async def release_cluster_ips(svc: Obj, cluster: Cluster, now: str) -> None:
    for ip in cluster_ips(svc):
        await cluster.delete(IP_ADDRESSES, ip, lambda address: held_by(address, svc))
