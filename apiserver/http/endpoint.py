"""The verbs on a resource: get, list, watch, create, update, patch, delete, deletecollection.

Each takes what the request addressed and answers a Reply; the store holds bytes, and only writes
decode an object. Reads splice the stored bytes into the answer.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Awaitable, Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import orjson

from apiserver import errors
from apiserver.admission.attributes import create_options, delete_options, update_options
from apiserver.admission.chain import AdmissionChain, Admitted
from apiserver.admission.webhook.client import WebhookClient
from apiserver.auth.access import Attributes, Authorizer
from apiserver.auth.tokens import User
from apiserver.crd import crdspec
from apiserver.crd.converting import CustomConversion, converts
from apiserver.crd.webhookconversion import Converter
from apiserver.http import admitting
from apiserver.http import delete_options as deleting
from apiserver.http.limits import Limits
from apiserver.kinds import (
    admission,
    binding,
    fieldmanager,
    fieldvalidation,
    gracefuldelete,
    managedfields,
    namespacelifecycle,
    objects,
    ownership,
    propagation,
    schemas,
    scheme,
    unconditional,
)
from apiserver.kinds.conversion import Codec, codec_for
from apiserver.kinds.resources import Registry, ResourceType
from apiserver.patching import apply, patch, unstructured
from apiserver.query import list_options, paging
from apiserver.query.selection import Selection, selection_for
from apiserver.registry.core import service_allocation as services
from apiserver.registry.hooks import Ask, Request, Requester
from apiserver.registry.lookup import strategy_for
from apiserver.reply import Reply, StreamReply
from apiserver.shapes.assembled import AssemblyCache
from apiserver.shapes.shape import Listing, Shape, typed_list_items
from apiserver.storage.interface import (
    Expired,
    Key,
    PreconditionFailed,
    ResourceChanged,
    StorageUnavailable,
    Store,
    StoredObject,
    StoreUnreachable,
)
from apiserver.storage.snapshot import Snapshot
from apiserver.watch.fanout import Watcher, WatchHub
from apiserver.watch.stream import open_watch, parse_watch_options
from apiserver.wire import bodies, gojson, gonumbers, goyaml, protobuf

_NAMESPACES = "namespaces"
# The query parameters besides resourceVersion that parse_page reads and may refuse.
_PAGING_OPTIONS = frozenset(("limit", "continue", "resourceVersionMatch"))
# The page a DeleteCollection lists at a time when the request sets no limit (deleteCollectionPageSize).
_DELETE_COLLECTION_PAGE = 10_000
_UNPAGED = paging.Page(None, False, None, 0)  # what a list without limit or continue reads: all of it
# Declared here: inside Endpoint, `list` names the verb.
ManagedFields = list[dict[str, Any]]


@dataclass
class Target:
    """One resource request: the type, where it points, and its query parameters."""

    rt: ResourceType
    namespace: str
    name: str | None
    subresource: str | None
    query: Mapping[str, str]
    user_agent: str = ""
    # The query as sent, for the options that take every value of a repeated parameter (a delete's dryRun).
    raw_query: bytes = b""
    # A check of the object about to be written that may refuse it (RBAC's escalation prevention).
    admit: Callable[[dict[str, Any]], None] | None = None
    # Who asked, for the kinds that record it (CertificateSigningRequests).
    requester: Requester | None = None
    # Who admission is told asked; None for the server's own writes, which are not admitted.
    user: User | None = None
    # What the admission plugins added to this write's answer (made when a plugin first runs).
    admitted: Admitted | None = None
    # The authorizer's verb of the request, and what a strategy may ask it for the request's user.
    verb: str = ""
    ask: Ask | None = None

    def hook_request(self) -> Request:
        """The request as a kind's storage hooks may know it (registry.hooks.Request)."""
        return Request(self.requester, self.dry_run, self.verb, self.namespace, self.ask)

    @property
    def codec(self) -> Codec:
        return codec_for(self.rt)

    def key(self, name: str | None = None) -> Key:
        return (self.rt.storage_key, self.namespace if self.rt.namespaced else "", name or self.name or "")

    @property
    def dry_run(self) -> bool:
        return self.query.get("dryRun") == "All"

    @property
    def manager(self) -> str | None:
        """Who managedFields credit with a write: fieldManager, else the client's name from its User-Agent."""
        # kube-apiserver tracks every write; one with neither names an empty manager.
        return self.query.get("fieldManager") or self.user_agent.split("/", 1)[0]


def _encode(obj: Any) -> bytes:
    try:
        return orjson.dumps(obj)
    except orjson.JSONEncodeError as exc:
        # Decoding accepts deeper nesting than encoding can write back (orjson stops at 255 levels).
        raise errors.bad_request(f"the object cannot be stored: {exc}") from None


def _json(status: int, body: Any) -> Reply:
    return Reply(status, _encode(body))


class Wait(NamedTuple):
    """What a read waits for before it reads: `revision` (None: every write made anywhere before it),
    unless not `needed` (resourceVersion=0: whatever the store shows)."""

    needed: bool
    revision: int | None


class View(NamedTuple):
    """What a list selects, and which page of it."""

    selection: Selection
    page: paging.Page
    # What the assembled pieces of this view are kept under (see `Endpoint._listing`).
    key: Hashable


def _view(t: Target, selection: Selection, page: paging.Page) -> View:
    # The type itself, hashed by identity (cheaper than by its fields); a CRD's changed type, a new
    # object, finds nothing kept for the one it replaced.
    key = (t.rt, selection.namespace, t.query.get("labelSelector", ""), t.query.get("fieldSelector", ""),
           page.start, page.limit)
    return View(selection, page, key)


class _Superseded(errors.ApiError):
    """The 409 of a write whose expected version another write replaced first: the answer, unless
    the request is decided again on the newer object (see `Endpoint._on_latest`)."""


class _Taken(errors.ApiError):
    """The 409 AlreadyExists of a create another create got in before: the answer to a POST; an apply
    is decided again as an update of the object that won (see `Endpoint._on_latest`)."""


def _taken(t: Target, name: str) -> _Taken:
    exists = errors.already_exists(t.rt.plural, t.rt.group, name)
    return _Taken(exists.code, exists.reason, exists.message, exists.details)


def _revision(stored: StoredObject | None) -> int | None:
    return None if stored is None else stored.rv


def _load(stored: StoredObject) -> dict[str, Any]:
    return orjson.loads(stored.data)  # type: ignore[no-any-return]


