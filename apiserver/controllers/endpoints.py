"""The endpoints and endpointslice controllers: a Service with a selector lists the pods it selects.

Both compute the same thing, the selected pods with an IP and which of them are ready, and write it
in their own shape: an Endpoints object named after the Service (ready and not-ready addresses in
subsets), and an EndpointSlice owned by the Service (one endpoint per pod with its conditions).
"""

from __future__ import annotations

import ipaddress
from typing import Any, Hashable

from apiserver import errors
from apiserver.controllers.base import Context, Controller, Obj, either, object_key
from apiserver.controllers.replicaset import is_ready, owner_reference
from apiserver.kinds.objects import now_rfc3339

SERVICE_NAME_LABEL = "kubernetes.io/service-name"
MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by"
MANAGED_BY = "endpointslice-controller.k8s.io"
TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time"


def _selector(service: Obj) -> dict[str, str] | None:
    selector = (service.get("spec") or {}).get("selector")
    return selector or None


def selected_pods(service: Obj, pods: list[Obj]) -> list[Obj]:
    """Pods the Service selects that have an IP and are not finished, ordered by IP."""
    selector = _selector(service)
    if selector is None:
        return []
    publish_not_ready = bool((service.get("spec") or {}).get("publishNotReadyAddresses"))
    found = []
    for pod in pods:
        labels = pod["metadata"].get("labels") or {}
        status = pod.get("status") or {}
        if any(labels.get(k) != v for k, v in selector.items()) or not status.get("podIP"):
            continue
        if status.get("phase") in ("Succeeded", "Failed"):
            continue
        if pod["metadata"].get("deletionTimestamp") and not publish_not_ready:
            continue
        found.append(pod)
    return sorted(found, key=lambda p: ipaddress.ip_address(p["status"]["podIP"]))


def _target_port(service_port: Obj, pod: Obj) -> int | None:
    target = service_port.get("targetPort", service_port.get("port"))
    if isinstance(target, int):
        return target
    for container in (pod.get("spec") or {}).get("containers") or ():
        for port in container.get("ports") or ():
            if port.get("name") == target and port.get("protocol", "TCP") == service_port.get("protocol", "TCP"):
                return int(port["containerPort"])
    return None


def endpoint_ports(service: Obj, pod: Obj) -> list[Obj]:
    ports = []
    for service_port in (service.get("spec") or {}).get("ports") or ():
        number = _target_port(service_port, pod)
        if number is None:
            continue
        port: Obj = {"name": service_port.get("name", ""), "port": number,
                     "protocol": service_port.get("protocol", "TCP")}
        if service_port.get("appProtocol"):
            port["appProtocol"] = service_port["appProtocol"]
        ports.append(port)
    return ports


def _target_ref(pod: Obj) -> Obj:
    meta = pod["metadata"]
    return {"kind": "Pod", "namespace": meta["namespace"], "name": meta["name"], "uid": meta["uid"]}


def endpoints_subsets(service: Obj, pods: list[Obj]) -> list[Obj]:
    """Subsets grouped by their port lists, as RepackSubsets leaves them."""
    publish_not_ready = bool((service.get("spec") or {}).get("publishNotReadyAddresses"))
    groups: dict[str, Obj] = {}
    for pod in pods:
        ports = endpoint_ports(service, pod)
        if not ports and (service.get("spec") or {}).get("ports"):
            continue
        key = repr(sorted((p["name"], p["port"], p["protocol"]) for p in ports))
        # core/v1 EndpointPort's name is omitempty, unlike discovery/v1's pointer.
        subset = groups.setdefault(key, {"ports": [{k: v for k, v in p.items() if v != "" or k != "name"}
                                                   for p in sorted(ports, key=lambda p: p["name"])]})
        address: Obj = {"ip": pod["status"]["podIP"]}
        if pod["spec"].get("nodeName"):
            address["nodeName"] = pod["spec"]["nodeName"]
        address["targetRef"] = _target_ref(pod)
        ready = publish_not_ready or (is_ready(pod) and not pod["metadata"].get("deletionTimestamp"))
        subset.setdefault("addresses" if ready else "notReadyAddresses", []).append(address)
    subsets = []
    for subset in groups.values():
        ordered: Obj = {}
        for field_name in ("addresses", "notReadyAddresses", "ports"):
            if subset.get(field_name):
                ordered[field_name] = subset[field_name]
        subsets.append(ordered)
    return subsets


class _ServiceController(Controller):
    """Keys are Services; a pod change queues every Service in its namespace that selects it."""

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.services = ctx.informer("", "v1", "services")
        self.pods = ctx.informer("", "v1", "pods")
        self.services.add_handler(self._service_changed)
        self.pods.add_handler(self._pod_changed)

    def _service_changed(self, old: Obj | None, new: Obj | None) -> None:
        service = either(old, new)
        self.queue.add(object_key(service))

    def _pod_changed(self, old: Obj | None, new: Obj | None) -> None:
        pod = either(old, new)
        namespace = pod["metadata"].get("namespace", "")
        label_sets = [(p["metadata"].get("labels") or {}) for p in (old, new) if p is not None]
        for service in self.services.items(namespace):
            selector = _selector(service)
            if selector and any(all(labels.get(k) == v for k, v in selector.items()) for labels in label_sets):
                self.queue.add(object_key(service))


