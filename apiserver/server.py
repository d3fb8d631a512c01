"""Assembles the server: store, registry, credentials, app; and runs it on uvicorn."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import ipaddress
import logging
import os
import ssl
from dataclasses import dataclass, field, replace
from typing import Any, AsyncIterator

import orjson
import uvicorn
from starlette.applications import Starlette

from apiserver import allocator, collector, metrics, workers
from apiserver.admission import enabled as enabled_admission_plugins
from apiserver.admission.plugins import PluginContext, build_chain
from apiserver.admissionplugins.admissionconfig import ConfigError
from apiserver.auth import access, bootstrap_policy, pki, tokens
from apiserver.auth.jws import SigningKey
from apiserver.auth.keyfiles import KeyFileError, ServiceAccountFiles
from apiserver.auth.serviceaccounts import ISSUER, ServiceAccountTokens
from apiserver.auth.x509 import ClientCertificates
from apiserver.controllers.base import Context, ControllerSettings
from apiserver.controllers.client import CONTROLLER_MANAGER, KUBE_APISERVER, Client
from apiserver.controllers.identitylease import IdentityLease
from apiserver.controllers.informer import Informers
from apiserver.controllers.kubelet import SimulatedNodes
from apiserver.controllers.manager import ControllerManager, LeaderControllers
from apiserver.crd.crds import CustomResourceDefinitions
from apiserver.discovery.documents import Discovery
from apiserver.errors import ApiError
from apiserver.http import metricsapi
from apiserver.http.api_routes import ApiRoutes
from apiserver.http.app import ServerState, build_app
from apiserver.http.audit import AuditLog, PolicyError
from apiserver.http.endpoint import Endpoint, Target
from apiserver.http.limits import Limits, WatchSlots
from apiserver.http.readplans import ReadPlans
from apiserver.http.simkubelet import SimulatedKubelets
from apiserver.http.synthetic import SyntheticResources
from apiserver.http.tls import ClientCaConfig, ClientCertificateProtocol
from apiserver.kinds import capabilities, managedfields, objects
from apiserver.kinds.bootstrap import BootstrapObject, bootstrap_objects
from apiserver.kinds.resources import Registry, builtin_registry
from apiserver.registry.core import service_allocation as services
from apiserver.storage import etcdkeys
from apiserver.storage.election import LeaderElection
from apiserver.storage.embedded import EmbeddedStore, StoreOptions
from apiserver.storage.etcd import EtcdOptions, EtcdStore
from apiserver.storage.interface import Store, StoreUnreachable

log = logging.getLogger("apiserver")

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


# uvicorn's loops this server offers: uvloop's C loop, or the standard library's.
EVENT_LOOPS = ("uvloop", "asyncio")
DEFAULT_EVENT_LOOP = "uvloop"


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
    controllers: list[str] = field(default_factory=list)  # names, as enabled_controllers() reads the flag
    simulate_nodes: int = 0
    node_monitor_grace_seconds: float = 50.0
    controller_settings: ControllerSettings = field(default_factory=ControllerSettings)
    anonymous_auth: bool = False
    audit_log_path: str | None = None
    audit_policy_file: str | None = None
    etcd: EtcdFlags | None = None  # None: the embedded store
    workers: int = 1  # processes sharing the port (SO_REUSEPORT), each with its own watch cache
    console: bool = True
    apiserver_identity: bool = True  # the APIServerIdentity feature gate: the kube-system identity Lease
    event_loop: str = DEFAULT_EVENT_LOOP  # one of EVENT_LOOPS, uvicorn's `loop=`
    allow_privileged: bool = False  # kube-apiserver's --allow-privileged
    admission_control_config_file: str | None = None  # an AdmissionConfiguration (PodSecurity's is read)
    disabled_admission_plugins: frozenset[str] = frozenset()  # upstream names, of plugins on the chain
    service_range: services.ServiceRange = services.DEFAULT_SERVICE_RANGE  # --service-cluster-ip-range
    authorization_modes: tuple[str, ...] = ("RBAC",)  # --authorization-mode
    # kube-apiserver's flags (`fastkube-kube-apiserver`) in place of the data directory's own credentials.
    tls: pki.TlsFiles | None = None
    service_accounts: ServiceAccountFiles | None = None


@dataclass
class EtcdFlags:
    servers: list[str]
    prefix: str = "/registry"
    cafile: str = ""
    certfile: str = ""
    keyfile: str = ""
    event_ttl: float = 3600.0
    leader_elect: bool = False  # also implied by --workers > 1
    lease_duration: float = 15.0


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bootstrap_objects(service_range: services.ServiceRange) -> list[tuple[str, str, str, dict[str, Any]]]:
    """What kube-apiserver itself creates on a fresh cluster: (group, resource, namespace, object)."""
    bootstrap: list[tuple[str, str, str, dict[str, Any]]] = [
        ("", "namespaces", "", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        for name in SYSTEM_NAMESPACES]
    # Written at start-up by the legacy service account token tracking controller.
    bootstrap.append(("", "configmaps", "kube-system", {
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "kube-apiserver-legacy-service-account-token-tracking", "namespace": "kube-system"},
        "data": {"since": objects.now_rfc3339()[:10]}}))
    # The in-cluster address of the API, at the first address of the service range.
    bootstrap.append(("", "services", "default", {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "kubernetes", "namespace": "default",
                     "labels": {"component": "apiserver", "provider": "kubernetes"}},
        "spec": {"clusterIP": service_range.first, "type": "ClusterIP", "sessionAffinity": "None",
                 "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}]}}))
    bootstrap += [(bootstrap_policy.RBAC_GROUP, o.resource, o.namespace, o.body) for o in bootstrap_policy.objects()]
    return bootstrap


async def _bootstrap(endpoint: Endpoint, state: ServerState) -> None:
    for group, plural, namespace, body in _bootstrap_objects(endpoint.service_range):
        await _create_missing(endpoint, state, BootstrapObject(group, "v1", plural, managedfields.KUBE_APISERVER,
                                                               body, None, None), namespace)
    for found in bootstrap_objects():
        if found.resource == "servicecidrs":  # the default ServiceCIDR is the --service-cluster-ip-range
            found = dataclasses.replace(found, body={**found.body, "spec": {
                "cidrs": [str(endpoint.service_range.cidr)]}})
        await _create_missing(endpoint, state, found, "")


async def _create_missing(endpoint: Endpoint, state: ServerState, found: BootstrapObject, namespace: str) -> None:
    rt = state.registry.lookup(found.group, found.version, found.resource)
    assert rt is not None
    name = found.body["metadata"]["name"]
    # Another server over the same etcd may be bootstrapping too: look at what it wrote.
    await endpoint.store.catch_up(None)
    if endpoint.store.latest((rt.storage_key, namespace, name)) is not None:
        return
    try:
        await endpoint.create(Target(rt, namespace, None, None, {}, found.manager), orjson.dumps(found.body),
                              "application/json")
        if found.status is not None:
            now = objects.now_rfc3339()
            status = {**found.status, "conditions": [{**c, "lastTransitionTime": now}
                                                     for c in found.status.get("conditions") or ()]}
            await endpoint.patch(Target(rt, namespace, name, "status", {}, found.status_manager or found.manager),
                                 orjson.dumps({"status": status}), "application/merge-patch+json")
    except ApiError as exc:
        if exc.code == 409:  # another server over the same etcd made it first
            return
        log.error("could not create %s %s: %s", found.resource, name, exc.message)


def _audit_log(options: ServeOptions) -> AuditLog | None:
    if options.audit_log_path is None:
        if options.audit_policy_file is not None:
            raise SystemExit("cannot start: --audit-policy-file needs --audit-log-path")
        return None
    policy = None
    if options.audit_policy_file is not None:
        with open(options.audit_policy_file) as f:
            policy = f.read()
    try:
        return AuditLog(options.audit_log_path, policy)
    except PolicyError as exc:
        raise SystemExit(f"cannot start: {options.audit_policy_file}: {exc}") from None


def etcd_layout(registry: Registry, prefix: str) -> etcdkeys.Layout:
    """Where each built-in stored resource lives in etcd; custom resources are placed by their storage key."""
    paths = {rt.storage_key: etcdkeys.resource_path(rt.group, rt.plural, builtin=True)
             for rt in registry.types if not rt.synthetic and rt.custom is None}
    return etcdkeys.Layout(prefix, paths)


def _store(options: ServeOptions, registry: Registry) -> Store:
    if options.etcd is None:
        store = EmbeddedStore(StoreOptions(os.path.join(options.data_dir, "store"), options.history_size,
                                           options.history_seconds, options.snapshot_every))
        metrics.GROUP_COMMIT.stats = store.stats
        return store
    flags = options.etcd
    events = registry.lookup("", "v1", "events")
    assert events is not None
    return EtcdStore(EtcdOptions(flags.servers, flags.prefix, flags.cafile, flags.certfile, flags.keyfile,
                                 options.history_size, options.history_seconds,
                                 # an etcd call must fail before the request it serves times out
                                 call_timeout=max(1.0, options.limits.request_timeout_seconds / 2),
                                 ttl_seconds={events.storage_key: flags.event_ttl}),
                     etcd_layout(registry, flags.prefix))


def _tls_files(options: ServeOptions, creds: pki.Credentials) -> pki.TlsFiles:
    return options.tls or pki.TlsFiles(creds.serving_cert, creds.serving_key, creds.ca_cert, creds.ca_cert)


def _service_account_tokens(options: ServeOptions, store: Store) -> ServiceAccountTokens:
    pki_dir = os.path.join(options.data_dir, "pki")
    files = options.service_accounts
    if files is None:
        return ServiceAccountTokens(store, SigningKey.load_or_create(pki_dir))
    try:
        return ServiceAccountTokens(store, files.signing_key(pki_dir), files.issuers or (ISSUER,))
    except (KeyFileError, OSError) as exc:
        raise SystemExit(f"cannot start: {exc}") from None


def build(options: ServeOptions) -> tuple[ApiRoutes, str]:
    """The app and the kubeconfig path; credentials are ready when this returns, the store once serving starts."""
    os.makedirs(options.data_dir, exist_ok=True)
    capabilities.setup(options.allow_privileged)
    registry = builtin_registry()
    if SimulatedNodes.name in options.controllers:
        for rt in metricsapi.resource_types():  # what the simulated kubelets measure, as metrics-server serves it
            registry.add(rt)
    store = _store(options, registry)
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
    tls = _tls_files(options, creds)
    pki.write_kubeconfig(kubeconfig_path, pki.kubeconfig(server_url, token,
                                                         None if options.plain_http else tls.serving_ca))
    endpoint = Endpoint(store, registry, options.watch_queue_limit, options.bookmark_seconds,
                        limits.max_object_bytes, options.service_range, limits.min_request_timeout_seconds)
    assert enabled_admission_plugins  # imported for the plugins it registers
    authorizer = access.Authorizer(store, options.authorization_modes)
    try:
        endpoint.admission = build_chain(PluginContext(store, endpoint, registry,
                                                       options.admission_control_config_file, authorizer),
                                         options.disabled_admission_plugins)
    except ConfigError as exc:
        raise SystemExit(f"cannot start: --admission-control-config-file: {exc}") from None
    synthetic = SyntheticResources(registry, store, objects.now_rfc3339(), store.revision)
    discovery = Discovery(registry, address, synthetic.external_versions)
    state = ServerState(registry, store, discovery, endpoint, synthetic, authenticator,
                        authorizer,
                        _service_account_tokens(options, store),
                        ClientCertificates(),
                        limits, WatchSlots(limits.max_watches_per_user, limits.max_watches), ReadPlans(registry),
                        trust_unauthenticated=options.plain_http, anonymous=options.anonymous_auth,
                        audit=_audit_log(options), console=options.console,
                        simulated_kubelets=SimulatedKubelets(endpoint, registry)
                        if SimulatedNodes.name in options.controllers else None)
    election = None
    if options.etcd is not None and (options.workers > 1 or options.etcd.leader_elect):
        leases = registry.lookup("coordination.k8s.io", "v1", "leases")
        assert leases is not None
        election = LeaderElection(store, (leases.storage_key, "kube-system", "fastkube-controllers"),
                                  options.etcd.lease_duration, retry=min(2.0, options.etcd.lease_duration / 5))
    crds = CustomResourceDefinitions(store, registry, discovery,
                                     (lambda: election.leading) if election is not None else (lambda: True))
    if election is not None:
        election.on_elected.append(crds.resync)
    with open(tls.serving_ca) as f:
        ca_pem = f.read()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            await store.start()
        except StoreUnreachable as exc:
            # An operator's problem, not a bug: the message alone says what to look at.
            log.error("cannot start: %s", exc)
            raise SystemExit(1) from None
        crds.start()
        await _bootstrap(endpoint, state)
        await endpoint.admission.start()
        collector.freeze()  # the recovered store, before any request or watch exists
        client = Client(endpoint, registry, CONTROLLER_MANAGER)
        identity = IdentityLease(client.with_agent(KUBE_APISERVER)) if options.apiserver_identity else None
        if identity is not None:
            identity.start()

        def manager() -> ControllerManager:
            settings = replace(options.controller_settings, data_dir=options.data_dir)
            return ControllerManager(Context(client, Informers(endpoint), ca_pem, options.simulate_nodes,
                                             options.node_monitor_grace_seconds, settings), options.controllers)

        # glibc keeps the heap's free pages after a burst of connections; see apiserver/allocator.py.
        releaser = asyncio.create_task(allocator.release_periodically(), name="release-free-memory")
        controllers = LeaderControllers(manager)
        if election is None:
            controllers.start()
        else:
            # With several servers over one etcd, only the holder of the Lease runs controllers, as
            # kube-controller-manager does: they start when this server leads and stop when it no longer does.
            election.on_elected.append(controllers.elected)
            election.on_lost.append(controllers.lost)
            election.start()  # only now: an election won before the callbacks were in place would start nothing
        yield
        if election is not None:
            await election.stop()  # first, so that no late election starts controllers again
        if identity is not None:
            await identity.stop()
        await controllers.stop()
        await endpoint.admission.stop()
        await endpoint.conversion.close()
        releaser.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await releaser
        await store.close()
        if state.audit is not None:
            state.audit.close()

    return build_app(state, lifespan), kubeconfig_path


def serve(options: ServeOptions) -> None:
    if options.plain_http and not is_loopback(options.host):
        raise SystemExit(f"refusing to serve plain HTTP on {options.host}: --http is for loopback addresses only")
    if options.workers > 1 and options.etcd is None:
        raise SystemExit("--workers needs --etcd-servers: the embedded store belongs to one process")
    # Credentials and the kubeconfig are made here once, before any worker could race to make them.
    app, kubeconfig_path = build(options)
    print(f"kubeconfig: {kubeconfig_path}", flush=True)
    print(f"use it with: kubectl --kubeconfig {kubeconfig_path} get namespaces", flush=True)
    if options.workers > 1:
        workers.supervise(options.workers, functools.partial(serve_worker, options))
        return
    uvicorn.Server(_uvicorn_config(app, options)).run()


def serve_worker(options: ServeOptions) -> None:
    """One of --workers processes: its own watch cache, sharing the port with the others."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s[%(process)d]: %(message)s")
    app, _ = build(options)
    uvicorn.Server(_uvicorn_config(app, options)).run(sockets=[workers.shared_socket(options.host, options.port)])


def _uvicorn_config(app: ApiRoutes, options: ServeOptions) -> uvicorn.Config:
    tls = _tls_files(options, pki.ensure_credentials(options.data_dir, []))
    return ClientCaConfig(
        app, host=options.host, port=options.port, loop=options.event_loop, ws="wsproto", lifespan="on",
        # httptools, with the client certificate of a connection passed on to the app.
        http=ClientCertificateProtocol,
        log_level="warning", access_log=False,
        # kube-apiserver names no server in its answers; uvicorn would add `server: uvicorn`.
        server_header=False,
        ssl_certfile=None if options.plain_http else tls.serving_cert,
        ssl_keyfile=None if options.plain_http else tls.serving_key,
        # A client may present a certificate signed by the server's CA (kubeconfigs of kind, k3s, kubeadm).
        ssl_ca_certs=None if options.plain_http else tls.client_ca,
        ssl_cert_reqs=ssl.CERT_NONE if options.plain_http else ssl.CERT_OPTIONAL,
        timeout_keep_alive=60,
        # Open watches would hold a shutdown forever; clients re-watch after a restart anyway.
        timeout_graceful_shutdown=2,
    )