class Endpoint:
    def __init__(self, store: Store, registry: Registry, watch_queue_limit: int = 1000,
                 bookmark_seconds: float = 60.0, max_object_bytes: int = Limits.max_object_bytes,
                 service_range: services.ServiceRange = services.DEFAULT_SERVICE_RANGE,
                 min_request_timeout: int = Limits.min_request_timeout_seconds) -> None:
        self.store = store
        self.service_range = service_range
        self.watches = WatchHub(store)
        self.watch_queue_limit = watch_queue_limit  # events a watcher may fall behind before it is closed
        self.bookmark_seconds = bookmark_seconds
        self.min_request_timeout = min_request_timeout  # the least a watch without timeoutSeconds runs
        self.max_object_bytes = max_object_bytes
        self._registry = registry
        self.assembled = AssemblyCache()
        # Replaced by the server's own (apiserver.admission.plugins.build_chain): empty, nothing is admitted.
        self.admission = AdmissionChain()
        # CRDs' conversion webhooks, called through the admission webhooks' client (crd.converting).
        self.conversion = CustomConversion(Converter(WebhookClient(store)))

    @property
    def _namespaced_types(self) -> dict[str, ResourceType]:
        """What a namespace holds, by storage key, for deleting its contents as the namespace controller would.

        Read at each use: custom resources come and go with their CRDs."""
        found: dict[str, ResourceType] = {}
        for rt in self._registry.types:
            if rt.namespaced and not rt.synthetic:
                found.setdefault(rt.storage_key, rt)
        return dict(sorted(found.items()))

    # -- reads ---------------------------------------------------------------------------------

    async def catch_up(self, t: Target, verb: str) -> None:
        """Waits until the store shows what this read must (see `wait_for`)."""
        wait = self.wait_for(t, verb)
        if wait.needed:
            await self.caught_up(wait.revision)

    def wait_for(self, t: Target, verb: str) -> Wait:
        """What the store must show before this read: everything written before it anywhere when it
        names no resourceVersion (a consistent read), at least the revision it names, or ("0") anything.
        400 for a paging option or resourceVersion kube-apiserver refuses."""
        rv = t.query.get("resourceVersion", "")
        # A list's paging options are checked (a 400) before any wait; a list without any has nothing
        # to check and names no revision, and select reads its page anyway: it is not parsed twice here.
        paged = rv not in ("", "0") or not _PAGING_OPTIONS.isdisjoint(t.query)
        page = paging.parse_page(t.query, t.rt.namespaced, None) if verb == "list" and paged else None
        if page is not None and page.revision is not None:
            return Wait(True, page.revision)  # a continue token or a resourceVersion, possibly from another server
        if rv == "0":
            return Wait(False, None)
        if rv and verb != "list":
            return Wait(True, paging.parse_rv(rv))
        return Wait(True, None)

    async def caught_up(self, revision: int | None) -> None:
        """Waits until the store shows `revision` (None: every write made anywhere before now)."""
        try:
            await self.store.catch_up(revision)
        except StoreUnreachable as exc:
            raise errors.unavailable(f"the store is unreachable: {exc}") from None

    def get(self, t: Target, shape: Shape) -> Reply:
        self._fresh_enough(t)
        # Durable state only: a write still waiting for its fsync could be taken back by a crash.
        return self._got(t, shape, self.store.get(t.key()))

    def _fresh_enough(self, t: Target) -> None:
        """A get naming a resourceVersion the store has not reached (after waiting for it) is answered as
        the watch cache answers it, before the object is looked up: 504, too large."""
        rv = t.query.get("resourceVersion")
        if rv and rv != "0":
            requested, current = paging.parse_rv(rv), self.store.revision
            if requested > current:
                raise paging.too_large(requested, current)

    async def converted_read(self, t: Target, shape: Shape, view: View | None) -> Reply:
        """A get (no `view`) or list of a type whose CRD's webhook converts its objects (`crd.converting`):
        the objects read are converted, a list's in one review, and nothing converted is kept."""
        if view is None:
            self._fresh_enough(t)
            stored = self.store.get(t.key())
            return self._got(t, shape, None if stored is None else await self.conversion.served(t.rt, stored))
        listing = self.select(t, view)
        items = await self.conversion.served_items(t.rt, listing.items)
        listing = Listing(listing.revision, items, listing.continue_token, listing.remaining)
        return Reply(200, b"", shape.content_type, parts=shape.list_parts(t.rt, listing))

    def _got(self, t: Target, shape: Shape, stored: StoredObject | None) -> Reply:
        if stored is None:
            raise errors.not_found(t.rt.plural, t.rt.group, t.name or "")
        if t.subresource == "scale":
            return _json(200, objects.scale_for_read(t.rt, _load(stored)))
        return Reply(200, shape.object_body(t.rt, stored), shape.content_type)

    def selection(self, t: Target) -> Selection:
        namespace = t.namespace if t.rt.namespaced and t.namespace else None
        return selection_for(t.rt, namespace, t.query.get("labelSelector", ""), t.query.get("fieldSelector", ""))

    def view(self, t: Target) -> View:
        """What a list asks for: 400 for a selector or paging option kube-apiserver refuses."""
        selection = self.selection(t)
        return _view(t, selection, paging.parse_page(t.query, t.rt.namespaced, selection.namespace))

    def select(self, t: Target, view: View | None = None) -> Listing:
        """One page of what a list answers, in key order, every page read at the first page's revision."""
        if view is None:
            view = self.view(t)
        page = view.page
        current = self.store.revision
        if page.revision is not None and page.revision > current:
            raise paging.too_large(page.revision, current, from_storage=page.exact)
        revision = page.revision if page.exact and page.revision is not None else current
        try:
            return self._listing(t, view, revision)
        except Expired:
            if page.token_start is not None:
                raise paging.continue_too_old(page.token_start) from None
            raise errors.gone(paging.LIST_TOO_OLD) from None

    def _listing(self, t: Target, view: View, revision: int) -> Listing:
        """What one view selects at `revision`: kept in `assembled` and reused, with what the shapes
        joined of it, by every list and watch of that view until the resource is written to.
        Raises Expired when `revision` is older than the retained history."""
        rt = t.rt
        selection = view.selection
        # Looked up before any snapshot is made: a list answered from what was assembled reads nothing.
        version = self.store.version_at(rt.storage_key, revision)
        pieces = None if version is None else self.assembled.lookup(view.key, version)
        if pieces is None:
            snapshot = self.store.snapshot(rt.storage_key, selection.namespace, revision)
            items, more, remaining = _page(snapshot, selection, view.page)
            if snapshot.version is not None:
                pieces = self.assembled.remember(rt.storage_key, view.key, snapshot.version, items, more, remaining)
        else:
            items, more, remaining = pieces.items, pieces.more, pieces.remaining
        if more is None:
            return Listing(revision, items, pieces=pieces)
        last = items[-1][0]
        token = paging.encode_continue(revision, (last[1], last[2]), t.rt.namespaced, selection.namespace)
        return Listing(revision, items, token, remaining, pieces)

    def list(self, t: Target, shape: Shape, view: View | None = None) -> Reply:
        """`view`, when given, is what `view(t)` answered: a list repeated by a client need not parse it again."""
        return Reply(200, b"", shape.content_type, parts=shape.list_parts(t.rt, self.select(t, view)))

    def watch(self, t: Target, shape: Shape) -> StreamReply:
        options = parse_watch_options(t.query)
        selection = self.selection(t)
        initial = _view(t, selection, _UNPAGED)

        def select_initial(revision: int) -> Listing:
            # What a list of this view without paging selects: a list and the watch that follows it
            # (an informer), or many watchers starting together, select once and share the bytes.
            return self._listing(t, initial, revision)

        chunks, closed = open_watch(self.store, self.watches.fanout(t.rt.storage_key), t.rt, selection, options,
                                    shape, select_initial, self.watch_queue_limit, self.bookmark_seconds, self.min_request_timeout,
                                    functools.partial(self.conversion.served_all, t.rt) if converts(t.rt) else None)
        return StreamReply(chunks, shape.content_type, closed=closed)

    def follow(self, rt: ResourceType, since: int, queue_limit: int) -> Watcher:
        """Every change of a resource after revision `since`, the retained ones queued at once and the
        rest as they come, with no gap; raises Expired when `since` is older than the history."""
        return self.watches.fanout(rt.storage_key).add(queue_limit, self.store.changes_since(rt.storage_key, since))

    # -- writes --------------------------------------------------------------------------------

    async def create(self, t: Target, raw: bytes, content_type: str | None,
                     applied: ManagedFields | None = None) -> Reply:
        strategy = strategy_for(t.rt)
        if strategy.creates_binding:
            return await self._bind_legacy(t, raw, content_type)
        body = decode_body(t, raw, content_type)
        admitting.carry(t, fieldvalidation.validate(objects.check_identity(t.rt, body, t.namespace, None), raw,
                                                    t.query, t.rt.custom, json_body=bodies.is_json(content_type)))
        _whole_numbers(t, body, raw, content_type)
        versioned = unconditional.set_on_create(body["metadata"].get("resourceVersion"))
        obj = objects.decoded_for_create(t.rt, t.codec.stored(body), t.manager, applied)
        if t.rt.namespaced:
            # NamespaceLifecycle, the first plugin upstream: a missing or terminating namespace is
            # answered before any other plugin sees the object.
            ns = self.store.latest((_NAMESPACES, "", t.namespace))
            objects.require_namespace_usable(None if ns is None else _load(ns), t.namespace, t.rt,
                                             str(obj["metadata"].get("name") or ""))
        obj = await admitting.mutate(self.admission, t, "CREATE", obj, None, create_options(t.query))
        obj = objects.named_for_create(t.rt, obj)
        attempts = strategy.allocation_attempts
        for attempt in range(1, attempts + 1):
            try:
                return await self._create(t, obj if attempt == attempts else copy.deepcopy(obj), versioned)
            except ResourceChanged:
                if attempt == attempts:
                    raise errors.stale_update(t.rt.plural, t.rt.group, obj["metadata"]["name"]) from None
                # Another server allocated from the same ranges meanwhile: decide again on what it wrote.
                await self.caught_up(None)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _create(self, t: Target, obj: dict[str, Any], versioned: bool = False) -> Reply:
        """`versioned`: the body named a resourceVersion, which storage refuses (dry-run never asks it)."""
        strategy = strategy_for(t.rt)
        cluster = _StoreCluster(self)
        # BeginCreate comes before the strategy prepares and judges the object, as upstream's store calls
        # them: what it allocates is judged with the rest, and what it refuses is the whole answer.
        request = t.hook_request()
        decided_at = strategy.begin_create(obj, request, cluster)
        admitting.warn(t, strategy.warnings_on_prepare_create(obj))
        obj = objects.prepare_create(t.rt, obj, strategy.validate_in_cluster(obj, cluster),
                                     lambda valid: strategy.authorize_valid(valid, None, request, cluster))
        shaped_as = objects.shaped_json(obj)
        admitting.warn(t, strategy.warnings_on_create(obj))
        name = obj["metadata"]["name"]
        key = t.key(name)
        if self.store.latest(key) is not None:
            raise _taken(t, name)
        admission.admit_create(t.rt.kind, obj, self._decoded)
        strategy.decorate(obj, None, cluster, objects.now_rfc3339())
        obj = objects.reshaped(obj, shaped_as)
        if t.admit is not None:
            t.admit(obj)
        await admitting.validate(self.admission, t, "CREATE", obj, None, create_options(t.query))
        if t.dry_run:
            # The dry-run storage copies the object as it stands: a resourceVersion the body named is echoed.
            if not obj["metadata"].get("resourceVersion"):
                obj["metadata"].pop("resourceVersion", None)
            if converts(t.rt):
                obj = await self._through_storage(t, obj)
            return Reply(201, orjson.dumps(t.codec.served(_as_written(t, obj))), headers=admitting.headers(t, {}))
        if versioned:
            raise errors.unknown("resourceVersion should not be set on objects to be created")
        await strategy.before_create_write(obj, cluster, objects.now_rfc3339())
        stored = await self._write(t, key, obj, None, unchanged_since=decided_at)
        return Reply(201, t.codec.served_bytes(stored.data), headers=admitting.headers(t, {}))

    async def create_subresource(self, t: Target, raw: bytes, content_type: str | None) -> Reply:
        """POST to a named object's subresource: pods/binding is the one served."""
        subresource = t.rt.subresource(t.subresource or "")
        if subresource is None or subresource.kind != "Binding":
            raise errors.method_not_allowed()
        body = self._decoded_binding(t, raw, content_type)
        return await self._bind(t, body, t.name or "", t)

    async def _bind_legacy(self, t: Target, raw: bytes, content_type: str | None) -> Reply:
        """POST .../bindings: pods/binding for the pod the Binding names (upstream's LegacyBindingREST)."""
        pods = self._registry.lookup("", "v1", "pods")
        if pods is None:
            raise errors.resource_not_found()
        body = self._decoded_binding(t, raw, content_type)
        # Only pods/binding keeps the uid (PreserveRequestObjectMetaSystemFieldsOnSubresourceCreate).
        objects.wipe_system_fields(body["metadata"])
        name = str(body["metadata"].get("name") or "")
        return await self._bind(Target(pods, t.namespace, name, "binding", t.query), body, name, t)

    def _decoded_binding(self, t: Target, raw: bytes, content_type: str | None) -> dict[str, Any]:
        """A Binding body as upstream's create handler decodes it before the pod is looked at: its kind and
        apiVersion, its fields' types, and the unknown or duplicate fields fieldValidation asks about."""
        rt = t.rt if strategy_for(t.rt).creates_binding else self._registry.lookup("", "v1", "bindings")
        if rt is None:
            raise errors.resource_not_found()
        body = objects.check_identity(rt, decode_body(Target(rt, t.namespace, None, None, t.query), raw,
                                                      content_type), t.namespace, None)
        admitting.carry(t, fieldvalidation.validate(body, raw, t.query, json_body=bodies.is_json(content_type)))
        return body

    async def admit_create(self, t: Target, obj: dict[str, Any]) -> dict[str, Any]:
        """A create that stores nothing itself (a Binding, an Eviction): admitted whole, before it acts."""
        obj = await self.mutate_create(t, obj)
        await self.validate_create(t, obj)
        return obj

    async def mutate_create(self, t: Target, obj: dict[str, Any]) -> dict[str, Any]:
        """The mutating admission of a create that stores nothing itself, NamespaceLifecycle first."""
        if t.rt.namespaced:
            ns = self.store.latest((_NAMESPACES, "", t.namespace))
            objects.require_namespace_usable(None if ns is None else _load(ns), t.namespace, t.rt,
                                             t.name or str((obj.get("metadata") or {}).get("name") or ""))
        return await admitting.mutate(self.admission, t, "CREATE", obj, None, create_options(t.query))

    async def validate_create(self, t: Target, obj: dict[str, Any]) -> None:
        """Its validating admission (a TokenRequest's comes after its own validation)."""
        await admitting.validate(self.admission, t, "CREATE", obj, None, create_options(t.query))

    async def _bind(self, pods: Target, body: Any, name: str, asked: Target) -> Reply:
        """`asked` is the request as the client made it: pods/binding, or the legacy bindings resource."""
        if isinstance(body, dict) and not self.admission.empty:
            body = await self.admit_create(asked, body)
        request = binding.check(body, name, pods.namespace)
        if not name:
            raise errors.bad_request("Name parameter required.")
        target = Target(pods.rt, pods.namespace, name, "binding", pods.query)
        current = self._require(target)
        if asked.rt is pods.rt:
            node_name = str((request.get("target") or {}).get("name") or "")
            binding.admit_topology(request, _StoreCluster(self).get("nodes", "", node_name))
        bound = binding.bind(_load(current), request)
        if not target.dry_run:
            await self._write(target, target.key(), bound, current)
        return Reply(201, _encode({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                                   "code": 201}), headers=admitting.headers(asked, {}))

    async def update(self, t: Target, raw: bytes, content_type: str | None) -> Reply:
        creates = strategy_for(t.rt).creates_on_update and t.subresource is None
        # The update handler decodes the body and checks its name before the object is looked for: a body
        # it cannot take is a 400 even for a missing object.
        body = decode_body(t, raw, content_type)
        # A Scale is decoded as autoscaling/v1's, for a custom resource too (its replicas an int32).
        scale = t.subresource == "scale"
        try:
            if isinstance(body, dict):
                admitting.carry(t, fieldvalidation.validate(body, raw, t.query, None if scale else t.rt.custom,
                                                            _SCALE_TYPE if scale else (t.rt.kind, t.rt.api_version),
                                                            bodies.is_json(content_type)))
        except errors.ApiError as refused:
            if scale and t.rt.custom is not None and refused.code == 400:
                # The custom resource handler's scheme, asked to name the Scale it could not decode, fails.
                raise errors.bad_request(_CUSTOM_SCALE_UNDECODABLE) from None
            raise
        if not scale:
            body = objects.check_identity(t.rt, body, t.namespace, t.name)
        elif t.rt.custom is None:
            body = objects.check_identity(_scale_type(t.rt), body, t.namespace, t.name)
        if not creates:
            self._require(t)

        unused = [_whole_numbers(t, body, raw, content_type)]

        def fresh() -> Any:
            # An attempt changes the body it decides on: the first takes the one decoded, a retry another.
            return unused.pop() if unused else _whole_numbers(t, decode_body(t, raw, content_type), raw, content_type)

        async def write(current: StoredObject) -> Reply:
            if t.subresource == "scale":
                return await self._scale(t, current, fresh())
            return await self._replace(t, current, fresh(), check_rv=True)

        async def create() -> Reply:
            # AllowCreateOnUpdate: a PUT of a missing object creates it, named as the URL names it.
            # Checked on a body of its own: an attempt at `write` may have changed the decoded one.
            objects.check_identity(t.rt, decode_body(t, raw, content_type), t.namespace, t.name)
            return await self.create(t, raw, content_type)
        return await self._on_latest(t, write, create if creates else None)

    async def patch(self, t: Target, raw: bytes, content_type: str | None) -> Reply:
        if apply.is_apply(content_type):
            return await self._apply(t, raw)

        how = fieldvalidation.directive(t.query)

        async def write(current: StoredObject) -> Reply:
            if t.subresource == "scale":
                original = objects.scale_to_patch(t.rt, _load(current))
                patched_scale, problems = patch.apply_patch(original, raw, content_type, how)
                undecodable = None if t.rt.custom is not None else \
                    _undecodable_type(_scale_type(t.rt), patched_scale, content_type)
                patch.decoded(patched_scale, raw, content_type, how, problems, None, _SCALE_TYPE, undecodable)
                return await self._scale(t, current, patched_scale)
            patched, problems = patch.apply_patch(t.codec.served(_load(current)), raw, content_type, how)
            undecodable = _undecodable_type(t.rt, patched, content_type)
            if t.rt.custom is None and isinstance(patched, dict) and \
                    bodies.media_type(content_type) == bodies.STRATEGIC_PATCH:
                # Converted from unstructured into the typed object, which keeps no type meta of its own.
                patched["kind"], patched["apiVersion"] = t.rt.kind, t.rt.api_version
            admitting.carry(t, patch.decoded(patched, raw, content_type, how, problems, t.rt.custom,
                                             (t.rt.kind, t.rt.api_version), undecodable))
            if t.rt.custom is None and isinstance(patched, dict):
                # Decoded into the request's type from whichever version of its kind the patch named.
                patched["kind"], patched["apiVersion"] = t.rt.kind, t.rt.api_version
            return await self._replace(t, current, patched, check_rv=True)
        return await self._on_latest(t, write)

    async def _on_latest(self, t: Target, write: Callable[[StoredObject], Awaitable[Reply]],
                         create: Callable[[], Awaitable[Reply]] | None = None) -> Reply:
        """`write` decided on the object as this server last saw it, and decided again on a newer one
        while another write got in first, as upstream's GuaranteedUpdate and conditionalDelete retry.

        Over etcd this server's cache is a step behind: a write committed by another client (or by
        this server, its watch event not yet applied) fails the commit's comparison, though the
        request named no version. A resourceVersion or precondition the request did name is checked
        again on the newer object, and fails there as it must.

        With `create` (server-side apply) an absent object is created instead of answered 404, and a
        create that another create beat is decided again as `write` on the object that won: upstream's
        GuaranteedUpdate creates only while the key is empty, and retries on what fills it."""
        while True:
            current = self._require(t) if create is None else self.store.latest(t.key())
            try:
                if current is None:
                    assert create is not None  # without it, `_require` answered 404
                    return await create()
                # Decided on the object in the request's version, as upstream's storage decodes it.
                return await write(await self.conversion.served(t.rt, current) if converts(t.rt) else current)
            except (_Superseded, _Taken):
                await self.caught_up(None)
                if _revision(self.store.latest(t.key())) == _revision(current):
                    raise

    async def _apply(self, t: Target, raw: bytes) -> Reply:
        """Server-side apply: the configuration merged into the object (created if absent) by its manager.

        On /scale the configuration is a Scale, applied as the object's replicas alone."""
        scale = t.subresource == "scale"
        kind, api_version = ("Scale", "autoscaling/v1") if scale else (t.rt.kind, t.rt.api_version)
        config = apply.decode_configuration(kind, api_version, raw, t.name or "")
        if scale:
            config = objects.scale_configuration(t.rt, config)
        schema, _ = ownership.ownership_schema(t.rt, config)
        if schema is None:
            raise errors.unsupported_media_type([bodies.JSON_PATCH, bodies.MERGE_PATCH])
        problem = fieldmanager.typed_config_error(config, schema, t.rt.api_version, t.rt.kind)
        if problem is not None:
            raise problem
        request = fieldmanager.Request(t.query["fieldManager"], t.rt.api_version, t.subresource, objects.now_rfc3339())
        ignored = ownership.reset_fields(t.rt, t.subresource)
        force, custom = apply.forced(t.query), t.rt.custom is not None

        async def create() -> Reply:
            if t.subresource is not None:
                raise errors.not_found(t.rt.plural, t.rt.group, t.name or "")
            named = {**config, "metadata": {**(config.get("metadata") or {}), "name": t.name}}
            empty = {"apiVersion": t.rt.api_version, "kind": t.rt.kind, "metadata": {}}
            merged, entries = fieldmanager.apply([], empty, copy.deepcopy(named), schema, request, force, ignored,
                                                 custom)
            _convertible(t, named, merged, raw)
            return await self.create(t, orjson.dumps(merged), bodies.JSON, applied=entries)

        async def update(current: StoredObject) -> Reply:
            live = t.codec.served(_load(current))
            entries = list(live["metadata"].pop("managedFields", None) or ())
            merged, entries = fieldmanager.apply(entries, live, copy.deepcopy(config), schema, request, force, ignored,
                                                 custom)
            _convertible(t, config, merged, raw)
            reply = await self._replace(t, current, merged, check_rv=True, applied=entries)
            if scale:
                return _json(reply.status, objects.scale_of(t.rt, t.codec.stored(orjson.loads(reply.body))))
            return reply
        return await self._on_latest(t, update, create)

    async def _replace(self, t: Target, current: StoredObject, body: Any, check_rv: bool,
                       applied: ManagedFields | None = None) -> Reply:
        new = t.codec.stored(objects.check_identity(t.rt, body, t.namespace, t.name))
        old = _load(current)
        given = new["metadata"].get("resourceVersion")
        rv = unconditional.precondition(t.rt, t.name or "", given) if check_rv else None
        if rv and rv != str(current.rv):
            raise errors.stale_update(t.rt.plural, t.rt.group, t.name or "")
        applying = applied is not None  # `applied` comes to hold the field manager's entries of any update
        strategy = strategy_for(t.rt)
        if t.subresource is None:
            strategy.begin_update(new, old, Request(t.requester, t.dry_run), _StoreCluster(self))
        if not self.admission.empty:
            # Mutating admission sees the object as decoded and defaulted, before the update strategy.
            tracked: list[ManagedFields] = []

            def field_manager_first(obj: dict[str, Any]) -> dict[str, Any]:
                # Upstream's field manager runs before mutating admission: webhooks see its entries,
                # and what they add is owned by no one.
                entries = _tracked_before_admission(t, copy.deepcopy(obj), old)
                if entries is not None:
                    tracked.append(entries)
                    obj["metadata"]["managedFields"] = entries
                return obj
            first = field_manager_first if applied is None else None
            decoded = objects.decoded_for_update(t.rt, new, applying)
            new = await admitting.mutate(self.admission, t, "UPDATE", decoded, old, update_options(t.query),
                                         first)
            if tracked:
                applied = tracked[0]
        # The main resource's update is shaped once, below, after the strategy's last changes.
        ratcheted: list[str] = []  # a custom resource's rule failures that ratcheting let through
        request = t.hook_request()
        cluster = _StoreCluster(self)

        def in_cluster(subresource: str, prepared: dict[str, Any], old: dict[str, Any]) -> list[errors.FieldError]:
            return strategy.validate_subresource_in_cluster(subresource, prepared, old, request, cluster)
        try:
            prepared = objects.prepare_update(
                t.rt, new, old, t.subresource, t.manager, applied, shape=t.subresource is not None,
                warnings=ratcheted, applying=applying, in_cluster=in_cluster,
                if_valid=lambda valid: strategy.authorize_valid(valid, old, request, cluster))
        finally:
            admitting.warn(t, ratcheted)  # a refused update warns of them too, as upstream's context does
        if t.subresource is None:
            admitting.warn(t, strategy.warnings_on_update(prepared, old))
            strategy.decorate(prepared, old, _StoreCluster(self), objects.now_rfc3339())
            prepared = objects.reshaped(prepared)
        else:
            admitting.warn(t, strategy.warnings_on_subresource_update(t.subresource, prepared, old))
        prepared["metadata"]["resourceVersion"] = old["metadata"].get("resourceVersion")
        if t.admit is not None:
            t.admit(prepared)
        await admitting.validate(self.admission, t, "UPDATE", prepared, old, update_options(t.query))
        headers = admitting.headers(t, {})
        if _same_but_managed_fields(prepared, old) and fieldmanager.same_but_times(
                prepared["metadata"].get("managedFields") or [], old["metadata"].get("managedFields") or []):
            prepared = old
        if prepared == old:
            return Reply(200, t.codec.served_bytes(current.data), headers=headers)
        if t.dry_run:
            if converts(t.rt):
                prepared = await self._through_storage(t, prepared)
            return Reply(200, orjson.dumps(t.codec.served(_as_written(t, prepared))), headers=headers)
        if t.subresource is None:
            await strategy.before_update_write(prepared, old, _StoreCluster(self), objects.now_rfc3339())
        meta = prepared["metadata"]
        held = meta.get("finalizers") or (strategy.spec_finalizers and (prepared.get("spec") or {}).get("finalizers"))
        if meta.get("deletionTimestamp") and not held and not meta.get("deletionGracePeriodSeconds"):
            stored = await self._write(t, t.key(), prepared, current, delete=True)
            await self._finalize_namespace_if_empty(t)
        else:
            stored = await self._write(t, t.key(), prepared, current)
        return Reply(200, t.codec.served_bytes(stored.data), headers=headers)

    async def _scale(self, t: Target, current: StoredObject, scale: Any) -> Reply:
        admitted = isinstance(scale, dict) and not self.admission.empty
        old_scale = objects.scale_of(t.rt, _load(current)) if admitted else None
        if admitted:
            scale = await admitting.mutate(self.admission, t, "UPDATE", scale, old_scale,
                                           update_options(t.query))
        obj = objects.apply_scale(t.rt, _load(current), scale, t.manager)
        if admitted:
            await admitting.validate(self.admission, t, "UPDATE", objects.scale_of(t.rt, obj), old_scale,
                                     update_options(t.query))
        if not t.dry_run:
            current = await self._write(t, t.key(), obj, current)
            obj = _load(current)
        return Reply(200, _encode(objects.scale_of(t.rt, obj)), headers=admitting.headers(t, {}))

    async def delete(self, t: Target, raw: bytes, content_type: str | None) -> Reply:
        options = deleting.read(raw, content_type, t.query, t.raw_query)
        t = _as_options_ask(t, options)
        # The storage's own warnings come first, whether or not the object is found.
        warned = strategy_for(t.rt).warnings_on_delete(options)
        refusal = strategy_for(t.rt).refuses_delete(t.name or "")
        if refusal is not None:
            raise errors.forbidden_object(t.rt.plural, t.rt.group, t.name or "", refusal)
        admitting.warn(t, warned)
        reply = await self._on_latest(t, lambda current: self._delete_one(t, t.key(), current, options))
        reply.headers = admitting.headers(t, reply.headers)
        return reply

    async def _delete_one(self, t: Target, key: Key, current: StoredObject, options: dict[str, Any],
                          collection: bool = False) -> Reply:
        obj = _load(current)
        objects.check_preconditions(t.rt, obj, options.get("preconditions"))
        if not self.admission.empty:
            # A deletecollection's items are admitted as upstream's are: without a name.
            await admitting.admit_delete(self.admission, t, _load(current), delete_options(options, t.query),
                                         "" if collection else None)
        strategy = strategy_for(t.rt)
        if strategy.deletes_contents:
            return _left_in_place(await self._delete_namespace(t, key, current, obj, options), options)
        if strategy.marks_on_delete is not None and not obj["metadata"].get("deletionTimestamp"):
            strategy.marks_on_delete(obj, objects.now_rfc3339())
            marked = objects.ordered(obj)
            if t.dry_run:
                return _left_in_place(Reply(200, orjson.dumps(t.codec.served(marked))), options)
            current = await self._write(t, key, marked, current)
            return _left_in_place(Reply(200, t.codec.served_bytes(current.data)), options)
        # The generic store's Delete: BeforeDelete, the finalizers the options ask for, then either an
        # update that marks the object (graceful, or held by finalizers) or its removal.
        decision = gracefuldelete.before_delete(obj, options.get("gracePeriodSeconds"), strategy.deletion_grace)
        if decision.pending:
            return _left_in_place(self._deleted_reply(t, current, obj), options)
        finalizers = propagation.finalizers_after_delete(obj["metadata"], options, strategy.orphans_by_default)
        if finalizers is not None:
            obj["metadata"]["finalizers"] = finalizers
        held = bool(obj["metadata"].get("finalizers"))
        if held and not decision.graceful:
            gracefuldelete.mark_as_deleting(obj)
        if held or decision.graceful:
            marked = objects.ordered(obj)
            if t.dry_run:
                reply = Reply(200, orjson.dumps(t.codec.served(marked)))
                return _left_in_place(reply, options) if held or decision.grace > 0 else reply
            if marked != _load(current):
                current = await self._write(t, key, marked, current)
            if held or decision.grace > 0:
                return _left_in_place(Reply(200, t.codec.served_bytes(current.data)), options)
            # Marked with no grace period left: it goes now, and answers as marked.
            obj = _load(current)
        if not t.dry_run:
            current = await self._write(t, key, obj, current, delete=True)
            await self._finalize_namespace_if_empty(t)
        return self._deleted_reply(t, current, obj)

    def _deleted_reply(self, t: Target, stored: StoredObject, obj: dict[str, Any]) -> Reply:
        if strategy_for(t.rt).returns_deleted_object:
            return Reply(200, t.codec.served_bytes(stored.data))
        details: dict[str, Any] = {"name": obj["metadata"].get("name", "")}
        if t.rt.group:
            details["group"] = t.rt.group
        details["kind"] = t.rt.plural
        details["uid"] = obj["metadata"].get("uid", "")
        return _json(200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                           "details": details})

    async def delete_collection(self, t: Target, raw: bytes, content_type: str | None) -> Reply:
        # The field selector's labels are judged before the body is read, as upstream's handler does.
        self.selection(t)
        options = deleting.read(raw, content_type, t.query, t.raw_query)
        t = _as_options_ask(t, options)
        # The store's DeleteCollection: what a list with the request's list options selects, page by page
        # (one page when the request set a limit), each item deleted as it stands now (one gone meanwhile
        # is passed over); the answer is the list as listed.
        has_limit = list_options.decoded(t.query).limit > 0
        query = dict(t.query) if has_limit else {**t.query, "limit": str(_DELETE_COLLECTION_PAGE)}
        first = listing = self.select(dataclasses.replace(t, query=query))
        listed = list(listing.items)
        while not has_limit and listing.continue_token:
            query = {**{k: v for k, v in query.items() if k not in ("resourceVersion", "resourceVersionMatch")},
                     "continue": listing.continue_token}
            listing = self.select(dataclasses.replace(t, query=query))
            listed += listing.items
        for key, _ in listed:
            current = self.store.latest(key)
            if current is None:
                continue
            target = dataclasses.replace(t, namespace=key[1], name=key[2], admitted=admitting.admitted(t))
            await self._delete_one(target, key, current, options, collection=True)
        gone = listed
        if converts(t.rt):
            gone = await self.conversion.served_items(t.rt, gone)
        if t.rt.custom is None:
            # A typed list, as the registry's DeleteCollection answers: its items carry no kind.
            items = typed_list_items(t.rt, [current.data for _, current in gone])
        else:
            items = b",".join(t.codec.served_bytes(current.data) for _, current in gone)
        metadata: dict[str, Any] = {"resourceVersion": str(first.revision)}
        if has_limit and listing.continue_token:
            metadata["continue"] = listing.continue_token
            if listing.remaining:
                metadata["remainingItemCount"] = listing.remaining
        head = orjson.dumps({"kind": t.rt.list_kind, "apiVersion": t.rt.api_version, "metadata": metadata})
        body = head[:-1] + b',"items":[' + items + b"]}"
        return Reply(200, body, headers=admitting.headers(t, {}))

    # -- namespaces: the namespace controller's part, done at once -----------------------------

    async def _delete_namespace(self, t: Target, key: Key, current: StoredObject, obj: dict[str, Any],
                                options: dict[str, Any]) -> Reply:
        """The namespace storage's Delete: the first one only marks it (deletionTimestamp, no grace
        period, Terminating, the propagation finalizers), then the namespace controller's part follows."""
        namespacelifecycle.admit_namespace_delete(key[2])
        meta = obj["metadata"]
        first = not meta.get("deletionTimestamp")
        if first:
            meta["deletionTimestamp"] = objects.now_rfc3339()
            obj.setdefault("status", {})["phase"] = "Terminating"
            finalizers = propagation.namespace_finalizers_after_delete(meta, options)
            if finalizers is not None:
                meta["finalizers"] = finalizers
        if t.dry_run:  # a namespace already terminating is not emptied by a dry run either
            return _json(200, objects.ordered(obj))
        if first:
            current = await self._write(t, key, objects.ordered(obj), current)
        await self._empty_namespace(t, key[2])
        await self._finalize_namespace(t, key[2])
        return Reply(200, current.data)

    async def _empty_namespace(self, t: Target, namespace: str) -> None:
        for storage_key, rt in self._namespaced_types.items():
            held = Target(rt, namespace, None, None, t.query)  # writes as its own kind (custom ones sort keys)
            _, items = self.store.list(storage_key, namespace)
            for key, stored in items:
                current = self.store.latest(key)
                if current is None:
                    continue
                obj = _load(current)
                if obj["metadata"].get("finalizers"):
                    if not obj["metadata"].get("deletionTimestamp"):
                        gracefuldelete.mark_as_deleting(obj)
                        await self._write(held, key, objects.ordered(obj), current)
                else:
                    await self._write(held, key, obj, current, delete=True)

    async def _finalize_namespace_if_empty(self, t: Target) -> None:
        if t.rt.namespaced and t.namespace:
            await self._finalize_namespace(t, t.namespace)

    async def _finalize_namespace(self, t: Target, namespace: str) -> None:
        key = (_NAMESPACES, "", namespace)
        current = self.store.latest(key)
        if current is None:
            return
        obj = _load(current)
        if not obj["metadata"].get("deletionTimestamp") or obj["metadata"].get("finalizers"):
            return
        for storage_key in self._namespaced_types:
            if self.store.list(storage_key, namespace)[1]:
                return
        await self._write(t, key, obj, current, delete=True)

    # -- helpers -------------------------------------------------------------------------------

    def _decoded(self, storage_key: str) -> Iterator[dict[str, Any]] | None:
        if storage_key not in self._registry.storage_keys():
            return None
        return (_load(stored) for _, stored in self.store.list(storage_key, None)[1])

    async def _through_storage(self, t: Target, obj: dict[str, Any]) -> dict[str, Any]:
        """A dry run's object as writing and reading it back would make it: upstream's dry-run storage
        encodes it into the storage version and decodes it again, each through a CRD's webhook."""
        stored = await self.conversion.to_storage(t.rt, obj)
        served = await self.conversion.served(t.rt, StoredObject(0, orjson.dumps(stored)))
        return _load(served)

    def _require(self, t: Target) -> StoredObject:
        stored = self.store.latest(t.key())
        if stored is None:
            raise errors.not_found(t.rt.plural, t.rt.group, t.name or "")
        return stored

    async def _write(self, t: Target, key: Key, obj: dict[str, Any], expected: StoredObject | None,
                     delete: bool = False, unchanged_since: int | None = None) -> StoredObject:
        """The object as stored; in the request's version when it was written in another through a CRD's
        conversion webhook (`crd.converting`)."""
        converted = not delete and converts(t.rt) and obj.get("apiVersion") != _storage_api_version(t.rt)
        if converted:
            obj = await self.conversion.to_storage(t.rt, obj)
        if t.rt.custom is not None and not delete:
            # The store fills in resourceVersion in place, so the key must already hold its sorted position.
            obj["metadata"].setdefault("resourceVersion", "")
            obj = crdspec.canonical(obj)
        if not delete:
            # etcd's per-request limit, which kube-apiserver inherits; checked here so that nothing
            # past it is ever numbered or logged.
            size = len(_encode(obj))
            if size > self.max_object_bytes:
                raise errors.object_too_large(size, self.max_object_bytes)
        try:
            stored = await self.store.submit(key, obj, expected, delete=delete, unchanged_since=unchanged_since)
        except ResourceChanged:
            raise
        except PreconditionFailed:
            if expected is None and not delete:  # another server created it since this one looked
                raise _taken(t, key[2]) from None
            stale = errors.stale_update(t.rt.plural, t.rt.group, key[2])
            raise _Superseded(stale.code, stale.reason, stale.message, stale.details) from None
        except StorageUnavailable as exc:
            raise errors.internal(f"the write could not be made durable: {exc}") from None
        except StoreUnreachable as exc:
            raise errors.unavailable(f"the store is unreachable: {exc}") from None
        if delete:
            await strategy_for(t.rt).after_delete(obj, _StoreCluster(self), objects.now_rfc3339())
        elif expected is None:
            await strategy_for(t.rt).after_create(obj, _StoreCluster(self), objects.now_rfc3339())
        return await self.conversion.served(t.rt, stored) if converted else stored

    def type_of(self, storage_key: str) -> ResourceType | None:
        """The served type a storage key holds, in the version it is stored as."""
        for rt in self._registry.types:
            if rt.storage_key == storage_key and not rt.synthetic and rt.custom is None:
                return rt
        return None

    async def write_status(self, rt: ResourceType, obj: dict[str, Any], expected: StoredObject) -> None:
        """A status decided outside the verbs (a quota's charge), written as kube-apiserver's own client
        would through the status subresource; a 409 when `expected` is no longer the object's state."""
        meta = obj["metadata"]
        t = Target(rt, meta.get("namespace", ""), meta["name"], "status", {}, managedfields.KUBE_APISERVER)
        prepared = objects.prepare_update(rt, obj, _load(expected), "status", managedfields.KUBE_APISERVER)
        prepared["metadata"]["resourceVersion"] = _load(expected)["metadata"].get("resourceVersion")
        await self._write(t, t.key(), prepared, expected)


