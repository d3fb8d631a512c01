"""What an admission plugin is told about a write: upstream's admission.Attributes, the parts these use."""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from apiserver.errors import ApiError, forbidden_object

Obj = dict[str, Any]
Operation = Literal["CREATE", "UPDATE", "DELETE", "CONNECT"]


class Request(NamedTuple):
    operation: Operation
    group: str
    resource: str  # plural, e.g. "pods"
    subresource: str  # "" for the object itself
    namespace: str
    name: str  # from the URL; "" on a create
    obj: Obj | None
    old: Obj | None
    user: str = ""
    dry_run: bool = False

    @property
    def object_name(self) -> str:
        """The name admission.NewForbidden shows: the URL's, else the object's, else its generateName."""
        if self.name:
            return self.name
        meta = (self.obj or {}).get("metadata") or {}
        return str(meta.get("name") or meta.get("generateName") or "Unknown")

    def forbidden(self, why: str) -> ApiError:
        return forbidden_object(self.resource, self.group, self.object_name, why)


