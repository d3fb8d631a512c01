"""The write path's side of the admission seam: the Attributes of one write, the chain run on them,
and what the plugins added to the answer.

The endpoint calls `mutate` where upstream's handlers run mutating admission (after decoding,
defaulting and the field manager, before the registry's PrepareFor* and Validate) and `validate`
where the registry runs validating admission (after its own validation, just before storage; on a
dry run too, which then stores nothing). A write with no user (the server's own: bootstrap,
allocations, status kept by the server) and a chain with no plugin are not admitted at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from apiserver.admission.attributes import Attributes, GroupVersionKind, GroupVersionResource, Obj, Operation
from apiserver.admission.chain import AdmissionChain, Admitted

if TYPE_CHECKING:
    from apiserver.http.endpoint import Target


def kind_of(t: Target) -> GroupVersionKind:
    """The kind a request's body is: its resource's, or a subresource's own (Scale, Binding, Eviction)."""
    rt = t.rt
    sub = None if t.subresource is None else rt.subresource(t.subresource)
    if sub is None or (sub.kind == rt.kind and not sub.group and not sub.version):
        return GroupVersionKind(rt.group, rt.version, rt.kind)
    if not sub.group and not sub.version:
        return GroupVersionKind(rt.group, rt.version, sub.kind)
    return GroupVersionKind(sub.group, sub.version, sub.kind)


def attributes(t: Target, operation: Operation, obj: Obj | None, old: Obj | None, options: Obj | None,
               name: str | None = None) -> Attributes | None:
    """The write as admission sees it, or None when it is not admitted (see the module's docstring)."""
    if t.user is None:
        return None
    resource = GroupVersionResource(t.rt.group, t.rt.version, t.rt.plural)
    if name is None:
        name = t.name or ("" if obj is None else str((obj.get("metadata") or {}).get("name") or ""))
    return Attributes(operation, kind_of(t), resource, t.subresource or "", t.namespace, name, obj, old,
                      t.user, t.dry_run, options)


def admitted(t: Target) -> Admitted:
    """What the plugins added to `t`'s answer so far, made if none has run yet (to share it among the
    items of a deletecollection)."""
    if t.admitted is None:
        t.admitted = Admitted()
    return t.admitted


async def mutate(chain: AdmissionChain, t: Target, operation: Operation, obj: Obj, old: Obj | None,
                 options: Obj, first: Callable[[Obj], Obj] | None = None) -> Obj:
    """The object after the mutating plugins: `obj` itself, changed or not, or the one a plugin made.

    `first`, when some plugin will see the object, makes it what they are shown (work only worth doing
    for them, such as the field manager's entries of an update)."""
    if chain.empty:
        return obj
    attrs = attributes(t, operation, obj, old, options)
    if attrs is None or not chain.mutates(attrs):
        return obj
    if first is not None:
        attrs.object = first(obj)
    await chain.admit(attrs, admitted(t))
    assert attrs.object is not None
    return attrs.object


async def validate(chain: AdmissionChain, t: Target, operation: Operation, obj: Obj | None, old: Obj | None,
                   options: Obj, name: str | None = None) -> None:
    if chain.empty:
        return
    attrs = attributes(t, operation, obj, old, options, name)
    if attrs is not None:
        await chain.validate(attrs, admitted(t))


async def admit_delete(chain: AdmissionChain, t: Target, old: Obj, options: Obj,
                       name: str | None = None) -> None:
    """A delete's admission: mutating then validating plugins on the object about to go, with no new one
    (upstream's AdmissionToValidateObjectDeleteFunc); a deletecollection's items are admitted unnamed."""
    if chain.empty:
        return
    attrs = attributes(t, "DELETE", None, old, options, name)
    if attrs is None:
        return
    await chain.admit(attrs, admitted(t))
    await chain.validate(attrs, admitted(t))


# The options of a connect request, as its query decodes into them (Go's field order and omitempty).
_CONNECT_FIELDS = {
    "exec": ("PodExecOptions", (("stdin", bool), ("stdout", bool), ("stderr", bool), ("tty", bool),
                                ("container", str), ("command", list))),
    "attach": ("PodAttachOptions", (("stdin", bool), ("stdout", bool), ("stderr", bool), ("tty", bool),
                                    ("container", str))),
    "portforward": ("PodPortForwardOptions", (("ports", int),)),
}


def connect_options(subresource: str, items: list[tuple[str, str]]) -> Obj | None:
    """A pod's exec, attach or portforward options from the query's (repeatable) parameters, as the
    parameter codec decodes them: a bool is false only for "0" and "false"; None for another request."""
    found = _CONNECT_FIELDS.get(subresource)
    if found is None:
        return None
    kind, fields = found
    values: dict[str, list[str]] = {}
    for key, value in items:
        values.setdefault(key, []).append(value)
    options: Obj = {"kind": kind, "apiVersion": "v1"}
    for name, typed in fields:
        given = values.get(name)
        if typed is bool:
            if given and given[0] != "0" and given[0].lower() != "false":
                options[name] = True
        elif typed is str:
            if given and given[0]:
                options[name] = given[0]
        elif typed is list:
            options[name] = given
        elif given:
            # What is not a port is refused by the port forward's own checks, after admission.
            options[name] = [int(v) for v in given if v.isdigit()]
    return options


async def connect(chain: AdmissionChain, t: Target, options: Obj) -> None:
    """A connect request's admission (upstream's rest.go): mutating then validating plugins on the
    options, CONNECT, before anything is connected."""
    if chain.empty:
        return
    attrs = attributes(t, "CONNECT", options, None, None)
    if attrs is not None:
        await chain.admit(attrs, admitted(t))
        await chain.validate(attrs, admitted(t))


def warn(t: Target, texts: Sequence[str]) -> None:
    """Records the strategy's warnings where they come in the write, among the plugins'."""
    if texts:
        admitted(t).warn(texts)


def carry(t: Target, headers: Mapping[str, str]) -> None:
    """Records decoding's warnings, given as the Warning header it wrote."""
    if headers:
        admitted(t).carry(headers)


def headers(t: Target, headers: dict[str, Any]) -> dict[str, str]:
    """`headers` with the warnings the write collected (those of a refused one: app's error answer)."""
    if t.admitted is None or not t.admitted.warnings:
        return headers
    return {**headers, "Warning": t.admitted.header()}
