"""Printers for resource.k8s.io/v1: DeviceClasses, ResourceClaims, ResourceClaimTemplates, ResourceSlices.

A ResourceClaim's STATE joins "deleted" (once a deletion is pending), then "pending" (not yet
allocated and not being deleted) or "allocated" and, with consumers, "reserved".
"""

from __future__ import annotations

import msgspec

from columns.base import Row
from columns.declare import Entry, Meta, Named, age_column, column, name_column, printer
from columns.format import since

NAME_AND_AGE = [name_column(), age_column()]


def name_and_age(obj: Named) -> Row:
    return Row([obj.metadata.name, since(obj.metadata.creationTimestamp)])


DEVICE_CLASSES = printer(NAME_AND_AGE, Named, name_and_age)
RESOURCE_CLAIM_TEMPLATES = printer(NAME_AND_AGE, Named, name_and_age)


class ClaimStatus(msgspec.Struct):
    allocation: Entry | None = None
    reservedFor: list[Entry] = []


class ResourceClaim(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    status: ClaimStatus = msgspec.field(default_factory=ClaimStatus)


def claim_state(claim: ResourceClaim) -> str:
    deleting = claim.metadata.deletionTimestamp is not None
    states = ["deleted"] if deleting else []
    if claim.status.allocation is None:
        if not deleting:
            states.append("pending")
    else:
        states.append("allocated")
        if claim.status.reservedFor:
            states.append("reserved")
    return ",".join(states)


RESOURCE_CLAIMS = printer(
    [name_column(), column("State", "A summary of the current state (allocated, pending, reserved, etc.)."),
     age_column()],
    ResourceClaim,
    lambda claim: Row([claim.metadata.name, claim_state(claim), since(claim.metadata.creationTimestamp)]),
)


class Pool(msgspec.Struct):
    name: str = ""


class SliceSpec(msgspec.Struct):
    nodeName: str | None = None
    driver: str = ""
    pool: Pool = msgspec.field(default_factory=Pool)


class ResourceSlice(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: SliceSpec = msgspec.field(default_factory=SliceSpec)


RESOURCE_SLICES = printer(
    [name_column(),
     column("Node", "NodeName identifies the node which provides the resources in this pool. A field selector can "
                    "be used to list only ResourceSlice objects belonging to a certain node.\n\nThis field can be "
                    "used to limit access from nodes to ResourceSlices with the same node name. It also indicates "
                    "to autoscalers that adding new nodes of the same type as some old node might also make new "
                    "resources available.\n\nExactly one of NodeName, NodeSelector, AllNodes, and "
                    "PerDeviceNodeSelection must be set. This field is immutable."),
     column("Driver", "Driver identifies the DRA driver providing the capacity information. A field selector can be "
                      "used to list only ResourceSlice objects with a certain driver name.\n\nMust be a DNS "
                      "subdomain and should end with a DNS domain owned by the vendor of the driver. It should use "
                      "only lower case characters. This field is immutable."),
     column("Pool", "Name is used to identify the pool. For node-local devices, this is often the node name, but "
                    "this is not required.\n\nIt must not be longer than 253 characters and must consist of one or "
                    "more DNS sub-domains separated by slashes. This field is immutable."),
     age_column()],
    ResourceSlice,
    lambda rs: Row([rs.metadata.name, rs.spec.nodeName or "", rs.spec.driver, rs.spec.pool.name,
                    since(rs.metadata.creationTimestamp)]),
)
