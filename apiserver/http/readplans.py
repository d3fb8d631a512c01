"""What a repeated read was found to be, kept so that the next identical read skips straight to the store.

A get or list names everything about itself in its method, path, query string and Accept header: the
verb, the resource type and where it points, the authorizer's attributes, the shape of the answer, a
list's selectors and page, and what the store must show before the read. Working that out (the path
parsed, the verb picked, the type looked up and checked, the answer negotiated, the selectors, paging
options and resourceVersion parsed) is a dozen steps, and with the caches cold, as a server meets
each request, every step counts (`python -m benches.request_cost --cold`). Clients send the same few
reads again and again (kubectl's polls, dashboards, monitoring scripts), so once a read has passed
every one of those checks, what they decided is kept under its request line and Accept header, and
the next identical read is authorized and answered from it. Only the user is left to check: a plan
holds nobody's permission. A plan names its ResourceType, so plans are forgotten whenever a type is
served or withdrawn (a CRD's); a read one of those checks refused is never kept, and meets them again.
"""

from __future__ import annotations

from typing import NamedTuple

from apiserver.auth.access import Attributes
from apiserver.http.endpoint import Target, View, Wait
from apiserver.kinds.resources import Registry
from apiserver.shapes.shape import Shape

# Past this many distinct reads the plans start over: each is small, but paths name objects.
_MAX_PLANS = 4096


class ReadPlan(NamedTuple):
    verb: str  # "get" or "list"
    attributes: Attributes
    target: Target
    shape: Shape
    view: View | None  # a list's selection and page
    wait: Wait  # what the store must show first


class ReadPlans:
    def __init__(self, registry: Registry) -> None:
        self._registry = registry
        self._generation = registry.generation
        self._plans: dict[tuple[str, bytes, str], ReadPlan] = {}

    def find(self, path: str, query: bytes, accept: str) -> ReadPlan | None:
        """The plan of an identical read that passed every check, None when there is none."""
        if self._registry.generation != self._generation:
            self._plans = {}
            self._generation = self._registry.generation
            return None
        return self._plans.get((path, query, accept))

    def remember(self, path: str, query: bytes, accept: str, plan: ReadPlan) -> None:
        if len(self._plans) >= _MAX_PLANS or self._registry.generation != self._generation:
            self._plans = {}
            self._generation = self._registry.generation
        self._plans[(path, query, accept)] = plan