class EndpointsController(_ServiceController):
    name = "endpoints-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.endpoints_type = ctx.resource("", "v1", "endpoints")
        self.endpoints = ctx.informer("", "v1", "endpoints")
        self.endpoints.add_handler(self._endpoints_changed)

    def _endpoints_changed(self, old: Obj | None, new: Obj | None) -> None:
        obj = either(old, new)
        if self.services.get(*object_key(obj)) is not None:
            self.queue.add(object_key(obj))

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        namespace, name = key
        service = self.services.get(namespace, name)
        current = self.endpoints.get(namespace, name)
        if service is None or _selector(service) is None:
            if service is None and current is not None:
                await self.client.delete(self.endpoints_type, namespace, name)
            return
        subsets = endpoints_subsets(service, selected_pods(service, self.pods.items(namespace)))
        labels = dict(service["metadata"].get("labels") or {})
        if current is not None and (current.get("subsets") or []) == subsets and \
                (current["metadata"].get("labels") or {}) == labels:
            return
        body: Obj = {"apiVersion": "v1", "kind": "Endpoints",
                     "metadata": {"name": name, "namespace": namespace,
                                  "annotations": {TRIGGER_TIME: now_rfc3339()}}}
        if labels:
            body["metadata"]["labels"] = labels
        if subsets:
            body["subsets"] = subsets
        if current is None:
            try:
                await self.client.create(self.endpoints_type, namespace, body)
            except errors.ApiError as exc:
                if exc.code != 409:
                    raise
            return
        body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        await self.client.update(self.endpoints_type, body)


class EndpointSliceController(_ServiceController):
    name = "endpointslice-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.slices_type = ctx.resource("discovery.k8s.io", "v1", "endpointslices")
        self.slices = ctx.informer("discovery.k8s.io", "v1", "endpointslices")
        self.slices.add_handler(self._slice_changed)

    def _slice_changed(self, old: Obj | None, new: Obj | None) -> None:
        obj = either(old, new)
        labels = obj["metadata"].get("labels") or {}
        if labels.get(MANAGED_BY_LABEL) == MANAGED_BY and labels.get(SERVICE_NAME_LABEL):
            self.queue.add((obj["metadata"].get("namespace", ""), labels[SERVICE_NAME_LABEL]))

    def _owned(self, service: Obj) -> list[Obj]:
        uid = service["metadata"]["uid"]
        return [s for s in self.slices.items(service["metadata"]["namespace"])
                if any(ref.get("uid") == uid for ref in s["metadata"].get("ownerReferences") or ())]

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        namespace, name = key
        service = self.services.get(namespace, name)
        if service is None or _selector(service) is None:
            return  # the garbage collector removes the slices of a deleted Service
        pods = selected_pods(service, self.pods.items(namespace))
        ports: list[Obj] = endpoint_ports(service, pods[0]) if pods else [
            {"name": p.get("name", ""), "port": p["targetPort"], "protocol": p.get("protocol", "TCP")}
            for p in (service.get("spec") or {}).get("ports") or () if isinstance(p.get("targetPort"), int)]
        endpoints = []
        for pod in pods:
            deleting = bool(pod["metadata"].get("deletionTimestamp"))
            ready = is_ready(pod)
            endpoint: Obj = {"addresses": [pod["status"]["podIP"]],
                             "conditions": {"ready": ready and not deleting, "serving": ready,
                                            "terminating": deleting},
                             "targetRef": _target_ref(pod)}
            if pod["spec"].get("nodeName"):
                endpoint["nodeName"] = pod["spec"]["nodeName"]
            endpoints.append(endpoint)
        labels = {**(service["metadata"].get("labels") or {}), SERVICE_NAME_LABEL: name,
                  MANAGED_BY_LABEL: MANAGED_BY}
        owned = self._owned(service)
        current = owned[0] if owned else None
        for extra in owned[1:]:
            await self.client.delete(self.slices_type, namespace, extra["metadata"]["name"])
        if current is not None and (current.get("endpoints") or []) == endpoints and \
                (current.get("ports") or []) == ports and current["metadata"].get("labels") == labels:
            return
        body: Any = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                     "metadata": {"namespace": namespace, "labels": labels,
                                  "annotations": {TRIGGER_TIME: now_rfc3339()},
                                  "ownerReferences": [owner_reference(service)]},
                     "addressType": "IPv4", "endpoints": endpoints, "ports": ports}
        if current is None:
            body["metadata"]["generateName"] = f"{name}-"
            await self.client.create(self.slices_type, namespace, body)
            return
        body["metadata"]["name"] = current["metadata"]["name"]
        body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        await self.client.update(self.slices_type, body)
