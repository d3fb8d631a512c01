"""Prometheus counters of the watch fan-out and of assembled list answers, served at /metrics.

`encoded` counts event bytes produced, `delivered` the events written to watchers: with the shared
encoding, a hundred watchers of one resource cost one encoding per event. The `assembled` figures
say how often a list reused what an earlier one selected and joined, and what keeping that costs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from apiserver.storage.embedded import WalStats

REGISTRY = CollectorRegistry()


class Tally:
    """One label set's count."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0

    def inc(self, amount: int = 1) -> None:
        self.value += amount


class LoopCounter:
    """A labelled counter bumped only from the event loop's thread: a plain int per label set, read when
    /metrics is scraped. prometheus_client's Counter takes a lock on every increment, about a
    microsecond, and a list answered from what was assembled bumps three, a watch event one per watcher.
    Exposed as a Counter is (`NAME_total`)."""

    def __init__(self, name: str, documentation: str, labelnames: list[str], registry: CollectorRegistry) -> None:
        self._name, self._documentation, self._labelnames = name, documentation, labelnames
        self._tallies: dict[tuple[str, ...], Tally] = {}
        registry.register(self)

    def labels(self, *values: str) -> Tally:
        tally = self._tallies.get(values)
        if tally is None:
            tally = self._tallies[values] = Tally()
        return tally

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(self._name, self._documentation, labels=self._labelnames)
        for values, tally in self._tallies.items():
            family.add_metric(list(values), tally.value)
        yield family


EVENTS_ENCODED = LoopCounter("apiserver_watch_events_encoded",
                             "Watch event lines serialized (once per representation).", ["resource"], REGISTRY)
EVENTS_DELIVERED = LoopCounter("apiserver_watch_events_delivered", "Watch event lines handed to a watcher's stream.",
                               ["resource"], REGISTRY)
WATCHERS_DROPPED = Counter("apiserver_watchers_dropped", "Watchers closed because they fell too far behind.",
                           ["resource"], registry=REGISTRY)
WATCHERS = Gauge("apiserver_watchers", "Open watches.", ["resource"], registry=REGISTRY)
ASSEMBLED_HITS = LoopCounter("apiserver_list_assembled_hits",
                             "List parts reused: a view's selection or a shape's joined items.", ["part"], REGISTRY)
ASSEMBLED_MISSES = LoopCounter("apiserver_list_assembled_misses", "List parts made anew.", ["part"], REGISTRY)
ASSEMBLED_BYTES = Gauge("apiserver_list_assembled_bytes", "Bytes held by assembled list parts (bounded).",
                        registry=REGISTRY)
ASSEMBLED_ENTRIES = Gauge("apiserver_list_assembled_entries", "Collection views held assembled.", registry=REGISTRY)


class GroupCommit:
    """The embedded store's group commit, read from its WalStats when /metrics is scraped: log appends,
    one fsync each, and the writes they carried. Under concurrent writers appends stay far below writes.
    Nothing is shown on etcd, where `stats` stays None."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.stats: WalStats | None = None
        registry.register(self)

    def collect(self) -> Iterator[Metric]:
        if self.stats is None:
            return
        yield CounterMetricFamily("apiserver_storage_wal_appends", "Write-ahead log appends made durable, one "
                                  "fsync each.", value=self.stats.syncs)
        yield CounterMetricFamily("apiserver_storage_wal_records", "Writes the log's appends carried.",
                                  value=self.stats.records)


GROUP_COMMIT = GroupCommit(REGISTRY)

# (keys unfinished per controller, changes not yet applied per informer's resource)
Backlog = tuple[dict[str, int], dict[str, int]]


class ControllerBacklog:
    """The running controllers' unfinished work, read when /metrics is scraped (nothing is counted on the
    write path): keys queued or being synced per controller, and changes the watch fan-out has handed an
    informer that its handlers have not seen. Both at zero means the controllers have caught up with every
    write; benches/api_load waits for that after each write run. Nothing is shown while no controller runs."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.source: Callable[[], Backlog] | None = None
        registry.register(self)

    def collect(self) -> Iterator[Metric]:
        if self.source is None:
            return
        queues, informers = self.source()
        keys = GaugeMetricFamily("apiserver_controller_queue_keys", "Keys a controller has queued or is syncing.",
                                 labels=["controller"])
        for name, count in queues.items():
            keys.add_metric([name], count)
        yield keys
        backlog = GaugeMetricFamily("apiserver_controller_informer_backlog",
                                    "Changes handed to an informer that its handlers have not yet seen.",
                                    labels=["resource"])
        for resource, count in informers.items():
            backlog.add_metric([resource], count)
        yield backlog


CONTROLLER_BACKLOG = ControllerBacklog(REGISTRY)


def exposition() -> tuple[bytes, str]:
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
CONTROLLER_RELISTS = Counter("apiserver_controller_relists",
                             "Informers that listed a whole resource again because its history no longer reached "
                             "their last revision (a resync).", ["resource"], registry=REGISTRY)
CONTROLLER_CATCHUPS = Counter("apiserver_controller_catchups",
                              "Informers dropped by the watch fan-out for falling behind that caught up from the "
                              "retained history without listing.", ["resource"], registry=REGISTRY)
CONTROLLER_SYNCS = Counter("apiserver_controller_syncs", "Keys a controller worked on, by outcome.",
                           ["controller", "outcome"], registry=REGISTRY)
