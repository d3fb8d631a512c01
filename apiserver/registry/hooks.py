"""The seam between the endpoint and what a kind's storage does around a write beyond the object itself.

Upstream's genericregistry.Store runs a kind's BeginCreate, AfterCreate and AfterDelete, and its REST
storage reads and writes other objects (a Service's cluster IPs, a FlowSchema's priority level). Here
those hooks are a kind strategy's, and what they may read and write crosses this seam as a `Cluster`,
which the endpoint implements over its store; the hooks never see HTTP or the store itself. Some
strategies also ask the authorizer about the request's user (a ResourceClaim's status strategy, with
synthetic subresources; an admission policy's, about its params): the `Request` carries that question
as `Ask`, which the endpoint answers from the server's authorizer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from apiserver.auth.access import Attributes
from apiserver.errors import FieldError

Obj = dict[str, Any]


@dataclass(frozen=True)
class Requester:
    """Who asked for a write, as the kinds that record it see the user (CertificateSigningRequests)."""

    name: str
    uid: str
    groups: tuple[str, ...]
    extra: dict[str, list[str]] = field(default_factory=dict)  # keys in Go's sorted map order


class Cluster(Protocol):
    """What a kind's storage hooks may read and write besides the object being written.

    Resources are named by storage key (`networking.k8s.io/ipaddresses`, `services`)."""

    # The server's --service-cluster-ip-range (a service_allocation.ServiceRange).
    service_range: Any

    def get(self, storage_key: str, namespace: str, name: str) -> Obj | None:
        """The object as this server last saw it, decoded; None when absent or not served."""

    def names(self, storage_key: str) -> list[str]:
        """The names of every object of a resource, in every namespace."""

    def listed(self, storage_key: str) -> tuple[int, list[Obj]]:
        """Every object of a resource, decoded, and the revision they were read at."""

    async def create(self, storage_key: str, obj: Obj, manager: str) -> None:
        """Creates an object of a cluster-scoped resource as the server's own `manager`."""

    async def delete(self, storage_key: str, name: str, only_if: Callable[[Obj], bool]) -> None:
        """Deletes a cluster-scoped object when it exists and `only_if` holds for it."""

    async def rewrite_status(self, storage_key: str, change: Callable[[Obj], bool]) -> None:
        """Writes the status of every object `change` changed (it returns whether it did), skipping
        those written meanwhile: that write judged the same store."""

    def resource_of(self, api_version: str, kind: str) -> str | None:
        """The resource a served kind is reached by (the RESTMapper's answer), or None when none serves it."""


# The authorizer's answer for the request's user about attributes a strategy names (upstream's
# syntheticSubresourceAttrs, a policy's params): None when allowed, else the message of the 403 it would
# give (responsewriters.ForbiddenStatusError), which the strategy's refusal quotes.
Ask = Callable[[Attributes], str | None]


@dataclass(frozen=True)
class Request:
    """The request a hook runs for, as far as a hook may know it."""

    requester: Requester | None
    dry_run: bool
    verb: str = ""  # the authorizer's verb of the request (update, patch)
    namespace: str = ""
    # None for the server's own writes, which nothing asks about.
    ask: Ask | None = None


# The hooks' types: what KindStrategy declares, the endpoint calls.
BeginCreate = Callable[[Obj, Request, Cluster], int | None]
BeginUpdate = Callable[[Obj, Obj, Request, Cluster], None]
Decorate = Callable[[Obj, Obj | None, Cluster, str], None]
AfterWrite = Callable[[Obj, Cluster, str], Awaitable[None]]
UpdateWrite = Callable[[Obj, Obj, Cluster, str], Awaitable[None]]
# (subresource, the prepared new object, old, the request, the cluster) -> FieldErrors
JudgeInCluster = Callable[[str, Obj, Obj, Request, Cluster], list[FieldError]]
