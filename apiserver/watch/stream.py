"""Watch streams: `{"type":..,"object":..}` lines, object bytes spliced from the store and shared.

A watch reads its starting state (the items a list of its view would give, for initial events, or
the retained changes after a resourceVersion) and joins its resource's fan-out in the same
synchronous step, so no change falls between the two. Initial events come from the same assembled
pieces as lists (`shapes.assembled`): their lines are joined once per view, version and shape and
sent as one chunk. Selector watches see an object that stops matching as DELETED and one that starts
matching as ADDED, like kube-apiserver's watch cache.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from typing import AsyncIterator, Awaitable, Callable, Mapping

import orjson

from apiserver import errors, metrics
from apiserver.kinds.resources import ResourceType
from apiserver.query import list_options
from apiserver.query.paging import parse_rv, too_large
from apiserver.query.selection import Selection
from apiserver.shapes.shape import Listing, Shape
from apiserver.storage.interface import Change, Expired, Store, StoredObject
from apiserver.watch.fanout import Event, Fanout, Watcher, event_line

INITIAL_EVENTS_END = "k8s.io/initial-events-end"

# What a list of the watch's view (namespace and selectors, unpaged) gives at a revision.
SelectInitial = Callable[[int], Listing]
# Objects read in the storage version put in the watch's (a CRD's conversion webhook); the second
# argument is true for a list's objects, sent together.
Convert = Callable[[list[StoredObject], bool], Awaitable[list[StoredObject]]]


@dataclass(frozen=True)
class WatchOptions:
    resource_version: str
    send_initial_events: bool | None
    bookmarks: bool
    timeout_seconds: float | None


def parse_watch_options(query: Mapping[str, str]) -> WatchOptions:
    """The watch's query parameters; list_options.read judged them at the request's edge."""
    options = list_options.decoded(query)
    rv = options.resource_version
    if rv not in ("", "0"):
        parse_rv(rv)  # upstream answers 500 for a non-number; it is the client's mistake
    return WatchOptions(rv, options.send_initial_events, options.allow_watch_bookmarks, options.timeout_seconds)


@dataclass
class WatchStart:
    """What a watch sends before following live changes."""

    revision: int
    initial: Listing | None
    backlog: list[Change]
    initial_events_end: bool  # a watch-list: mark the end of the initial state with a bookmark


def plan_start(store: Store, rt: ResourceType, options: WatchOptions, select_initial: SelectInitial) -> WatchStart:
    """Raises Expired when the resourceVersion is older than the retained history."""
    current = store.revision
    rv = options.resource_version
    listed = options.send_initial_events if options.send_initial_events is not None else rv in ("", "0")
    if listed:
        if rv not in ("", "0") and int(rv) > current:
            raise too_large(int(rv), current)
        initial = select_initial(current)
        return WatchStart(current, initial, [], bool(options.send_initial_events) and options.bookmarks)
    if rv in ("", "0"):
        return WatchStart(current, None, [], False)
    start = int(rv)
    return WatchStart(start, None, store.changes_since(rt.storage_key, start), False)


def open_watch(store: Store, fanout: Fanout, rt: ResourceType, selection: Selection, options: WatchOptions,
               shape: Shape, select_initial: SelectInitial, queue_limit: int,
               bookmark_seconds: float, min_request_timeout: int,
               convert: Convert | None = None) -> tuple[AsyncIterator[bytes], asyncio.Event]:
    """Starts the watch now; the stream, and an event set when the hub drops it for falling behind."""
    # No await from reading the starting state to joining the fan-out: a change committed in between
    # would reach neither (the store applies changes and tells its listeners in one synchronous step).
    try:
        start: WatchStart | None = plan_start(store, rt, options, select_initial)
    except Expired as exc:
        expired = errors.gone(str(exc))
        start = None
    if start is None:
        async def refuse() -> AsyncIterator[bytes]:
            yield event_line("ERROR", expired.to_bytes())
        return refuse(), asyncio.Event()
    watcher = fanout.add(queue_limit, start.backlog)
    timeout = watch_timeout(options.timeout_seconds, min_request_timeout)
    deadline = None if timeout is None else time.monotonic() + timeout
    stream = _stream(watcher, rt, selection, shape, start, options.bookmarks, deadline, bookmark_seconds, convert)
    return stream, watcher.closed


def watch_timeout(timeout_seconds: int | None, min_request_timeout: int) -> float | None:
    """How long a watch runs, as upstream's watch handler decides: its own `timeoutSeconds` (a negative
    one ends it at once), or with none or 0 a random time between the server's --min-request-timeout
    and twice that, so that watches opened together do not all end (and relist) together; with
    --min-request-timeout=0 it runs until its client leaves."""
    if timeout_seconds:
        return float(timeout_seconds)
    if min_request_timeout > 0:
        return min_request_timeout * (random.random() + 1.0)
    return None


def initial_events(rt: ResourceType, shape: Shape, listing: Listing) -> bytes:
    """A listing's ADDED lines as one block, the first one as a watcher's first event (a Table's carries
    the column definitions). Joined once per view, version, shape and moment, and kept with what
    lists of the same view keep, so watchers starting from the same state send the same bytes."""
    def join() -> bytes:
        lines = [event_line("ADDED", shape.event_object(rt, obj, index == 0))
                 for index, (_, obj) in enumerate(listing.items)]
        metrics.EVENTS_ENCODED.labels(rt.storage_key).inc(len(lines))
        return b"".join(lines)
    return listing.joined(("watch", shape.key), join, shape.moment(time.time()))


async def _stream(watcher: Watcher, rt: ResourceType, selection: Selection, shape: Shape,
                  start: WatchStart, bookmarks: bool, deadline: float | None,
                  bookmark_seconds: float, convert: Convert | None) -> AsyncIterator[bytes]:
    delivered = metrics.EVENTS_DELIVERED.labels(rt.storage_key)
    try:
        first = True
        if start.initial is not None and start.initial.items:
            initial = start.initial
            if convert is not None:
                try:
                    initial = await _converted_listing(initial, convert)
                except errors.ApiError as exc:
                    yield event_line("ERROR", exc.to_bytes())
                    return
            yield initial_events(rt, shape, initial)
            delivered.inc(len(start.initial.items))
            first = False
        if start.initial_events_end:
            yield _bookmark(rt, start.revision, initial_events_end=True)
        revision = start.revision
        next_bookmark = time.monotonic() + bookmark_seconds
        while not watcher.closed.is_set():
            if watcher.queue:
                event = watcher.queue.popleft()
                revision = event.change.rv
                event_type = _event_type(selection, event)
                if event_type is not None and convert is not None:
                    try:
                        yield await _converted_line(event, rt, shape, event_type, first, convert)
                    except errors.ApiError as exc:
                        # The event cannot be shown in the watch's version: the client is told, and re-lists.
                        yield event_line("ERROR", exc.to_bytes())
                        return
                    delivered.inc()
                    first = False
                elif event_type is not None:
                    yield event.line(rt, shape, event_type, first)
                    delivered.inc()
                    first = False
                continue
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return
            if bookmarks and now >= next_bookmark:
                yield _bookmark(rt, revision)
                next_bookmark = now + bookmark_seconds
                continue
            wait = min(t for t in (deadline, next_bookmark if bookmarks else None, now + 3600) if t is not None) - now
            watcher.wakeup.clear()
            try:
                await asyncio.wait_for(watcher.wakeup.wait(), wait)
            except TimeoutError:
                pass
    finally:
        watcher.stop()


async def _converted_listing(listing: Listing, convert: Convert) -> Listing:
    """The initial objects in the watch's version, never kept with the list pieces other watches share."""
    converted = await convert([obj for _, obj in listing.items], True)
    return Listing(listing.revision, [(key, obj) for (key, _), obj in zip(listing.items, converted)])