def asker(authorizer: Authorizer, user: User) -> Ask:
    """The authorizer's answer for `user` about attributes a strategy names: None when allowed, else
    the 403 message it would give."""
    def ask(attrs: Attributes) -> str | None:
        decision = authorizer.decide(user, attrs)
        if decision.allowed:
            return None
        return errors.forbidden(user.name, attrs.verb, attrs.group, attrs.resource, attrs.subresource,
                                attrs.namespace, attrs.name, decision.reason).message
    return ask


class _StoreCluster:
    """The endpoint's store as a kind's storage hooks see it (`registry.hooks.Cluster`)."""

    def __init__(self, endpoint: Endpoint) -> None:
        self._endpoint = endpoint
        self.service_range = endpoint.service_range

    def resource_of(self, api_version: str, kind: str) -> str | None:
        group, _, version = api_version.rpartition("/")
        return next((rt.plural for rt in self._endpoint._registry.in_group_version(group, version)
                     if rt.kind == kind and not rt.synthetic), None)

    def get(self, storage_key: str, namespace: str, name: str) -> dict[str, Any] | None:
        stored = self._endpoint.store.latest((storage_key, namespace, name))
        return None if stored is None else _load(stored)

    def names(self, storage_key: str) -> list[str]:
        return [key[2] for key, _ in self._endpoint.store.list(storage_key, None)[1]]

    def listed(self, storage_key: str) -> tuple[int, list[dict[str, Any]]]:
        revision, items = self._endpoint.store.list(storage_key, None)
        return revision, [_load(stored) for _, stored in items]

    async def create(self, storage_key: str, obj: dict[str, Any], manager: str) -> None:
        rt = self._endpoint.type_of(storage_key)
        if rt is not None:
            await self._endpoint.create(Target(rt, "", None, None, {}, manager), orjson.dumps(obj), bodies.JSON)

    async def delete(self, storage_key: str, name: str, only_if: Callable[[dict[str, Any]], bool]) -> None:
        rt = self._endpoint.type_of(storage_key)
        key = (storage_key, "", name)
        current = self._endpoint.store.latest(key)
        if rt is not None and current is not None and only_if(_load(current)):
            await self._endpoint._write(Target(rt, "", name, None, {}), key, _load(current), current, delete=True)

    async def rewrite_status(self, storage_key: str, change: Callable[[dict[str, Any]], bool]) -> None:
        rt = self._endpoint.type_of(storage_key)
        if rt is None:
            return
        for key, _ in self._endpoint.store.list(storage_key, None)[1]:
            current = self._endpoint.store.latest(key)
            if current is None:
                continue
            changed = _load(current)
            if change(changed):
                try:
                    await self._endpoint._write(Target(rt, "", key[2], "status", {}), key, objects.reshaped(changed),
                                                current)
                except errors.ApiError:
                    continue  # written meanwhile: that write judged the same store


