"""`python -m apiserver`: serve the API on the embedded store; `... token add`: hand out a token."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import sys

from apiserver.admission import plugins
from apiserver.auth import access, pki, tokens
from apiserver.controllers.base import ControllerSettings
from apiserver.controllers.manager import enabled_controllers
from apiserver.http.limits import Limits, min_request_timeout
from apiserver.registry.core.service_allocation import DEFAULT_SERVICE_RANGE, ServiceRange
from apiserver.server import DEFAULT_EVENT_LOOP, EVENT_LOOPS, EtcdFlags, ServeOptions, serve
from apiserver.storage.wal import CorruptLog


def _add_token(data_dir: str, name: str, role: str, client_cert: bool) -> None:
    path = tokens.token_file_path(data_dir)
    kubeconfig = os.path.join(data_dir, "kubeconfig")
    if not os.path.exists(path) or not os.path.exists(kubeconfig):
        raise SystemExit(f"no server has started with --data-dir {data_dir} yet: "
                         "start it once, then add tokens")
    if client_cert:
        cert, key = pki.issue_client_certificate(data_dir, name, access.ROLE_GROUPS[role])
        sys.stdout.write(pki.client_kubeconfig_beside(kubeconfig, name, cert, key))
        return
    try:
        token = tokens.add_token(path, name, access.ROLE_GROUPS[role])
    except tokens.TokenFileError as exc:
        raise SystemExit(f"not adding to a token file that does not parse: {exc}") from None
    sys.stdout.write(pki.kubeconfig_beside(kubeconfig, name, token))


def _etcd_flags(args: argparse.Namespace) -> EtcdFlags | None:
    servers = [s.strip() for s in args.etcd_servers.split(",") if s.strip()]
    if not servers:
        return None
    return EtcdFlags(servers, args.etcd_prefix, args.etcd_cafile, args.etcd_certfile, args.etcd_keyfile,
                     args.event_ttl, args.leader_elect, args.leader_elect_lease_duration)


def _flag(value: str) -> bool:
    """A boolean flag written as kube-apiserver's are: --console=false."""
    if value.lower() in ("true", "1"):
        return True
    if value.lower() in ("false", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, not {value!r}")


def _network(value: str) -> str:
    """A CIDR flag, checked here so that a typo stops the start rather than a controller."""
    try:
        return str(ipaddress.ip_network(value, strict=False))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# The feature gates this server reads, with kube-apiserver 1.36's defaults.
FEATURE_GATES = {"APIServerIdentity": True}


def _feature_gates(value: str) -> dict[str, bool]:
    """--feature-gates=Name=true,...: the known gates, each as given or at its default."""
    gates = dict(FEATURE_GATES)
    for item in filter(None, (part.strip() for part in value.split(","))):
        name, sep, setting = item.partition("=")
        if not sep:
            raise argparse.ArgumentTypeError(f"missing bool value for {name}")
        if name not in FEATURE_GATES:
            raise argparse.ArgumentTypeError(f"unrecognized feature gate: {name}")
        gates[name] = _flag(setting)
    return gates


def _disabled_plugins(value: str) -> frozenset[str]:
    names = frozenset(name.strip() for name in value.split(",") if name.strip())
    why = plugins.unknown_to_disable(names)
    if why is not None:
        raise SystemExit(f"cannot start: {why}")
    return names


def _authorization_modes(value: str) -> tuple[str, ...]:
    modes = tuple(mode.strip() for mode in value.split(",") if mode.strip())
    unknown = [mode for mode in modes if mode not in access.AUTHORIZATION_MODES]
    if unknown or not modes:
        raise argparse.ArgumentTypeError(f"authorization modes served here: {', '.join(access.AUTHORIZATION_MODES)}"
                                         f"; not {', '.join(unknown) or 'none'}")
    return modes


def _service_range(value: str) -> ServiceRange:
    if "," in value:
        raise argparse.ArgumentTypeError("dual-stack service ranges are not served here: give one CIDR")
    try:
        return ServiceRange.parse(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m apiserver",
                                     description="A Kubernetes-compatible API server on an embedded store.")
    parser.add_argument("--data-dir", default="./data", help="where the store, credentials and kubeconfig live")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=6443)
    parser.add_argument("--http", action="store_true", help="serve plain HTTP (loopback addresses only)")
    parser.add_argument("--event-loop", choices=EVENT_LOOPS, default=DEFAULT_EVENT_LOOP,
                        help="the asyncio event loop uvicorn runs on: uvloop (faster) or asyncio's own")
    parser.add_argument("--history-size", type=int, default=10_000,
                        help="changes kept per resource for watches to resume from")
    parser.add_argument("--history-seconds", type=float, default=600.0,
                        help="how long a change is kept for watches to resume from")
    parser.add_argument("--snapshot-every", type=int, default=20_000,
                        help="write-ahead log records between snapshots")
    parser.add_argument("--watch-queue-limit", type=int, default=1000,
                        help="events a watcher may fall behind before it is closed (its client re-lists)")
    parser.add_argument("--watch-bookmark-seconds", type=float, default=60.0,
                        help="how often watches that allow bookmarks receive one")
    parser.add_argument("--console", type=_flag, nargs="?", const=True, default=True, metavar="true|false",
                        help="serve the browser console at /console/")
    parser.add_argument("--allow-privileged", type=_flag, nargs="?", const=True, default=False, metavar="true|false",
                        help="let pods run privileged (and Windows hostProcess) containers, as kube-apiserver's flag")
    parser.add_argument("--admission-control-config-file", metavar="FILE",
                        help="an AdmissionConfiguration; PodSecurity's configuration (defaults, exemptions) is read")
    parser.add_argument("--disable-admission-plugins", default="", metavar="Name,...",
                        help="admission plugins to turn off, by kube-apiserver's names (those this server applies "
                             "on its admission chain)")
    defaults = Limits()
    parser.add_argument("--max-body-bytes", type=int, default=defaults.max_body_bytes,
                        help="largest request body; larger ones are answered 413")
    parser.add_argument("--max-object-bytes", type=int, default=defaults.max_object_bytes,
                        help="largest object once encoded (etcd's limit); larger ones are answered 413")
    parser.add_argument("--max-watches-per-user", type=int, default=defaults.max_watches_per_user,
                        help="open watches one user may hold; more are answered 429")
    parser.add_argument("--max-watches", type=int, default=defaults.max_watches,
                        help="open watches on the whole server; more are answered 429")
    parser.add_argument("--request-timeout", type=float, default=defaults.request_timeout_seconds,
                        help="seconds a request other than a watch may take before it is answered 504")
    parser.add_argument("--min-request-timeout", type=min_request_timeout,
                        default=defaults.min_request_timeout_seconds, metavar="SECONDS",
                        help="a watch without timeoutSeconds ends after this many seconds to twice as many, "
                             "at random (0: never)")
    parser.add_argument("--anonymous-auth", action="store_true",
                        help="let requests without credentials in as system:anonymous; RBAC decides what it sees")
    parser.add_argument("--audit-log-path", help="write audit.k8s.io/v1 Event lines to this file ('-': stdout)")
    parser.add_argument("--audit-policy-file", help="an audit.k8s.io/v1 Policy; without one every request is "
                                                    "logged at the Metadata level")
    parser.add_argument("--controllers", default="*",
                        help="controllers to run, as kube-controller-manager's flag: '*' all on by default, "
                             "'foo' enables foo, '-foo' disables foo; '-*' none")
    parser.add_argument("--simulate-nodes", type=int, default=0, metavar="N",
                        help="register N simulated nodes (node-1..node-N) whose fake kubelets run the pods bound "
                             "to them")
    parser.add_argument("--feature-gates", type=_feature_gates, default=dict(FEATURE_GATES), metavar="Name=bool,...",
                        help="kube-apiserver's gates this server reads: APIServerIdentity (default true) keeps the "
                             "kube-system Lease apiserver-<hash> renewed every 10 s")
    parser.add_argument("--node-startup-grace-period", type=float, default=60.0, metavar="SECONDS",
                        help="how long a node that never reported may stay silent before it is marked Unknown")
    parser.add_argument("--authorization-mode", type=_authorization_modes, default=("RBAC",), metavar="MODES",
                        help="kube-apiserver's flag: authorizers tried in order, of RBAC, AlwaysAllow and AlwaysDeny "
                             "(default RBAC)")
    parser.add_argument("--service-cluster-ip-range", type=_service_range, default=DEFAULT_SERVICE_RANGE,
                        metavar="CIDR", help="the range Services' cluster IPs are assigned from, as kube-apiserver's "
                                             "flag; the kubernetes Service takes its first address "
                                             f"(default {DEFAULT_SERVICE_RANGE.cidr})")
    parser.add_argument("--node-monitor-grace-period", type=float, default=50.0, metavar="SECONDS",
                        help="how long a node may go without a heartbeat before it is marked Unknown")
    settings = ControllerSettings()
    parser.add_argument("--load-balancer-ip-range", type=_network, default=settings.load_balancer_ip_range,
                        metavar="CIDR", help="addresses LoadBalancer Services get (service-lb-controller); only "
                                             "written down, nothing listens on them")
    parser.add_argument("--cluster-cidr", type=_network, default=settings.cluster_cidr, metavar="CIDR",
                        help="the range node podCIDRs are cut from (node-ipam-controller)")
    parser.add_argument("--node-cidr-mask-size", type=int, default=settings.node_cidr_mask_size,
                        help="the prefix length of each node's podCIDR")
    parser.add_argument("--horizontal-pod-autoscaler-sync-period", type=float, default=settings.hpa_sync_seconds,
                        metavar="SECONDS", help="how often each HorizontalPodAutoscaler is evaluated")
    parser.add_argument("--terminated-pod-gc-threshold", type=int, default=settings.terminated_pod_gc_threshold,
                        help="terminated pods kept before the pod garbage collector deletes the oldest (0: none "
                             "are collected for that reason)")
    etcd = parser.add_argument_group("etcd", "serve from etcd instead of the embedded store (--data-dir still "
                                            "holds the credentials)")
    etcd.add_argument("--etcd-servers", default="",
                      help="comma-separated etcd URLs (http://host:2379 or https://...); selects the etcd store")
    etcd.add_argument("--etcd-prefix", default="/registry", help="the prefix of every key in etcd")
    etcd.add_argument("--etcd-cafile", default="", help="CA bundle verifying etcd's serving certificate")
    etcd.add_argument("--etcd-certfile", default="", help="client certificate presented to etcd")
    etcd.add_argument("--etcd-keyfile", default="", help="key of the client certificate")
    parser.add_argument("--workers", type=int, default=1,
                        help="server processes sharing the port, each with its own watch cache (needs etcd)")
    etcd.add_argument("--leader-elect", action="store_true",
                      help="run once-only work (the CRD controller's writes) only while holding the Lease "
                           "kube-system/fastkube-controllers; implied by --workers above 1")
    etcd.add_argument("--leader-elect-lease-duration", type=float, default=15.0,
                      help="seconds a leader that stopped renewing keeps the Lease (kube-controller-manager's)")
    etcd.add_argument("--event-ttl", type=float, default=3600.0,
                      help="seconds an Event is kept in etcd before etcd deletes it")
    commands = parser.add_subparsers(dest="command", metavar="{token}")
    token = commands.add_parser("token", help="manage bearer tokens")
    token_actions = token.add_subparsers(dest="action", required=True)
    add = token_actions.add_parser("add", help="add a token to DATA_DIR/pki/tokens.csv; print its kubeconfig")
    add.add_argument("name", help="the user name the token authenticates as")
    add.add_argument("--role", choices=sorted(access.ROLE_GROUPS), required=True)
    add.add_argument("--data-dir", default=argparse.SUPPRESS, help="as for serving (default ./data)")
    add.add_argument("--client-cert", action="store_true",
                     help="a client certificate signed by the server's CA (CN=name, O=the role's group) "
                          "instead of a bearer token")
    args = parser.parse_args(argv)
    if args.command == "token":
        _add_token(args.data_dir, args.name, args.role, args.client_cert)
        return
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        controllers = enabled_controllers(args.controllers)
    except ValueError as exc:
        parser.error(f"--controllers: {exc}")
    limits = Limits(args.max_body_bytes, args.max_object_bytes, args.max_watches_per_user, args.max_watches,
                    args.request_timeout, args.min_request_timeout)
    try:
        serve(ServeOptions(args.data_dir, args.host, args.port, args.http, args.history_size,
                           args.history_seconds, args.snapshot_every, args.watch_queue_limit,
                           args.watch_bookmark_seconds, limits, controllers=controllers,
                           simulate_nodes=args.simulate_nodes,
                           node_monitor_grace_seconds=args.node_monitor_grace_period,
                           controller_settings=ControllerSettings(
                               load_balancer_ip_range=args.load_balancer_ip_range, cluster_cidr=args.cluster_cidr,
                               node_cidr_mask_size=args.node_cidr_mask_size,
                               hpa_sync_seconds=args.horizontal_pod_autoscaler_sync_period,
                               terminated_pod_gc_threshold=args.terminated_pod_gc_threshold,
                               node_startup_grace_seconds=args.node_startup_grace_period),
                           anonymous_auth=args.anonymous_auth, audit_log_path=args.audit_log_path,
                           audit_policy_file=args.audit_policy_file,
                           etcd=_etcd_flags(args), workers=args.workers, console=args.console,
                           apiserver_identity=args.feature_gates["APIServerIdentity"],
                           event_loop=args.event_loop, allow_privileged=args.allow_privileged,
                           admission_control_config_file=args.admission_control_config_file,
                           disabled_admission_plugins=_disabled_plugins(args.disable_admission_plugins),
                           service_range=args.service_cluster_ip_range,
                           authorization_modes=args.authorization_mode))
    except CorruptLog as exc:
        # An operator's problem, not a bug: the message alone (file and offset) says what to look at.
        raise SystemExit(f"cannot start: {exc}") from None


if __name__ == "__main__":
    main()
