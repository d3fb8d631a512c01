"""What each scenario asks of the server, what a right answer holds, and which reference figure it matches.

Reads go through wrk as they are; writes through a Lua script; watches through `watch.py`. A read or a
write that has a floor is measured a second time against a floor app answering the very bytes the server
answered (a write's floor gets the same requests, and reads each body whole).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TABLE_ACCEPT = ("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
                "application/json")  # kubectl get's exact header
TABLE_V1 = "application/json;as=Table;v=v1;g=meta.k8s.io"
METADATA_ACCEPT = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"
JSON = "application/json"

READ_NAMESPACE = "apiload"  # seeded once, only read: list sizes stay put whatever the writes do
WRITE_NAMESPACE = "apiload-writes"
WATCH_NAMESPACE = "apiload-watch"
SCHEDULE_NAMESPACE = "apiload-schedule"
SCHEDULE_REPLICAS = 100
SIMULATED_NODES = 10  # what a server we start gets, so that `schedule` has nodes to bind to
PATCH_TARGETS = 100
FANOUT_WATCHERS = 100


@dataclass(frozen=True)
class Scenario:
    name: str
    driver: Literal["wrk", "create", "patch", "update", "apply", "watch", "schedule"]
    path: str = ""
    accept: str = JSON
    expected_kind: str = ""  # what a right answer's "kind" is, "" for anything
    expected_share: float | None = None  # items or rows a list answers, as a share of the seeded objects
    floor: bool = False
    reference: str | None = None  # its name in results-kube-apiserver-*.json
    watchers: int = 1
    query: str = ""  # a write's query string, "?..." or ""

    def items_for(self, count: int) -> int | None:
        return None if self.expected_share is None else round(count * self.expected_share)


_CM = f"/api/v1/namespaces/{READ_NAMESPACE}/configmaps"
_PODS = f"/api/v1/namespaces/{READ_NAMESPACE}/pods"
ALL = [
    Scenario("get", "wrk", f"{_CM}/load-cm-000001", expected_kind="ConfigMap", floor=True, reference="get"),
    Scenario("list_all", "wrk", _CM, expected_kind="ConfigMapList", expected_share=1.0, floor=True,
             reference="list_all"),
    Scenario("list_selector", "wrk", f"{_CM}?labelSelector=tier%3Dgold", expected_kind="ConfigMapList",
             expected_share=0.1, floor=True, reference="list_selector"),
    Scenario("list_table", "wrk", _CM, TABLE_ACCEPT, "Table", 1.0, floor=True, reference="list_table"),
    Scenario("list_table_none", "wrk", f"{_CM}?includeObject=None", TABLE_V1, "Table", 1.0, floor=True,
             reference="list_table_none"),
    Scenario("list_table_pods", "wrk", _PODS, TABLE_ACCEPT, "Table", 1.0, floor=True, reference="list_pods_table"),
    Scenario("list_metadata", "wrk", _CM, METADATA_ACCEPT, "PartialObjectMetadataList", 1.0, floor=True,
             reference="list_metadata"),
    Scenario("list_metadata_pods", "wrk", _PODS, METADATA_ACCEPT, "PartialObjectMetadataList", 1.0, floor=True),
    Scenario("watch_latency", "watch", f"/api/v1/namespaces/{WATCH_NAMESPACE}/configmaps"),
    Scenario("watch_fanout", "watch", f"/api/v1/namespaces/{WATCH_NAMESPACE}/configmaps",
             watchers=FANOUT_WATCHERS),
    Scenario("create", "create", f"/api/v1/namespaces/{WRITE_NAMESPACE}/configmaps", floor=True),
    # Every step of a create but the store's: what the write path itself costs.
    Scenario("create_dry_run", "create", f"/api/v1/namespaces/{WRITE_NAMESPACE}/configmaps", floor=True,
             query="?dryRun=All"),
    Scenario("patch", "patch", f"/api/v1/namespaces/{WRITE_NAMESPACE}/configmaps", floor=True),
    Scenario("update", "update", f"/api/v1/namespaces/{WRITE_NAMESPACE}/configmaps", floor=True),
    Scenario("apply", "apply", f"/api/v1/namespaces/{WRITE_NAMESPACE}/configmaps", floor=True,
             query="?fieldManager=apiload&force=true"),
    Scenario("schedule", "schedule", f"/api/v1/namespaces/{SCHEDULE_NAMESPACE}/pods"),
]
BY_NAME = {s.name: s for s in ALL}
# The writes to PATCH_TARGETS seeded objects: a full replacement (PUT) and server-side apply each
# change data.mode, as the merge patch does.
TARGETED = ("patch", "update", "apply")
QUICK = ["get", "list_all", "create", "watch_latency"]