def _convertible(t: Target, config: dict[str, Any], merged: dict[str, Any], raw: bytes) -> None:
    """An applied object its Go type cannot be converted into fails upstream's field manager with a 500
    that names the configuration (its namespace, often none, and name); one it can is converted, its
    numbers as the converter converts them (`raw`, the configuration's body, tells whether any can change)."""
    if t.rt.custom is not None or t.subresource is not None:
        return
    group, _, version = t.rt.api_version.rpartition("/")
    ref = schemas.kind_ref(group, version, t.rt.kind)
    problem = unstructured.restore_error(merged, ref, own_types=True)
    if problem is None and gonumbers.may_hold_unusual_numbers(raw):
        unstructured.restore_numbers(merged, ref)
    if problem is not None:
        meta = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
        gvk = f"{t.rt.group}/{t.rt.version}, Kind={t.rt.kind}"
        raise errors.unknown(f"failed to convert new object ({meta.get('namespace') or ''}/{meta.get('name') or ''}; "
                             f"{gvk}) to proper version: unable to convert unstructured object to {gvk}: {problem}")


def _storage_api_version(rt: ResourceType) -> str:
    assert rt.custom is not None
    return f"{rt.group}/{rt.custom.storage_version}"


def _tracked_before_admission(t: Target, before: dict[str, Any], old: dict[str, Any]) -> ManagedFields | None:
    """The managedFields the update makes of the object as it was before mutating admission changed it:
    upstream's field manager runs first, so what a webhook adds is owned by no one. None when that
    object would not pass the registry (then the changed one is tracked, as before)."""
    try:
        tracked = objects.prepare_update(t.rt, before, copy.deepcopy(old), t.subresource, t.manager)
    except errors.ApiError:
        return None
    return list(tracked["metadata"].get("managedFields") or ())


