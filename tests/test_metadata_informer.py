"""What client-go's metadata informer does, replayed over HTTP: its cache ends equal to the server's state.

The metadata client asks for protobuf first, then JSON PartialObjectMetadataList; it lists with
limit=500, then watches from the list's resourceVersion with bookmarks, asking for
PartialObjectMetadata. Client-go 1.35+ informers try a watch-list first (sendInitialEvents).
"""

from __future__ import annotations

import json
import queue
import threading
import urllib.request
from typing import Any, Iterator

from support import ServerProcess

LIST_ACCEPT = ("application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
               "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json")
WATCH_ACCEPT = ("application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,"
                "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json")
PODS = "/api/v1/namespaces/informed/pods"

Cache = dict[str, dict[str, Any]]


def pod(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "registry.example.com/app:1"}]}}


def list_metadata(server: ServerProcess) -> tuple[Cache, str]:
    status, raw = server.request("GET", PODS + "?limit=500", headers={"Accept": LIST_ACCEPT})
    assert status == 200
    listing = json.loads(raw)
    assert listing["kind"] == "PartialObjectMetadataList" and listing["apiVersion"] == "meta.k8s.io/v1"
    cache = {item["metadata"]["name"]: item["metadata"] for item in listing["items"]}
    assert all(item["kind"] == "PartialObjectMetadata" for item in listing["items"])
    return cache, listing["metadata"]["resourceVersion"]


def stream_events(server: ServerProcess, query: str) -> Iterator[dict[str, Any]]:
    req = urllib.request.Request(f"{server.url}{PODS}?watch=1&allowWatchBookmarks=true&timeoutSeconds=20&{query}",
                                 headers={"Accept": WATCH_ACCEPT, "Authorization": f"Bearer {server.token}"})
    with urllib.request.urlopen(req, context=server.ssl_context(), timeout=30) as resp:
        assert resp.headers["Content-Type"] == "application/json"
        for line in resp:
            yield json.loads(line)


def run_informer(server: ServerProcess, query: str, cache: Cache, events: "queue.Queue[dict[str, Any]]") -> None:
    for event in stream_events(server, query):
        events.put(event)
        if event["type"] == "BOOKMARK":
            continue
        assert event["object"]["kind"] == "PartialObjectMetadata"
        meta = event["object"]["metadata"]
        if event["type"] == "DELETED":
            cache.pop(meta["name"], None)
        else:
            cache[meta["name"]] = meta
        if meta.get("labels", {}).get("last") == "yes":
            return


def churn(server: ServerProcess) -> None:
    """Creates, updates and deletes; the last write is labelled so the informer knows to stop."""
    for i in range(6):
        assert server.json("POST", PODS, pod(f"p{i}", step="created"))[0] == 201
    for i in range(0, 6, 2):
        status, _ = server.request("PATCH", f"{PODS}/p{i}", {"metadata": {"labels": {"step": "updated"}}},
                                   content_type="application/merge-patch+json")
        assert status == 200
    for i in (1, 3):
        assert server.json("DELETE", f"{PODS}/p{i}")[0] == 200
    assert server.json("POST", PODS, pod("final", last="yes"))[0] == 201


def ensure_namespace(server: ServerProcess) -> None:
    server.json("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                               "metadata": {"name": "informed"}})


def test_list_then_watch_informer_converges(shared_server: ServerProcess) -> None:
    ensure_namespace(shared_server)
    for name in ("before-a", "before-b"):
        shared_server.json("POST", PODS, pod(name, step="before"))
    cache, rv = list_metadata(shared_server)
    assert set(cache) >= {"before-a", "before-b"}
    events: queue.Queue[dict[str, Any]] = queue.Queue()
    informer = threading.Thread(target=run_informer,
                                args=(shared_server, f"resourceVersion={rv}", cache, events))
    informer.start()
    churn(shared_server)
    informer.join(30)
    assert not informer.is_alive()
    server_state, _ = list_metadata(shared_server)
    assert cache == server_state
    shared_server.json("DELETE", PODS, None)


def test_watch_list_informer_converges(shared_server: ServerProcess) -> None:
    ensure_namespace(shared_server)
    shared_server.json("POST", PODS, pod("initial", step="before"))
    cache: Cache = {}
    events: queue.Queue[dict[str, Any]] = queue.Queue()
    informer = threading.Thread(target=run_informer, args=(
        shared_server, "sendInitialEvents=true&resourceVersionMatch=NotOlderThan", cache, events))
    informer.start()
    first = events.get(timeout=10)
    assert first["type"] == "ADDED"
    seen = [first]
    while seen[-1]["type"] != "BOOKMARK":
        seen.append(events.get(timeout=10))
    bookmark = seen[-1]["object"]
    assert bookmark["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    assert {e["object"]["metadata"]["name"] for e in seen[:-1]} == set(list_metadata(shared_server)[0])
    churn(shared_server)
    informer.join(30)
    assert not informer.is_alive()
    assert cache == list_metadata(shared_server)[0]
