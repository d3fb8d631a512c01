"""`python -m benches.policy_cost`: what ValidatingAdmissionPolicies add to a write, in process.

The app `python -m apiserver` serves, with no HTTP server in front (as benches.request_cost does):
the same ConfigMap update (PUT, its data alternating so that each is a real write) is timed in the
process's CPU time per request, the least of `--rounds` rounds, on three servers in one process that
take turns round after round:

- none: no policy at all;
- 10 unmatched: ten policies, each bound, whose rules select Deployments only, so the write's
  resource is looked up once in the plugin's index and nothing is evaluated;
- 10 matched: those ten plus ten bound policies that select the write (CREATE/UPDATE of
  configmaps), each with a variable, two validations and a messageExpression, all passing;
- 10 matched + 1 webhook: those, and a ValidatingWebhookConfiguration that sends the write to a
  webhook on loopback over HTTPS (benches/micro/webhook_echo.py under uvicorn, in a process of its own,
  allowing everything). Its time is the server's CPU: the webhook's own work is in the other process.

    python -m benches.policy_cost
    python -m benches.policy_cost --requests 2000 --rounds 7
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import orjson
import uvloop

from apiserver.server import ServeOptions, build
from benches.request_cost import _call, _scope

# The tests' certificate maker, for the loopback webhook's TLS.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
from webhook_server import Certificates, make_certificates

NAMESPACE = "bench-policies"
WEBHOOKS = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
POLICIES = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
BINDINGS = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"


def _policy(name: str, resource: str, group: str) -> dict[str, Any]:
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": {"failurePolicy": "Fail",
                     "matchConstraints": {"resourceRules": [{"apiGroups": [group], "apiVersions": ["v1"],
                                                             "operations": ["CREATE", "UPDATE"],
                                                             "resources": [resource]}]},
                     "variables": [{"name": "size", "expression": "size(object.data)"}],
                     "validations": [
                         {"expression": "variables.size <= 16",
                          "messageExpression": "'too many keys: ' + string(variables.size)"},
                         {"expression": "object.data.all(k, k.size() < 64 && object.data[k].size() < 1024)"}]}}


def _binding(name: str) -> dict[str, Any]:
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": name}, "spec": {"policyName": name, "validationActions": ["Deny"]}}


def _webhook(url: str, certificates: Certificates) -> dict[str, Any]:
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "bench"}, "webhooks": [{
                "name": "bench.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
                "clientConfig": {"url": url, "caBundle": certificates.ca_bundle},
                "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": [""], "apiVersions": ["v1"],
                           "resources": ["configmaps"]}]}]}


@contextlib.contextmanager
def _echo_webhook() -> Iterator[tuple[str, Certificates]]:
    """The webhook that allows everything, on loopback over HTTPS: its URL and certificates."""
    certificates = make_certificates(tempfile.mkdtemp(prefix="policy-cost-certs-"))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "--app-dir",
                             os.path.join(os.path.dirname(os.path.abspath(__file__)), "micro"), "webhook_echo:app",
                             "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
                             "--ssl-certfile", certificates.cert_path, "--ssl-keyfile", certificates.key_path])
    try:
        for _ in range(100):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            time.sleep(0.1)
        yield f"https://127.0.0.1:{port}/validate", certificates
    finally:
        proc.terminate()
        proc.wait()


def _token(data_dir: str) -> str:
    with open(os.path.join(data_dir, "pki", "admin.token")) as f:
        return f.read().strip()


async def _app(policies: list[tuple[str, str, str]], webhook: dict[str, Any] | None = None
               ) -> tuple[Any, Any, list[bytes], dict[str, Any]]:
    """A server with `policies` (name, resource, group) bound and `webhook` configured, its ConfigMap, and
    the update to time."""
    data_dir = tempfile.mkdtemp(prefix="policy-cost-")
    app, _ = build(ServeOptions(data_dir, "127.0.0.1", 0, False, 1000, 60.0, 10_000))
    token = _token(data_dir)
    lifespan = app.site.router.lifespan_context(app.site)
    await lifespan.__aenter__()

    async def post(path: str, body: dict[str, Any]) -> None:
        status, answer = await _call(app, _scope("POST", path, token, None, "application/json"), orjson.dumps(body))
        assert status == 201, answer

    await post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
    path = f"/api/v1/namespaces/{NAMESPACE}/configmaps"
    await post(path, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "target"}, "data": {"a": "0"}})
    for name, resource, group in policies:
        await post(POLICIES, _policy(name, resource, group))
        await post(BINDINGS, _binding(name))
    if webhook is not None:
        await post(WEBHOOKS, webhook)
    bodies = [orjson.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "target"},
                            "data": {"a": str(i), "b": "x" * 40}}) for i in range(2)]
    return app, lifespan, bodies, _scope("PUT", f"{path}/target", token, None, "application/json")


async def _measure(requests: int, rounds: int, webhook: dict[str, Any]) -> list[tuple[str, float]]:
    unmatched = [(f"unmatched-{i}", "deployments", "apps") for i in range(10)]
    matched = [(f"matched-{i}", "configmaps", "") for i in range(10)]
    setups = {"none": ([], None), "10 unmatched": (unmatched, None),
              "10 unmatched + 10 matched": (unmatched + matched, None),
              "10 unmatched + 10 matched + 1 webhook": (unmatched + matched, webhook)}
    apps = {name: await _app(policies, configuration) for name, (policies, configuration) in setups.items()}
    best = {name: float("inf") for name in apps}
    for name, (app, _, bodies, put) in apps.items():  # warm: the policies compiled, caches filled
        for i in range(requests // 10):
            status, answer = await _call(app, put, bodies[i % 2])
            assert status == 200, answer
    # The setups take turns, round after round, so that the machine's load falls on each alike.
    for _ in range(rounds):
        for name, (app, _, bodies, put) in apps.items():
            started = time.process_time()
            for i in range(requests):
                await _call(app, put, bodies[i % 2])
            best[name] = min(best[name], (time.process_time() - started) / requests * 1e6)
    for app, lifespan, _, _ in apps.values():
        await lifespan.__aexit__(None, None, None)
    return list(best.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benches.policy_cost", description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1_000, help="writes per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    with _echo_webhook() as (url, certificates):
        results = uvloop.run(_measure(args.requests, args.rounds, _webhook(url, certificates)))
    print(f"CPU µs per ConfigMap update, in process, min of {args.rounds} rounds of {args.requests} "
          f"(load average {os.getloadavg()[0]:.2f})")
    print("| policies | µs per write | added |\n|---|---:|---:|")
    base = results[0][1]
    for name, spent in results:
        print(f"| {name} | {spent:.1f} | {spent - base:+.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
