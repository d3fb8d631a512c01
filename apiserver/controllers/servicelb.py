"""The service-lb-controller: LoadBalancer Services get an address, as a cloud provider's service controller
gives them (upstream's `cloud-provider/controllers/service`), from `--load-balancer-ip-range`.

A Service of type LoadBalancer without a `loadBalancerClass` gets the `service.kubernetes.io/load-balancer-cleanup`
finalizer, then the first free address of the range (or its `spec.loadBalancerIP`, if that is in the
range and free) in `status.loadBalancer.ingress`, with upstream's events. When it stops wanting one
(another type, or deleted) the address is freed, the status cleared and the finalizer taken off.
The addresses are only written down: nothing listens on them, and the default range is on the loopback
network so that nothing sent to one leaves the machine.
"""

from __future__ import annotations

import ipaddress
from typing import Any, Hashable

from apiserver.controllers.base import Context, Controller, Obj, either, object_key
from apiserver.controllers.events import Recorder

CLEANUP_FINALIZER = "service.kubernetes.io/load-balancer-cleanup"
DEFAULT_RANGE = "127.0.240.0/24"


def wants_load_balancer(service: Obj) -> bool:
    spec = service.get("spec") or {}
    return spec.get("type") == "LoadBalancer" and spec.get("loadBalancerClass") is None and \
        not service["metadata"].get("deletionTimestamp")


def _ingress_ips(service: Obj) -> list[str]:
    ingress = ((service.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
    return [str(i.get("ip")) for i in ingress if i.get("ip")]


class ServiceLoadBalancer(Controller):
    name = "service-lb-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.services_type = ctx.resource("", "v1", "services")
        self.services = ctx.informer("", "v1", "services")
        self.events = Recorder(self.client, "service-controller")
        self.network = ipaddress.ip_network(ctx.settings.load_balancer_ip_range, strict=False)
        self.given: dict[tuple[str, str], str] = {}  # service -> its address
        self.waiting: set[tuple[str, str]] = set()  # services that found no address free
        self.services.add_handler(self._service_changed)

    def _service_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is None:
            self._release(object_key(either(old, new)))
            return
        key = object_key(new)
        if CLEANUP_FINALIZER in (new["metadata"].get("finalizers") or ()) and key not in self.given:
            # Written down before (by this server, perhaps before a restart): still taken.
            for ip in _ingress_ips(new):
                if self._in_range(ip):
                    self.given[key] = ip
        self.queue.add(key)

    def _release(self, key: tuple[str, str]) -> None:
        if self.given.pop(key, None) is not None:
            for waiting in self.waiting:
                self.queue.add(waiting)
            self.waiting.clear()

    def _in_range(self, ip: str) -> bool:
        try:
            return ipaddress.ip_address(ip) in self.network
        except ValueError:
            return False

    def _address(self, key: tuple[str, str], service: Obj) -> str | None:
        """The address the service has, the one it asks for, or the first free one; None when none is free."""
        if key in self.given:
            return self.given[key]
        taken = set(self.given.values())
        asked = (service.get("spec") or {}).get("loadBalancerIP")
        if asked:
            return str(asked) if self._in_range(str(asked)) and str(asked) not in taken else None
        hosts = self.network.hosts() if self.network.num_addresses > 2 else iter(self.network)
        return next((str(ip) for ip in hosts if str(ip) not in taken), None)

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        service = self.services.get(*key)
        if service is None:
            self._release(key)
            return
        finalizers = service["metadata"].get("finalizers") or []
        if wants_load_balancer(service):
            await self._ensure(key, service, finalizers)
        elif CLEANUP_FINALIZER in finalizers:
            await self._clean_up(key, service, finalizers)

    async def _ensure(self, key: tuple[str, str], service: Obj, finalizers: list[str]) -> None:
        ip = self._address(key, service)
        if _ingress_ips(service) == [ip] and CLEANUP_FINALIZER in finalizers:
            return
        await self.events.record(service, "Normal", "EnsuringLoadBalancer", "EnsuringLoadBalancer",
                                 "Ensuring load balancer")
        if ip is None:
            asked = (service.get("spec") or {}).get("loadBalancerIP")
            why = (f"requested load balancer IP {asked} is not free in {self.network}" if asked
                   else f"no address left in {self.network}")
            await self.events.record(service, "Warning", "SyncLoadBalancerFailed", "SyncLoadBalancer",
                                     f"Error syncing load balancer: failed to ensure load balancer: {why}")
            self.waiting.add(key)  # tried again when an address is freed
            return
        self.waiting.discard(key)
        self.given[key] = ip
        if CLEANUP_FINALIZER not in finalizers:
            service["metadata"]["finalizers"] = [*finalizers, CLEANUP_FINALIZER]
            service = await self.client.update(self.services_type, service)
        ingress: list[dict[str, Any]] = [{"ip": ip, "ipMode": "VIP"}]
        await self.client.patch(self.services_type, key[0], key[1], {"status": {"loadBalancer": {"ingress": ingress}}},
                                subresource="status")
        await self.events.record(service, "Normal", "EnsuredLoadBalancer", "EnsuredLoadBalancer",
                                 "Ensured load balancer")

    async def _clean_up(self, key: tuple[str, str], service: Obj, finalizers: list[str]) -> None:
        await self.events.record(service, "Normal", "DeletingLoadBalancer", "DeletingLoadBalancer",
                                 "Deleting load balancer")
        self._release(key)
        kept = [f for f in finalizers if f != CLEANUP_FINALIZER]
        if kept:
            service["metadata"]["finalizers"] = kept
        else:
            service["metadata"].pop("finalizers", None)
        deleting = bool(service["metadata"].get("deletionTimestamp"))
        await self.client.update(self.services_type, service)
        if not deleting:
            await self.client.patch(self.services_type, key[0], key[1], {"status": {"loadBalancer": {"ingress": None}}},
                                    subresource="status")
        await self.events.record(service, "Normal", "DeletedLoadBalancer", "DeletedLoadBalancer",
                                 "Deleted load balancer")