async def _converted_line(event: Event, rt: ResourceType, shape: Shape, event_type: str, first: bool,
                          convert: Convert) -> bytes:
    """One event in the watch's version: the change converted once for all the watchers of the version
    it is queued for (`Event.converted`)."""
    change = event.change
    left = event_type == "DELETED" and change.type != "DELETED"
    data = event.left_object() if left else change.data

    async def one() -> StoredObject:
        return (await convert([StoredObject(change.rv, data)], False))[0]
    converted = await event.converted((rt, left), one)  # a CRD changed since is another type
    return event_line(event_type, shape.event_object(rt, converted, first))


def _event_type(selection: Selection, event: Event) -> str | None:
    """The event this watcher sees for a change, or None when the object is outside its selection."""
    change = event.change
    if not selection.decodes:
        return change.type if selection.matches_key(change.key) else None
    was = change.prev is not None and selection.matches(change.key, change.prev)
    if change.type == "DELETED":
        return "DELETED" if was else None
    now = selection.matches(change.key, change.data)
    if now:
        return "MODIFIED" if was else "ADDED"
    return "DELETED" if was else None


def _bookmark(rt: ResourceType, revision: int, initial_events_end: bool = False) -> bytes:
    metadata: dict[str, object] = {"resourceVersion": str(revision)}
    if initial_events_end:
        metadata["annotations"] = {INITIAL_EVENTS_END: "true"}
    return event_line("BOOKMARK", orjson.dumps({"kind": rt.kind, "apiVersion": rt.api_version, "metadata": metadata}))
