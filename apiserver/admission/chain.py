"""The admission chain: mutating plugins in order, then (after the registry's own validation) the
validating ones, as kube-apiserver's admission chain runs them.

A plugin says cheaply whether it `handles` a request, so a plugin with nothing to match costs one call
and a chain with no plugin for a request costs nothing; what it adds to the answer (warnings, audit
annotations) it returns as a `Verdict`, and a refusal it raises as an `errors.ApiError` carrying
upstream's code and message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from apiserver import errors
from apiserver.admission.attributes import Attributes
from apiserver.warningtext import warning_line


class Verdict(NamedTuple):
    """What an admitting plugin adds to the answer: `Warning` header texts and audit annotations."""

    warnings: tuple[str, ...] = ()
    audit_annotations: tuple[tuple[str, str], ...] = ()


ALLOWED = Verdict()
_ENTRY = re.compile(r'299 - "(?:[^"\\]|\\.)*"')


class MutatingPlugin(Protocol):
    """A plugin that may also have `async start()` and `async stop()`, called with the server's lifespan,
    and an `idle` property, true while it has nothing to enforce (a webhook plugin without any
    configuration), which lets a write skip admission altogether."""

    name: str

    def handles(self, attributes: Attributes) -> bool:
        """Whether `admit` has anything to do for this request; called for every admitted write."""

    async def admit(self, attributes: Attributes) -> Verdict:
        """May replace or change `attributes.object`; raises an ApiError to refuse the request."""


class ValidatingPlugin(Protocol):
    name: str

    def handles(self, attributes: Attributes) -> bool:
        """Whether `validate` has anything to do for this request; called for every admitted write."""

    async def validate(self, attributes: Attributes) -> Verdict:
        """Raises an ApiError to refuse the request; never changes the object."""


@dataclass
class Admitted:
    """What one request collected for its answer: the Warning entries of its decoding, its plugins and
    its strategy in the order they came (upstream's warning recorder, written whatever the outcome), and
    the plugins' audit annotations."""

    warnings: list[str] = field(default_factory=list)  # entries as written: 299 - "text"
    audit_annotations: dict[str, str] = field(default_factory=dict)

    def add(self, verdict: Verdict) -> None:
        self.warn(verdict.warnings)
        if verdict.audit_annotations:
            self.audit_annotations.update(verdict.audit_annotations)

    def warn(self, texts: Sequence[str]) -> None:
        self.warnings.extend(warning_line(text) for text in texts)

    def carry(self, headers: Mapping[str, str]) -> None:
        """The entries of a Warning header already written (decoding's)."""
        self.warnings.extend(_ENTRY.findall(headers.get("Warning") or ""))

    def header(self) -> str:
        """The Warning header value, each entry once: upstream's recorder drops a repeat (a write decided
        again after a conflict warns again)."""
        return ", ".join(dict.fromkeys(self.warnings))

    def onto(self, refusal: errors.ApiError) -> errors.ApiError:
        """`refusal` answering with these warnings before the refusing plugin's own."""
        if self.warnings:
            given = refusal.headers.get("Warning")
            refusal.headers = {**refusal.headers, "Warning": f"{self.header()}, {given}" if given else self.header()}
        return refusal


class AdmissionChain:
    """The plugins of one server, in upstream's order (see `apiserver.admission.plugins`)."""

    def __init__(self, mutating: Sequence[MutatingPlugin] = (),
                 validating: Sequence[ValidatingPlugin] = ()) -> None:
        self.mutating = tuple(mutating)
        self.validating = tuple(validating)
        # Each plugin once, for starting and stopping what it keeps up to date (a webhook plugin's watch).
        self._plugins = list({id(p): p for p in (*self.mutating, *self.validating)}.values())

    async def start(self) -> None:
        """Starts the plugins that watch something, once the store serves: called in the server's lifespan."""
        for plugin in self._plugins:
            start = getattr(plugin, "start", None)
            if start is not None:
                await start()

    async def stop(self) -> None:
        for plugin in self._plugins:
            stop = getattr(plugin, "stop", None)
            if stop is not None:
                await stop()

    @property
    def empty(self) -> bool:
        """No plugin has anything to do now (none at all, or each says it is `idle`): the write path
        need not even build the Attributes."""
        return all(getattr(plugin, "idle", False) for plugin in self._plugins)

    def mutates(self, attributes: Attributes) -> bool:
        """Whether any mutating plugin handles the request."""
        return any(plugin.handles(attributes) for plugin in self.mutating)

    async def admit(self, attributes: Attributes, admitted: Admitted) -> None:
        """Runs every mutating plugin that handles the request, and all of them once more when one
        asked to be reinvoked (upstream's reinvocation: in-tree plugins are idempotent)."""
        handling = [plugin for plugin in self.mutating if plugin.handles(attributes)]
        if not handling:
            return
        attributes.reinvoke = False
        for plugin in handling:
            admitted.add(await plugin.admit(attributes))
        if attributes.reinvoke:
            attributes.reinvoke = False
            attributes.reinvoking = True
            for plugin in self.mutating:
                if plugin.handles(attributes):
                    admitted.add(await plugin.admit(attributes))

    async def validate(self, attributes: Attributes, admitted: Admitted) -> None:
        """A refusal carries the refusing plugin's own warnings (`with_warnings`); those of the plugins
        before it are in `admitted`, which the HTTP edge adds to any error the write ends with."""
        for plugin in self.validating:
            if plugin.handles(attributes):
                admitted.add(await plugin.validate(attributes))


def warning_header(texts: Sequence[str]) -> str:
    """The Warning header value of warnings, each as kube-apiserver writes one (299 - "text"), each text
    once: upstream's recorder drops a repeat (a write decided again after a conflict admits again)."""
    return ", ".join(warning_line(text) for text in dict.fromkeys(texts))


def with_warnings(refusal: errors.ApiError, texts: Sequence[str]) -> errors.ApiError:
    """`refusal` answering with `texts` as warnings too, before any it carries: upstream writes the
    warnings a request collected whatever its outcome."""
    if texts:
        given = refusal.headers.get("Warning")
        header = warning_header(texts)
        refusal.headers = {**refusal.headers, "Warning": f"{header}, {given}" if given else header}
    return refusal


def forbidden(attributes: Attributes, message: str, causes: Sequence[str] = ()) -> errors.ApiError:
    """admission.NewForbidden: `<resource> "<name>" is forbidden: <message>`, 403 Forbidden, the name being
    the request's, else the object's name or generateName, else "Unknown" (extractResourceName: a
    deletecollection names none); `causes` are listed in the details."""
    name = attributes.name
    if not name:
        meta = (attributes.object or {}).get("metadata") or {}
        name = str(meta.get("name") or meta.get("generateName") or "Unknown")
    resource, group = attributes.resource.resource, attributes.resource.group
    details: dict[str, object] = {"name": name, "group": group, "kind": resource}
    if not group:
        del details["group"]
    if causes:
        details["causes"] = [{"message": cause} for cause in causes]
    text = f'{errors.qualified(resource, group)} "{name}" is forbidden: {message}'
    return errors.ApiError(403, "Forbidden", text, details)
