"""The `schedule` scenario: a Deployment of many replicas, created and followed until every Pod has a Node.

One watch on the namespace's pods (from the revision before the create) timestamps each Pod when it
first appears and when it first carries spec.nodeName. ops/s is Pods bound per second, from the
Deployment's create to the last binding; a latency is one Pod's wait, from its creation being seen to
its binding being seen. The Deployment is deleted afterwards and its Pods waited out, so runs do not
add up. Needs a server with nodes (ours: `--simulate-nodes`, which a checkout without controllers
lacks): on one without, the scenario is not applicable and is skipped rather than waited out.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time

import orjson

from benches.api_load.client import Client
from benches.api_load.servers import Target
from benches.api_load.watch import _Connection, _percentile, watch_events
from benches.api_load.wrk import RunFigures

SCHEDULE_TIMEOUT_S = 120.0
NODES_WAIT_S = 10.0


def not_applicable(client: Client) -> str | None:
    """Why this server cannot run the scenario, or None: without a Node no Pod is ever bound.

    Waits a little for the first Node: a server's controllers register its simulated nodes after it
    answers, and on several workers only once one of them leads."""
    deadline = time.monotonic() + NODES_WAIT_S
    while True:
        nodes = client.call("GET", "/api/v1/nodes?limit=1")
        if nodes.status != 200:
            return f"nodes cannot be listed (HTTP {nodes.status}): nothing to schedule onto"
        if orjson.loads(nodes.body).get("items"):
            return None
        if time.monotonic() > deadline:
            return f"the server has no Nodes after {NODES_WAIT_S:g} s (no scheduler or simulated nodes)"
        time.sleep(0.5)


async def _request(target: Target, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
    """One request on a new connection: the wait for bindings may outlast the server's keep-alive."""
    conn = _Connection(target)
    await conn.open()
    try:
        return await conn.request(method, path, body)
    finally:
        conn.close()


def deployment(namespace: str, name: str, replicas: int) -> dict[str, object]:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": namespace},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "app", "image": "nginx"}]}}}}


async def _follow(target: Target, path: str, first_seen: dict[str, float], bound: dict[str, float],
                  gone: set[str], ready: asyncio.Event) -> None:
    async with contextlib.aclosing(watch_events(target, path, ready)) as lines:
        async for line in lines:
            event = orjson.loads(line)
            pod = event["object"]
            name = pod["metadata"]["name"]
            now = time.perf_counter()
            first_seen.setdefault(name, now)
            if (pod.get("spec") or {}).get("nodeName"):
                bound.setdefault(name, now)
            if event["type"] == "DELETED":
                gone.add(name)


async def _measure(target: Target, namespace: str, revision: str, name: str, replicas: int) -> RunFigures:
    first_seen: dict[str, float] = {}
    bound: dict[str, float] = {}
    gone: set[str] = set()
    ready = asyncio.Event()
    watch_path = (f"/api/v1/namespaces/{namespace}/pods?watch=1&resourceVersion={revision}"
                  f"&labelSelector=app%3D{name}&timeoutSeconds={int(SCHEDULE_TIMEOUT_S * 2)}")
    follower = asyncio.create_task(_follow(target, watch_path, first_seen, bound, gone, ready))
    writer = _Connection(target)  # opened before the clock starts: a TLS handshake is not the scheduler's time
    await writer.open()
    collection = f"/apis/apps/v1/namespaces/{namespace}/deployments"
    try:
        await asyncio.wait_for(ready.wait(), 30)
        start = time.perf_counter()
        status, body = await writer.request("POST", collection, orjson.dumps(deployment(namespace, name, replicas)))
        if status != 201:
            raise RuntimeError(f"create deployment: HTTP {status}: {body[:300]!r}")
        while len(bound) < replicas and time.perf_counter() - start < SCHEDULE_TIMEOUT_S:
            await asyncio.sleep(0.01)
        finished = max(bound.values(), default=start)
        latencies = [(bound[n] - first_seen[n]) * 1000 for n in bound]
        await _request(target, "DELETE", f"{collection}/{name}")
        cleanup_deadline = time.perf_counter() + SCHEDULE_TIMEOUT_S
        while (set(first_seen) - gone) and time.perf_counter() < cleanup_deadline:
            await asyncio.sleep(0.05)
    finally:
        writer.close()
        follower.cancel()
        await asyncio.gather(follower, return_exceptions=True)
    done = len(bound)
    return RunFigures(rps=done / max(finished - start, 1e-9), p50_ms=_percentile(latencies, 0.50),
                      p90_ms=_percentile(latencies, 0.90), p99_ms=_percentile(latencies, 0.99), requests=done,
                      failed=replicas - done, bytes_per_response=0.0, loadavg=os.getloadavg()[0])


def measure(target: Target, namespace: str, revision: str, name: str, replicas: int) -> RunFigures:
    return asyncio.run(_measure(target, namespace, revision, name, replicas))
