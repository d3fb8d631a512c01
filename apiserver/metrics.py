"""Prometheus counters of the watch fan-out and of assembled list answers, served at /metrics.

`encoded` counts event bytes produced, `delivered` the events written to watchers: with the shared
encoding, a hundred watchers of one resource cost one encoding per event. The `assembled` figures
say how often a list reused what an earlier one selected and joined, and what keeping that costs.
"""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, generate_latest

REGISTRY = CollectorRegistry()

EVENTS_ENCODED = Counter("apiserver_watch_events_encoded", "Watch event lines serialized (once per representation).",
                         ["resource"], registry=REGISTRY)
EVENTS_DELIVERED = Counter("apiserver_watch_events_delivered", "Watch event lines handed to a watcher's stream.",
                           ["resource"], registry=REGISTRY)
WATCHERS_DROPPED = Counter("apiserver_watchers_dropped", "Watchers closed because they fell too far behind.",
                           ["resource"], registry=REGISTRY)
WATCHERS = Gauge("apiserver_watchers", "Open watches.", ["resource"], registry=REGISTRY)
ASSEMBLED_HITS = Counter("apiserver_list_assembled_hits", "List parts reused: a view's selection or a shape's "
                         "joined items.", ["part"], registry=REGISTRY)
ASSEMBLED_MISSES = Counter("apiserver_list_assembled_misses", "List parts made anew.", ["part"], registry=REGISTRY)
ASSEMBLED_BYTES = Gauge("apiserver_list_assembled_bytes", "Bytes held by assembled list parts (bounded).",
                        registry=REGISTRY)
ASSEMBLED_ENTRIES = Gauge("apiserver_list_assembled_entries", "Collection views held assembled.", registry=REGISTRY)


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
