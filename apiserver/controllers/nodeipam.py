"""The node-ipam-controller: each node's `spec.podCIDR` cut from `--cluster-cidr`, as upstream's range
allocator does with `--allocate-node-cidrs` (kind's setting: 10.244.0.0/16, a /24 per node).

A node without a podCIDR gets the first free block of `--node-cidr-mask-size` bits (and `podCIDRs`
with it); a node that has one keeps it, and its block is taken. When none is left the node gets the
allocator's `CIDRNotAvailable` event and waits for a block to be freed by a node's deletion.
"""

from __future__ import annotations

import ipaddress
from typing import Hashable

from apiserver.controllers.base import Context, Controller, Obj, either
from apiserver.controllers.events import Recorder

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class NodeIpam(Controller):
    name = "node-ipam-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.nodes_type = ctx.resource("", "v1", "nodes")
        self.nodes = ctx.informer("", "v1", "nodes")
        self.cluster = ipaddress.ip_network(ctx.settings.cluster_cidr, strict=False)
        self.prefix = max(ctx.settings.node_cidr_mask_size, self.cluster.prefixlen)
        self.events = Recorder(self.client, "cidrAllocator")
        self.taken: dict[str, str] = {}  # node -> its block
        self.waiting: set[str] = set()
        self.nodes.add_handler(self._node_changed)

    def _node_changed(self, old: Obj | None, new: Obj | None) -> None:
        name = either(old, new)["metadata"]["name"]
        if new is None:
            if self.taken.pop(name, None) is not None:
                for waiting in self.waiting:
                    self.queue.add(("", waiting))
                self.waiting.clear()
            return
        cidr = (new.get("spec") or {}).get("podCIDR")
        if cidr:
            self.taken[name] = str(ipaddress.ip_network(cidr, strict=False))
        else:
            self.queue.add(("", name))

    def _free_block(self) -> Network | None:
        taken = [ipaddress.ip_network(c) for c in self.taken.values()]
        for block in self.cluster.subnets(new_prefix=self.prefix):
            if not any(block.overlaps(other) for other in taken):
                return block
        return None

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        node = self.nodes.get("", key[1])
        if node is None or (node.get("spec") or {}).get("podCIDR"):
            return
        block = self._free_block()
        if block is None:
            self.waiting.add(key[1])
            await self.events.record(node, "Normal", "CIDRNotAvailable", "CIDRAssignmentFailed",
                                     f"Node {key[1]} status is now: CIDRNotAvailable")
            return
        self.taken[key[1]] = str(block)
        await self.client.patch(self.nodes_type, "", key[1],
                                {"spec": {"podCIDR": str(block), "podCIDRs": [str(block)]}})
