"""`python -m benches.request_cost`: the app's own CPU time per request, in process, beside the floor's.

No HTTP server, TLS or load generator: each request's ASGI scope is handed straight to the app (the
same `build_app` app `python -m apiserver` serves, over the embedded store seeded as
`benches.api_load` seeds it), and the process's CPU time (not the wall clock, which other processes
on a shared machine stretch) is divided by the requests answered. The floor is the bare Starlette
app of shared/bench/floor_app.py serving each scenario's answer as precomputed bytes, so
`ours - floor` is what our pipeline adds to a request over the least any Starlette app does. Every
figure is the minimum over `--rounds` rounds.

`--cold` overwrites a buffer larger than the processor's caches before each request and times each
request alone, as a server meets a request after TLS, the kernel and uvicorn have run through the
caches. A hot loop answers from caches and so understates what a longer path costs: with `--cold`,
ours - floor on a get grew from about 12 to 34 µs here, close to the 31 µs of server CPU per request
that separates us from the floor over HTTP (`python -m benches.api_load --scenarios get`).

    python -m benches.request_cost                       # get list_selector list_table_none
    python -m benches.request_cost --scenarios "get list_all" --requests 2000 --rounds 7
    python -m benches.request_cost --cold --requests 400
    python -m benches.request_cost --writes --requests 1000    # every write, 32 at a time
    python -m benches.request_cost --writes --stages --requests 1000    # each write, stage by stage
    python -m benches.request_cost --writes --store etcd --requests 1000  # on a private etcd

`--writes` measures the write path instead: ConfigMap creates, merge patches, full replacements (PUT),
server-side applies and deletes, 32 requests in flight
as `benches.api_load`'s 32 connections keep them, each waiting for its fsync as the server does (the
store's group commit shares them). There is no floor to set them against: compare two trees' figures,
taken in turns. `--store etcd` starts a private etcd (Debian's etcd-server, as the tests do) and keeps
the objects there; the process's CPU then includes the gRPC client's threads, and not etcd's own.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any, Awaitable, Callable

import orjson
import uvloop
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from apiserver.server import EtcdFlags, ServeOptions, build
from benches.api_load import scenarios as sc
from benches.objects import configmap
from benches.private_etcd import private_etcd

App = Callable[[dict[str, Any], Callable[[], Awaitable[dict[str, Any]]], Callable[[dict[str, Any]], Awaitable[None]]],
              Awaitable[None]]
DEFAULT_SCENARIOS = "get list_selector list_table_none"


def _scope(method: str, target: str, token: str, accept: str | None, content_type: str = "") -> dict[str, Any]:
    path, _, query = target.partition("?")
    headers = [(b"host", b"127.0.0.1"), (b"authorization", f"Bearer {token}".encode()), (b"user-agent", b"bench")]
    if accept:
        headers.append((b"accept", accept.encode()))
    if content_type:
        headers.append((b"content-type", content_type.encode()))
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "https",
            "path": path, "raw_path": path.encode(), "query_string": query.encode(), "root_path": "",
            "headers": headers, "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 6443), "state": {},
            "extensions": {}}


async def _call(app: App, scope: dict[str, Any], body: bytes = b"") -> tuple[int, bytes]:
    """One request through the app: its status and body."""
    sent: list[dict[str, Any]] = []
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # a request's stream ends once; a later call waits for a disconnect
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(dict(scope), receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


# Larger than this machine's last-level cache (a few MiB per core), so that overwriting it evicts the lot.
_EVICTION_BYTES = 8 * 1024 * 1024


async def _cpu_per_request(app: App, scope: dict[str, Any], requests: int, rounds: int, cold: bool = False) -> float:
    """Microseconds of this process's CPU time per request, the least of `rounds` rounds; with `cold`, each
    request timed alone after the caches were filled with other bytes."""
    for _ in range(requests // 10):  # warm: caches filled, the Table's rows compiled
        await _call(app, scope)
    eviction = bytearray(_EVICTION_BYTES)
    zeros = bytes(_EVICTION_BYTES)
    best = float("inf")
    for _ in range(rounds):
        spent = 0.0
        started = time.process_time()
        for _ in range(requests):
            if cold:
                eviction[:] = zeros
                started = time.process_time()
            await _call(app, scope)
            if cold:
                spent += time.process_time() - started
        if not cold:
            spent = time.process_time() - started
        best = min(best, spent / requests * 1e6)
    return best


def _floor(bodies: dict[str, bytes]) -> App:
    async def serve(request: Request) -> Response:
        return Response(bodies[request.path_params["name"]], media_type="application/json")
    return Starlette(routes=[Route("/{name}", serve)])  # type: ignore[return-value]


async def _measure(names: list[str], count: int, requests: int, rounds: int,
                   cold: bool) -> list[tuple[str, float, float]]:
    data_dir = tempfile.mkdtemp(prefix="request-cost-")
    app, _ = build(ServeOptions(data_dir, "127.0.0.1", 0, False, 1000, 60.0, 10_000))
    with open(os.path.join(data_dir, "pki", "admin.token")) as f:
        token = f.read().strip()
    out: list[tuple[str, float, float]] = []
    async with app.site.router.lifespan_context(app.site):
        namespace_body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": sc.READ_NAMESPACE}}
        create = _scope("POST", "/api/v1/namespaces", token, None, "application/json")
        await _call(app, create, orjson.dumps(namespace_body))
        collection = f"/api/v1/namespaces/{sc.READ_NAMESPACE}/configmaps"
        create = _scope("POST", collection, token, None, "application/json")
        for i in range(count):
            status, answer = await _call(app, create, orjson.dumps(configmap(sc.READ_NAMESPACE, f"load-cm-{i:06d}", i)))
            assert status == 201, answer
        bodies: dict[str, bytes] = {}
        for name in names:
            scenario = sc.BY_NAME[name]
            scope = _scope("GET", scenario.path, token, scenario.accept)
            status, bodies[name] = await _call(app, scope)
            assert status == 200, (name, bodies[name][:300])
            ours = await _cpu_per_request(app, scope, requests, rounds, cold)
            floor = await _cpu_per_request(_floor(bodies), _scope("GET", f"/{name}", token, None), requests, rounds,
                                           cold)
            out.append((name, ours, floor))
    return out


_IN_FLIGHT = 32


async def _concurrently(app: App, requests: list[tuple[dict[str, Any], bytes]], expected: int,
                        in_flight: int = _IN_FLIGHT) -> None:
    gate = asyncio.Semaphore(in_flight)

    async def one(scope: dict[str, Any], body: bytes) -> None:
        async with gate:
            status, answer = await _call(app, scope, body)
            assert status == expected, answer[:300]
    await asyncio.gather(*(one(scope, body) for scope, body in requests))


WRITES = ("create", "patch", "update", "apply", "delete")
_APPLY = "application/apply-patch+yaml"


def _write_rounds(token: str, namespace: str, requests: int, rounds: int
                  ) -> list[dict[str, tuple[list[tuple[dict[str, Any], bytes]], int]]]:
    """Per round, each write's requests and the status that answers them: ConfigMaps created, merge
    patches, full replacements and server-side applies of the seeded targets, then this round's
    creations deleted."""
    collection = f"/api/v1/namespaces/{namespace}/configmaps"
    create = _scope("POST", collection, token, None, "application/json")
    out = []
    for r in range(rounds):
        names = [f"cm-{r}-{i:06d}" for i in range(requests)]
        targets = [f"target-{i % sc.PATCH_TARGETS:06d}" for i in range(requests)]
        replaced = []
        for i, name in enumerate(targets):
            whole = configmap(namespace, name, i)
            whole["data"]["mode"] = f"put-{r}-{i}"
            replaced.append((_scope("PUT", f"{collection}/{name}", token, None, "application/json"),
                             orjson.dumps(whole)))
        out.append({
            "create": ([(create, orjson.dumps(configmap(namespace, name, i))) for i, name in enumerate(names)], 201),
            "patch": ([(_scope("PATCH", f"{collection}/{name}", token, None, "application/merge-patch+json"),
                        orjson.dumps({"data": {"mode": f"{r}-{i}"}})) for i, name in enumerate(targets)], 200),
            "update": (replaced, 200),
            "apply": ([(_scope("PATCH", f"{collection}/{name}?fieldManager=bench&force=true", token, None, _APPLY),
                        orjson.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
                                      "data": {"mode": f"apply-{r}-{i}"}})) for i, name in enumerate(targets)],
                      200),
            "delete": ([(_scope("DELETE", f"{collection}/{name}", token, None), b"") for name in names], 200),
        })
    return out


async def _write_costs(requests: int, rounds: int, in_flight: int = _IN_FLIGHT,
                       each: Callable[[str], Any] | None = None, etcd: str | None = None) -> list[tuple[str, float]]:
    """CPU µs per ConfigMap write of each kind, each the least of `rounds` rounds of `requests`; `each`,
    when given, is entered around every write kind's round (the stage breakdown's timers)."""
    data_dir = tempfile.mkdtemp(prefix="request-cost-")
    app, _ = build(ServeOptions(data_dir, "127.0.0.1", 0, False, 1000, 60.0, 10_000,
                                etcd=None if etcd is None else EtcdFlags([etcd])))
    with open(os.path.join(data_dir, "pki", "admin.token")) as f:
        token = f.read().strip()
    namespace = sc.WRITE_NAMESPACE
    best = {name: float("inf") for name in WRITES}
    async with app.site.router.lifespan_context(app.site):
        await _call(app, _scope("POST", "/api/v1/namespaces", token, None, "application/json"),
                    orjson.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}))
        create = _scope("POST", f"/api/v1/namespaces/{namespace}/configmaps", token, None, "application/json")
        await _concurrently(app, [(create, orjson.dumps(configmap(namespace, f"target-{i:06d}", i)))
                                  for i in range(sc.PATCH_TARGETS)], 201)
        for writes in _write_rounds(token, namespace, requests, rounds):
            for name in WRITES:
                batch, expected = writes[name]
                with each(name) if each is not None else contextlib.nullcontext():
                    started = time.process_time()
                    await _concurrently(app, batch, expected, in_flight)
                    best[name] = min(best[name], (time.process_time() - started) / requests * 1e6)
    return list(best.items())


@contextlib.contextmanager
def _store(store: str) -> Iterator[str | None]:
    """None for the embedded store; for etcd, a private etcd's client URL while it runs."""
    if store == "embedded":
        yield None
        return
    with private_etcd("request-cost-etcd-") as servers:
        yield servers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benches.request_cost", description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", default=DEFAULT_SCENARIOS,
                        help="wrk scenarios of benches.api_load on ConfigMaps, e.g. get list_all list_selector "
                             "list_table list_table_none list_metadata")
    parser.add_argument("--count", type=int, default=1_000, help="ConfigMaps to seed")
    parser.add_argument("--requests", type=int, default=3_000, help="requests per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cold", action="store_true", help="evict the caches before each request (see above)")
    parser.add_argument("--writes", action="store_true",
                        help="measure ConfigMap creates, merge patches, updates, applies and deletes instead")
    parser.add_argument("--stages", action="store_true",
                        help="with --writes: where each write's CPU goes, stage by stage, one write in flight")
    parser.add_argument("--store", choices=("embedded", "etcd"), default="embedded",
                        help="with --writes: the store (etcd: a private one, started here)")
    args = parser.parse_args(argv)
    if args.writes:
        with _store(args.store) as etcd:
            write_costs = functools.partial(_write_costs, etcd=etcd)
            if args.stages:
                from benches import write_stages
                write_stages.report(uvloop.run(write_stages.measure(write_costs, args.requests, args.rounds)),
                                    args.requests, args.rounds)
                return 0
            costs = uvloop.run(write_costs(args.requests, args.rounds))
        print(f"CPU µs per write, in process, {_IN_FLIGHT} in flight, min of {args.rounds} rounds of "
              f"{args.requests}, {args.store} store (load average {os.getloadavg()[0]:.2f})")
        print("| write | ours |\n|---|---:|")
        for name, cost in costs:
            print(f"| {name} | {cost:.1f} |")
        return 0
    names = args.scenarios.replace(",", " ").split()
    unknown = [n for n in names if n not in sc.BY_NAME or "/pods" in sc.BY_NAME[n].path or sc.BY_NAME[n].driver != "wrk"]
    if unknown:
        raise SystemExit(f"not a ConfigMap read scenario of benches.api_load: {' '.join(unknown)}")
    results = uvloop.run(_measure(names, args.count, args.requests, args.rounds, args.cold))
    print(f"CPU µs per request, in process{', caches cold' if args.cold else ''}, min of {args.rounds} rounds of "
          f"{args.requests} ({args.count} ConfigMaps; "
          f"load average {os.getloadavg()[0]:.2f})")
    print("| scenario | ours | floor | ours - floor |\n|---|---:|---:|---:|")
    for name, ours, floor in results:
        print(f"| {name} | {ours:.1f} | {floor:.1f} | {ours - floor:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
