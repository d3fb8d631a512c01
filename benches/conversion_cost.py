"""`python -m benches.conversion_cost`: what a CRD conversion webhook adds to a get and to a list of 100.

The app `python -m apiserver` serves, in process with no HTTP server in front (as benches.request_cost
does), holds 100 objects of each of two CRDs that differ only in `spec.conversion`: one with strategy
None, one with a Webhook on loopback (an aiohttp HTTPS server in a process of its own, converting
v1alpha1 `spec.size` to v1 `spec.replicas` as tests/conversion_scenarios does). The storage version is
v1. Each read is timed in wall time (the webhook's round trip is the point) and in this process's CPU
time (what the server itself spends, the webhook's own work left out), the least of `--rounds` rounds,
the scenarios taking turns round after round:

- None, v1 / v1alpha1: strategy None, in the storage version and in the other (apiVersion rewritten);
- Webhook, v1: in the storage version, where nothing is sent;
- Webhook, v1alpha1: in the other version: one ConversionReview per get, one per list of 100.

    python -m benches.conversion_cost
    python -m benches.conversion_cost --requests 300 --rounds 7
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import ssl
import subprocess
import sys
import tempfile
import time
from typing import Any

import orjson
import uvloop

from apiserver.server import ServeOptions, build
from benches.request_cost import _call, _scope

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
from webhook_server import make_certificates  # the tests' certificate maker

NAMESPACE = "bench-conversion"
OBJECTS = 100
_CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def _serve_webhook(cert: str, key: str) -> None:
    """The webhook process: answers ConversionReviews on an HTTPS port it prints."""
    from aiohttp import web

    async def convert(request: web.Request) -> web.Response:
        review = await request.json()
        desired = review["request"]["desiredAPIVersion"]
        converted = []
        for obj in review["request"]["objects"]:
            spec = dict(obj.get("spec") or {})
            if desired.endswith("/v1") and "size" in spec:
                spec["replicas"] = spec.pop("size")
            elif desired.endswith("/v1alpha1") and "replicas" in spec:
                spec["size"] = spec.pop("replicas")
            converted.append({**obj, "apiVersion": desired, "spec": spec})
        return web.json_response({"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": {
            "uid": review["request"]["uid"], "result": {"status": "Success"}, "convertedObjects": converted}})

    async def main() -> None:
        app = web.Application()
        app.router.add_post("/convert", convert)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
        await site.start()
        print(site._server.sockets[0].getsockname()[1], flush=True)  # type: ignore[union-attr]
        await asyncio.Event().wait()

    uvloop.run(main())


def _token(data_dir: str) -> str:
    with open(os.path.join(data_dir, "pki", "admin.token")) as f:
        return f.read().strip()


def _crd(group: str, conversion: dict[str, Any]) -> dict[str, Any]:
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"caches.{group}"},
            "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "caches", "kind": "Cache"},
                     "versions": [{"name": "v1alpha1", "served": True, "storage": False, "schema": schema},
                                  {"name": "v1", "served": True, "storage": True, "schema": schema}],
                     "conversion": conversion}}


async def _measure(requests: int, rounds: int, webhook_url: str, ca_bundle: str) -> dict[str, tuple[float, float]]:
    data_dir = tempfile.mkdtemp(prefix="conversion-cost-")
    app, _ = build(ServeOptions(data_dir, "127.0.0.1", 0, False, 1000, 60.0, 10_000))
    token = _token(data_dir)
    lifespan = app.site.router.lifespan_context(app.site)
    await lifespan.__aenter__()

    async def post(path: str, body: dict[str, Any]) -> None:
        status, answer = await _call(app, _scope("POST", path, token, None, "application/json"), orjson.dumps(body))
        assert status == 201, answer

    await post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
    webhook = {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {
        "url": webhook_url, "caBundle": ca_bundle}}}
    groups: dict[str, tuple[str, dict[str, Any]]] = {"None": ("none.bench.example.com", {"strategy": "None"}),
                                                     "Webhook": ("webhook.bench.example.com", webhook)}
    for group, conversion in groups.values():
        await post(_CRDS, _crd(group, conversion))
        for index in range(OBJECTS):
            await post(f"/apis/{group}/v1/namespaces/{NAMESPACE}/caches", {
                "apiVersion": f"{group}/v1", "kind": "Cache", "metadata": {"name": f"cache-{index:03}"},
                "spec": {"replicas": index, "engine": "redis"}})
    scopes = {}
    for strategy, (group, _) in groups.items():
        for version in ("v1", "v1alpha1"):
            base = f"/apis/{group}/{version}/namespaces/{NAMESPACE}/caches"
            scopes[f"get, {strategy}, {version}"] = _scope("GET", f"{base}/cache-042", token, "application/json")
            scopes[f"list of {OBJECTS}, {strategy}, {version}"] = _scope("GET", base, token, "application/json")
    for name, scope in scopes.items():  # warm, and check the answers are converted
        status, body = await _call(app, scope)
        assert status == 200, body
        if name == "get, Webhook, v1alpha1":
            assert json.loads(body)["spec"] == {"engine": "redis", "size": 42}, body
    best = {name: (float("inf"), float("inf")) for name in scopes}
    for _ in range(rounds):
        for name, scope in scopes.items():
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(requests):
                await _call(app, scope)
            spent = ((time.perf_counter() - wall) / requests * 1e6, (time.process_time() - cpu) / requests * 1e6)
            best[name] = (min(best[name][0], spent[0]), min(best[name][1], spent[1]))
    await lifespan.__aexit__(None, None, None)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benches.conversion_cost", description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="reads per scenario and round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--serve-webhook", nargs=2, metavar=("CERT", "KEY"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_webhook:
        _serve_webhook(*args.serve_webhook)
        return 0
    certificates = make_certificates(tempfile.mkdtemp(prefix="conversion-webhook-"))
    webhook = subprocess.Popen([sys.executable, "-m", "benches.conversion_cost", "--serve-webhook",
                                certificates.cert_path, certificates.key_path], stdout=subprocess.PIPE, text=True)
    try:
        assert webhook.stdout is not None
        port = int(webhook.stdout.readline())
        results = uvloop.run(_measure(args.requests, args.rounds, f"https://127.0.0.1:{port}/convert",
                                      certificates.ca_bundle))
    finally:
        webhook.terminate()
        webhook.wait()
    print(f"µs per read, in process, min of {args.rounds} rounds of {args.requests} "
          f"(load average {os.getloadavg()[0]:.2f}); storage version v1")
    print("| read | wall µs | CPU µs (server only) |\n|---|---:|---:|")
    for name, (wall, cpu) in results.items():
        print(f"| {name} | {wall:.0f} | {cpu:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
