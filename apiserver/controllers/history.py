"""ControllerRevisions: the template history DaemonSets and StatefulSets keep, as pkg/controller/history.

A revision's `data` is the patch that puts its template back, `{"spec":{"template":{..., "$patch":
"replace"}}}`, encoded as Go's json.Marshal encodes a decoded map (keys sorted, `<`, `>`, `&` escaped), so
that `kubectl rollout undo` can apply it as a strategic merge patch and equal templates give equal
bytes. A StatefulSet names a revision `<set>-<hash>` with history.HashControllerRevision: FNV-1 (not
1a) over those bytes, then the collision count in decimal, the 32-bit sum written in decimal through
rand.SafeEncodeString's alphabet. A DaemonSet names it with the pod-template-hash of its template
instead (its controller's snapshot), which `podtemplatehash` computes.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from apiserver import errors
from apiserver.controllers.base import Obj
from apiserver.controllers.client import Client
from apiserver.controllers.informer import Informer
from apiserver.controllers.podtemplatehash import safe_encode
from apiserver.controllers.replicaset import controller_of, owner_reference

HASH_LABEL = "controller.kubernetes.io/hash"
REVISION_LABEL = "controller-revision-hash"  # on pods, and on a DaemonSet's revisions
DEFAULT_HISTORY_LIMIT = 10
_MAX_PREFIX = 223  # a longer parent name is cut so that `<prefix>-<hash>` stays within 253 bytes

# Go's encoder escapes these inside strings, where alone they can occur in JSON text.
_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def go_json(value: Any) -> bytes:
    """json.Marshal of a value decoded into interface{}: map keys sorted, no spaces, HTML escaped."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for char, escaped in _GO_ESCAPES.items():
        text = text.replace(char, escaped)
    return text.encode()


def template_patch(parent: Obj) -> bytes:
    """getPatch of the daemon and statefulset controllers: a patch replacing spec.template with this one."""
    template = dict(parent["spec"]["template"])
    template["$patch"] = "replace"
    return go_json({"spec": {"template": template}})


def fnv32(data: bytes) -> int:
    """FNV-1, 32 bits (Go's fnv.New32): multiply, then xor."""
    h = 0x811C9DC5
    for byte in data:
        h = (h * 0x01000193) & 0xFFFFFFFF
        h ^= byte
    return h


def hash_revision(data: bytes, probe: int | None) -> str:
    """history.HashControllerRevision."""
    if probe is not None:
        data += str(probe).encode()
    return safe_encode(str(fnv32(data)))


def revision_name(prefix: str, hash_value: str) -> str:
    return f"{prefix[:_MAX_PREFIX]}-{hash_value}"


def revision_number(revision: Obj) -> int:
    return int(revision.get("revision") or 0)


def new_revision(parent: Obj, name: str, labels: dict[str, str], data: bytes, number: int,
                 annotations: dict[str, str] | None) -> Obj:
    meta: Obj = {"name": name, "namespace": parent["metadata"]["namespace"], "labels": labels,
                 "ownerReferences": [owner_reference(parent)]}
    if annotations:
        meta["annotations"] = dict(annotations)
    return {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": meta,
            "data": json.loads(data), "revision": number}


def same_data(revision: Obj, data: bytes) -> bool:
    """history.EqualRevision on data already known: the stored data re-encoded as Go would."""
    return go_json(revision.get("data")) == data


class Histories:
    """The ControllerRevisions of one kind of parent, read from their informer, written through the client."""

    def __init__(self, client: Client, informer: Informer) -> None:
        self.client = client
        self.informer = informer
        self.rt = client.resource("apps", "v1", "controllerrevisions")

    def owned(self, parent: Obj) -> list[Obj]:
        """The parent's revisions, oldest revision number first (a stable sort, as upstream's)."""
        uid = parent["metadata"]["uid"]
        found = [r for r in self.informer.items(parent["metadata"]["namespace"])
                 if (ref := controller_of(r)) is not None and ref.get("uid") == uid]
        return sorted(found, key=revision_number)

    async def claim(self, revision: Obj, data: bytes) -> Obj | None:
        """The revision created, or the one already holding its name with the same data (a sync that
        ran before its informer saw its own create); None when other data holds the name: a hash
        collision, for the caller to count.

        A name refused (409 AlreadyExists) but gone again when read back (its owner's garbage collected
        meanwhile) raises NotFound for the sync to be retried afresh: a name nobody holds is no collision.
        """
        meta = revision["metadata"]
        try:
            return await self.client.create(self.rt, meta["namespace"], revision)
        except errors.ApiError as exc:
            if exc.code != 409:
                raise
        held = self.client.get(self.rt, meta["namespace"], meta["name"])
        if held is None:
            raise errors.not_found(self.rt.plural, self.rt.group, meta["name"])
        return held if same_data(held, data) else None

    async def renumber(self, revision: Obj, number: int) -> Obj:
        if revision_number(revision) == number:
            return revision
        return await self.client.update(self.rt, {**revision, "revision": number})

    async def truncate(self, revisions: Iterable[Obj], live: set[str], limit: int) -> None:
        """Deletes the oldest revisions no pod and neither current nor update revision uses, beyond `limit`."""
        history = [r for r in revisions if r["metadata"]["name"] not in live]
        for revision in history[:max(len(history) - limit, 0)]:
            await self.delete(revision)

    async def delete(self, revision: Obj) -> None:
        meta = revision["metadata"]
        await self.client.delete(self.rt, meta["namespace"], meta["name"], {"preconditions": {"uid": meta["uid"]}})


def history_limit(parent: Obj) -> int:
    value = parent["spec"].get("revisionHistoryLimit")
    return DEFAULT_HISTORY_LIMIT if value is None else int(value)
