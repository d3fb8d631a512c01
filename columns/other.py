"""Printers for coordination.k8s.io Leases and apiregistration.k8s.io APIServices."""

from __future__ import annotations

import msgspec

from columns.base import Row
from columns.declare import Meta, age_column, column, name_column, printer
from columns.format import since


class LeaseSpec(msgspec.Struct):
    holderIdentity: str | None = None


class Lease(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: LeaseSpec = msgspec.field(default_factory=LeaseSpec)


LEASES = printer(
    [name_column(),
     column("Holder", "holderIdentity contains the identity of the holder of a current lease. If Coordinated "
                      "Leader Election is used, the holder identity must be equal to the elected "
                      "LeaseCandidate.metadata.name field."),
     age_column()],
    Lease,
    lambda lease: Row([lease.metadata.name, lease.spec.holderIdentity or "",
                       since(lease.metadata.creationTimestamp)]),
)


class ServiceReference(msgspec.Struct):
    namespace: str = ""
    name: str = ""


class APIServiceSpec(msgspec.Struct):
    service: ServiceReference | None = None


class APIServiceCondition(msgspec.Struct):
    type: str = ""
    status: str = ""
    reason: str = ""


class APIServiceStatus(msgspec.Struct):
    conditions: list[APIServiceCondition] = []


class APIService(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: APIServiceSpec = msgspec.field(default_factory=APIServiceSpec)
    status: APIServiceStatus = msgspec.field(default_factory=APIServiceStatus)


def availability(conditions: list[APIServiceCondition]) -> str:
    """The Available condition's status, with its reason when it is not True."""
    for condition in conditions:
        if condition.type == "Available":
            if condition.status != "True" and condition.reason:
                return f"{condition.status} ({condition.reason})"
            return condition.status
    return "Unknown"


def api_service_row(svc: APIService) -> Row:
    ref = svc.spec.service
    backend = "Local" if ref is None else f"{ref.namespace}/{ref.name}"
    return Row([svc.metadata.name, backend, availability(svc.status.conditions),
                since(svc.metadata.creationTimestamp)])


API_SERVICES = printer(
    [name_column(), column("Service", "The reference to the service that hosts this API endpoint."),
     column("Available", "Whether this service is available."), age_column()],
    APIService,
    api_service_row,
)
