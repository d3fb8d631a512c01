"""What admission is asked about one write: upstream's admission.Attributes.

The endpoint builds one `Attributes` per admitted write; every plugin reads it, and a mutating plugin
may replace `object`. Objects are decoded JSON in the form this server stores them (its `rt`'s version
for a resource, the subresource's own kind for scale, binding and eviction); a plugin that must show
them in another version converts them itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from apiserver.auth.tokens import User

Operation = Literal["CREATE", "UPDATE", "DELETE", "CONNECT"]
Obj = dict[str, Any]


class GroupVersionKind(NamedTuple):
    group: str
    version: str
    kind: str


class GroupVersionResource(NamedTuple):
    group: str
    version: str
    resource: str


@dataclass
class Attributes:
    """One admission request. `object` is None on DELETE and `old_object` None on CREATE (and CONNECT)."""

    operation: Operation
    kind: GroupVersionKind
    resource: GroupVersionResource
    subresource: str
    namespace: str
    name: str
    object: Obj | None
    old_object: Obj | None
    user: User
    dry_run: bool
    # CreateOptions, UpdateOptions or DeleteOptions, as AdmissionReview.request.options sends them.
    options: Obj | None
    # Set by a plugin that wants the mutating plugins run once more after a later one changed the object
    # (a webhook's reinvocationPolicy: IfNeeded); the chain reads and clears it.
    reinvoke: bool = field(default=False)
    # True while the chain runs the mutating plugins the second time.
    reinvoking: bool = field(default=False)
    # What a plugin remembers between its calls for this one request (a webhook plugin: which of its
    # webhooks changed the object), under the plugin's name.
    state: dict[str, Any] = field(default_factory=dict)


def create_options(query: dict[str, str] | Any) -> Obj:
    """The CreateOptions a create's query parameters spell."""
    return _options("CreateOptions", query)


def update_options(query: dict[str, str] | Any) -> Obj:
    return _options("UpdateOptions", query)


def _options(kind: str, query: Any) -> Obj:
    options: Obj = {"kind": kind, "apiVersion": "meta.k8s.io/v1"}
    if query.get("dryRun"):
        options["dryRun"] = [query["dryRun"]]
    if query.get("fieldManager"):
        options["fieldManager"] = query["fieldManager"]
    if query.get("fieldValidation"):
        options["fieldValidation"] = query["fieldValidation"]
    return options


def delete_options(options: Obj, query: Any) -> Obj:
    """The DeleteOptions a delete was given, in the body or the query, as a typed object."""
    shown: Obj = {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1"}
    shown.update((k, v) for k, v in options.items() if k not in ("kind", "apiVersion"))
    if query.get("dryRun") and "dryRun" not in shown:
        shown["dryRun"] = [query["dryRun"]]
    return shown
