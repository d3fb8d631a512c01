"""Assembles the server: store, registry, credentials, app; and runs it on uvicorn."""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
from dataclasses import dataclass, field
from typing import AsyncIterator

import orjson
import uvicorn
from starlette.applications import Starlette

from apiserver.auth import access, pki, tokens
from apiserver.crd.crds import CustomResourceDefinitions
from apiserver.discovery.documents import Discovery
from apiserver.errors import ApiError
from apiserver.http.app import ServerState, build_app
from apiserver.http.endpoint import Endpoint, Target
from apiserver.http.limits import Limits, WatchSlots
from apiserver.http.synthetic import SyntheticResources
from apiserver.kinds import managedfields, objects
from apiserver.kinds.resources import builtin_registry
from apiserver.storage.embedded import EmbeddedStore, StoreOptions

log = logging.getLogger("apiserver")

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


@dataclass
class ServeOptions:
    data_dir: str
    host: str
    port: int
    plain_http: bool
    history_size: int
    history_seconds: float
    snapshot_every: int
    watch_queue_limit: int = 1000
    bookmark_seconds: float = 60.0
    limits: Limits = field(default_factory=Limits)
    console: bool = True


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bootstrap_objects() -> list[tuple[str, str, dict[str, object]]]:
    """What kube-apiserver itself creates on a fresh cluster: (resource, namespace, object)."""
    bootstrap: list[tuple[str, str, dict[str, object]]] = [
        ("namespaces", "", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        for name in SYSTEM_NAMESPACES]
    # Written at start-up by the legacy service account token tracking controller.
    bootstrap.append(("configmaps", "kube-system", {
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "kube-apiserver-legacy-service-account-token-tracking", "namespace": "kube-system"},
        "data": {"since": objects.now_rfc3339()[:10]}}))
    # The in-cluster address of the API, at the first address of the service range.
    bootstrap.append(("services", "default", {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "kubernetes", "namespace": "default",
                     "labels": {"component": "apiserver", "provider": "kubernetes"}},
        "spec": {"clusterIP": "10.96.0.1", "type": "ClusterIP", "sessionAffinity": "None",
                 "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}]}}))
    return bootstrap


async def _bootstrap(endpoint: Endpoint, state: ServerState) -> None:
    for plural, namespace, body in _bootstrap_objects():
        rt = state.registry.lookup("", "v1", plural)
        assert rt is not None
        meta = body["metadata"]
        assert isinstance(meta, dict)
        if endpoint.store.latest((rt.storage_key, namespace, meta["name"])) is not None:
            continue
        try:
            await endpoint.create(Target(rt, namespace, None, None, {}, managedfields.KUBE_APISERVER),
                                  orjson.dumps(body), "application/json")
        except ApiError as exc:  # pragma: no cover - a fresh store cannot refuse these
            log.error("could not create %s %s: %s", plural, meta["name"], exc.message)


def build(options: ServeOptions) -> tuple[Starlette, str]:
    """The app and the kubeconfig path; credentials and the store are ready when this returns."""
    os.makedirs(options.data_dir, exist_ok=True)
    registry = builtin_registry()
    store = EmbeddedStore(StoreOptions(os.path.join(options.data_dir, "store"), options.history_size,
                                       options.history_seconds, options.snapshot_every))
    client_host = "127.0.0.1" if options.host in ("0.0.0.0", "::", "") else options.host
    address = f"[{client_host}]:{options.port}" if ":" in client_host else f"{client_host}:{options.port}"
    creds = pki.ensure_credentials(options.data_dir, [] if is_loopback(options.host) else [options.host])
    token = pki.read_token(creds)
    tokens_path = tokens.token_file_path(options.data_dir)
    tokens.ensure_token_file(tokens_path, token, access.ROLE_GROUPS["admin"])
    try:
        authenticator = tokens.TokenAuthenticator(tokens_path)
    except tokens.TokenFileError as exc:
        raise SystemExit(f"cannot start: {exc}") from None
    limits = options.limits
    server_url = ("http://" if options.plain_http else "https://") + address
    kubeconfig_path = os.path.abspath(os.path.join(options.data_dir, "kubeconfig"))
    pki.write_kubeconfig(kubeconfig_path, pki.kubeconfig(server_url, token,
                                                         None if options.plain_http else creds.ca_cert))
    endpoint = Endpoint(store, registry, options.watch_queue_limit, options.bookmark_seconds,
                        limits.max_object_bytes)
    discovery = Discovery(registry, address)
    state = ServerState(registry, store, discovery, endpoint,
                        SyntheticResources(registry, objects.now_rfc3339(), store.revision), authenticator,
                        limits, WatchSlots(limits.max_watches_per_user, limits.max_watches),
                        trust_unauthenticated=options.plain_http, console=options.console)
    crds = CustomResourceDefinitions(store, registry, discovery)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        crds.start()
        await _bootstrap(endpoint, state)
        yield
        await store.close()

    app = build_app(state)
    app.router.lifespan_context = lifespan
    return app, kubeconfig_path


def serve(options: ServeOptions) -> None:
    if options.plain_http and not is_loopback(options.host):
        raise SystemExit(f"refusing to serve plain HTTP on {options.host}: --http is for loopback addresses only")
    app, kubeconfig_path = build(options)
    creds = pki.ensure_credentials(options.data_dir, [])
    print(f"kubeconfig: {kubeconfig_path}", flush=True)
    print(f"use it with: kubectl --kubeconfig {kubeconfig_path} get namespaces", flush=True)
    config = uvicorn.Config(
        app, host=options.host, port=options.port, loop="uvloop", http="httptools", ws="wsproto",
        lifespan="on", log_level="warning", access_log=False,
        ssl_certfile=None if options.plain_http else creds.serving_cert,
        ssl_keyfile=None if options.plain_http else creds.serving_key,
        timeout_keep_alive=60,
        # Open watches would hold a shutdown forever; clients re-watch after a restart anyway.
        timeout_graceful_shutdown=2,
    )
    uvicorn.Server(config).run()
