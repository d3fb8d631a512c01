"""A Service's node ports and health-check node port, as its storage allocates them on create and update
(pkg/registry/core/service/storage/alloc.go: txnAllocNodePorts with initNodePorts and
allocHealthCheckNodePort; txnUpdateNodePorts with updateNodePorts and updateHealthCheckNodePort).

Pure functions over `ports`, the node ports every other Service holds, which they add to what they take.
A requested port outside the range or held already is a 422 at the port; no free port left, or a
health-check port that cannot be had, is a 500, as upstream answers.
"""

from __future__ import annotations

import random
from typing import Any

from apiserver import errors

Obj = dict[str, Any]

NODE_PORTS = range(30000, 32768)


class _Taken(Exception):
    """portallocator's ErrNotInValidRange or ErrAllocated, with its text."""


def needs_health_check(spec: Obj) -> bool:
    return spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def allocates(spec: Obj) -> bool:
    """shouldAllocateNodePorts."""
    kind = spec.get("type")
    return kind == "NodePort" or \
        (kind == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is not False)


def held(spec: Obj) -> set[int]:
    """The node ports a stored Service holds: its ports' and its health check's (collectServiceNodePorts)."""
    found = {int(p["nodePort"]) for p in spec.get("ports") or () if isinstance(p, dict) and p.get("nodePort")}
    if needs_health_check(spec) and spec.get("healthCheckNodePort"):
        found.add(int(spec["healthCheckNodePort"]))
    return found


class _Operation:
    """portallocator.PortAllocationOperation over `ports`, the node ports others hold. A dry run neither
    checks the range nor draws from it: it hands out placeholders above it, as upstream's does."""

    def __init__(self, ports: set[int], dry_run: bool) -> None:
        self.ports, self.dry_run, self.allocated = ports, dry_run, list[int]()

    def take(self, port: int) -> None:
        if self.dry_run:
            if port in self.ports or port in self.allocated:
                raise _Taken("provided port is already allocated")
        elif port not in NODE_PORTS:
            raise _Taken(f"provided port is not in the valid range. The range of valid ports is "
                         f"{NODE_PORTS.start}-{NODE_PORTS.stop - 1}")
        elif port in self.ports:
            raise _Taken("provided port is already allocated")
        self.ports.add(port)
        self.allocated.append(port)

    def next(self) -> int:
        if self.dry_run:
            port = max(self.allocated) + 1 if self.allocated else NODE_PORTS.stop + 1
        else:
            free = [p for p in NODE_PORTS if p not in self.ports]
            if not free:
                raise errors.internal("failed to allocate a nodePort: range is full")
            port = random.choice(free)
            self.ports.add(port)
        self.allocated.append(port)
        return port


def _refused(name: str, i: int, port: int, why: _Taken) -> errors.ApiError:
    return errors.invalid("Service", "", name, [errors.FieldError(
        "FieldValueInvalid", f"spec.ports[{i}].nodePort", f"Invalid value: {port}: {why}")])


def _health_check(spec: Obj, operation: _Operation) -> None:
    """allocHealthCheckNodePort."""
    requested = spec.get("healthCheckNodePort") or 0
    if requested:
        try:
            operation.take(int(requested))
        except _Taken as why:
            raise errors.internal(
                f"failed to allocate requested HealthCheck NodePort {requested}: {why}") from None
    else:
        spec["healthCheckNodePort"] = operation.next()


def allocate_create(svc: Obj, ports: set[int], dry_run: bool) -> None:
    """txnAllocNodePorts: initNodePorts for NodePort and LoadBalancer Services (ports of one number share
    one node port; specific requests are kept even where none is allocated), then the health check's."""
    spec = svc.setdefault("spec", {})
    name = str(svc["metadata"].get("name") or "")
    operation = _Operation(ports, dry_run)
    if spec.get("type") in ("NodePort", "LoadBalancer"):
        by_number: dict[Any, int] = {}
        service_ports = [p for p in spec.get("ports") or () if isinstance(p, dict)]
        for i, port in enumerate(service_ports):
            if not port.get("nodePort") and not allocates(spec):
                continue
            shared = by_number.get(port.get("port"))
            if not shared:
                # findRequestedNodePort: a later port of the same number may name the node port.
                requested = next((int(p["nodePort"]) for p in service_ports
                                  if p.get("port") == port.get("port") and p.get("nodePort")), 0)
                if requested:
                    try:
                        operation.take(requested)
                    except _Taken as why:
                        raise _refused(name, i, requested, why) from None
                    port["nodePort"] = by_number[port.get("port")] = requested
                else:
                    port["nodePort"] = by_number[port.get("port")] = operation.next()
            elif port.get("nodePort") != shared:
                if not port.get("nodePort"):
                    port["nodePort"] = shared
                else:
                    try:
                        operation.take(int(port["nodePort"]))
                    except _Taken as why:
                        raise _refused(name, i, int(port["nodePort"]), why) from None
    if needs_health_check(spec):
        _health_check(spec, operation)


def allocate_update(svc: Obj, old: Obj, ports: set[int], dry_run: bool) -> None:
    """txnUpdateNodePorts: the node ports a NodePort or LoadBalancer Service newly names or needs, and the
    health check's when it becomes needed (what is released needs no record here: it is no one's)."""
    spec, old_spec = svc.setdefault("spec", {}), old.get("spec") or {}
    name = str(svc["metadata"].get("name") or "")
    operation = _Operation(ports, dry_run)
    if spec.get("type") in ("NodePort", "LoadBalancer"):
        old_ports = {int(p["nodePort"]) for p in old_spec.get("ports") or () if p.get("nodePort")}
        taken_here: set[int] = set()
        named: list[tuple[str, int]] = []
        for i, port in enumerate(p for p in spec.get("ports") or () if isinstance(p, dict)):
            if not port.get("nodePort") and not allocates(spec):
                continue
            number = int(port.get("nodePort") or 0)
            if number:
                if number not in old_ports and number not in taken_here:
                    try:
                        operation.take(number)
                    except _Taken as why:
                        raise _refused(name, i, number, why) from None
                    taken_here.add(number)
            else:
                port["nodePort"] = number = operation.next()
            key = (str(port.get("protocol") or ""), number)
            if key in named:
                # Not a field error upstream: a plain error, which the server answers as a bare 500.
                raise errors.ApiError(500, "", f"duplicate nodePort: {{{key[0]} {key[1]}}}")
            named.append(key)
    if not needs_health_check(old_spec) and needs_health_check(spec):
        _health_check(spec, operation)