def _same_but_managed_fields(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return {**a, "metadata": {**a["metadata"], "managedFields": None}} == \
        {**b, "metadata": {**b["metadata"], "managedFields": None}}


def _page(snapshot: Snapshot, selection: Selection,
          page: paging.Page) -> tuple[list[tuple[Key, StoredObject]], tuple[str, str] | None, int | None]:
    """The objects one page selects, the first key of the next page (None: none), and how many follow."""
    if not page.limit and page.start is None and not selection.filtered:
        whole = snapshot.unchanged_items()
        if whole is not None:
            return whole, None, None
    items: list[tuple[Key, StoredObject]] = []
    more: tuple[str, str] | None = None
    for key, obj in snapshot.items(page.start):
        if page.limit and len(items) == page.limit:
            more = (key[1], key[2])
            break
        if selection.matches(key, obj.data):
            items.append((key, obj))
    if more is None:
        return items, None, None
    return items, more, None if selection.filtered else snapshot.count(more)


_SCALE_TYPE = ("Scale", "autoscaling/v1")


def _undecodable_type(rt: ResourceType, patched: Any, content_type: str | None) -> str | None:
    """Why a JSON or merge patch's result cannot be decoded into rt's Go type for the kind and version it
    names (scheme.decoding_problem); a strategic merge patch's type meta is never read."""
    if not isinstance(patched, dict) or bodies.media_type(content_type) == bodies.STRATEGIC_PATCH:
        return None
    return scheme.decoding_problem(rt, str(patched.get("kind") or ""), str(patched.get("apiVersion") or ""))


def _scale_type(rt: ResourceType) -> ResourceType:
    """What a built-in resource's /scale body is decoded as: autoscaling/v1's Scale, in the resource's scope."""
    return ResourceType("autoscaling", "v1", "Scale", rt.plural, "", rt.namespaced, verbs=(), synthetic=True)
_CUSTOM_SCALE_UNDECODABLE = ('no kind is registered for the type v1.Scale in scheme '
                             '"k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go:781"')


def _whole_numbers(t: Target, body: Any, raw: bytes, content_type: str | None) -> Any:
    """A built-in object's JSON body, once its types are judged, with its whole floats as the integers
    upstream stores them (gonumbers; a YAML body's are integers already). A custom object's keep their
    floats for its validation, and are written as integers with it (crdspec.canonical)."""
    if t.rt.custom is None and bodies.is_json(content_type) and gonumbers.may_hold_fractions(raw):
        gonumbers.whole_floats_as_integers(body)
    return body


def _as_written(t: Target, obj: dict[str, Any]) -> dict[str, Any]:
    """A dry run's object as the write it stands for would store it (a custom object canonical)."""
    return obj if t.rt.custom is None else crdspec.canonical(obj)


def decode_body(t: Target, raw: bytes, content_type: str | None) -> Any:
    # Custom objects have no protobuf form upstream; their Scale does.
    if (t.rt.custom is not None and t.subresource != "scale"
            and bodies.media_type(content_type) == protobuf.MEDIA_TYPE):
        raise errors.unsupported_media_type([bodies.JSON, bodies.YAML])
    # A subresource's body is decoded as its own kind (Scale, TokenRequest, Eviction).
    subresource = t.rt.subresource(t.subresource) if t.subresource is not None else None
    kind = subresource.kind if subresource is not None and subresource.kind else t.rt.kind
    media_type = bodies.media_type(content_type) or bodies.JSON
    if media_type in (bodies.JSON, *bodies.YAML_TYPES):
        # transformDecodeError, when not even the kind could be read
        if media_type == bodies.JSON:
            try:
                decoded = orjson.loads(raw)
            except orjson.JSONDecodeError:
                raise scheme.unrecognized(kind, "couldn't get version/kind; json parse error: "
                                                f"{gojson.syntax_error(raw)}", raw) from None
        else:
            try:
                decoded = bodies.yaml_value(raw)
            except (goyaml.YamlError, goyaml.NotJSON) as exc:
                raise scheme.unrecognized(kind, str(exc), raw) from None
        if decoded is None and t.rt.custom is None:
            return {}  # json.Unmarshal of null into the kind's struct leaves it empty
        problem = scheme.unreadable_type_meta(kind, decoded, raw)
        if problem is not None:
            raise problem
        return decoded
    return bodies.decode_object(raw, content_type)


def _left_in_place(reply: Reply, options: dict[str, Any]) -> Reply:
    """The answer to a delete that leaves the object in place (marked, held by finalizers, its grace
    period running): 202 when the client asked for cascading deletion with orphanDependents=false, as
    upstream's handler answers, which keeps 200 otherwise for older clients' sake."""
    if options.get("orphanDependents") is False:
        reply.status = 202
    return reply


def _as_options_ask(t: Target, options: dict[str, Any]) -> Target:
    """The target with its dry-run taken from the DeleteOptions, which may come from the body, where
    kubectl --dry-run=server puts it: a dry-run delete must not delete. It collects its warnings where
    the request's are answered from."""
    query = {k: v for k, v in t.query.items() if k != "dryRun"}
    if options.get("dryRun"):
        query["dryRun"] = "All"
    return dataclasses.replace(t, query=query, admitted=admitting.admitted(t))
