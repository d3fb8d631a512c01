"""`fastkube-kube-apiserver`: the server started with kube-apiserver's flags, for envtest.

envtest (`pkg/internal/testing/controlplane/apiserver.go`) runs `kube-apiserver --help` to see whether
`--insecure-port` exists (it does not here, so envtest leaves it out), then starts it with `--cert-dir`
holding the `apiserver.crt`/`apiserver.key` it made, `--client-ca-file` naming the CA of its admin
client certificate, its etcd in `--etcd-servers`, the ServiceAccount key files it made, and waits for
`https://<bind-address>:<secure-port>/healthz`. Each flag is mapped to this server's options below; the
flags that mean nothing here are accepted and named in one log line each, with why.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING

from apiserver.http.limits import Limits, min_request_timeout
from apiserver.registry.core.service_allocation import DEFAULT_SERVICE_RANGE, ServiceRange

if TYPE_CHECKING:
    from apiserver.auth.pki import TlsFiles
    from apiserver.server import ServeOptions

log = logging.getLogger("fastkube-kube-apiserver")

# kube-apiserver's flags that have no counterpart here, and why each is let go.
IGNORED = {
    "advertise-address": "no Endpoints are written for the `kubernetes` Service",
    "enable-priority-and-fairness": "requests are not queued by priority level",
    "insecure-port": "there is no insecure port (as in kube-apiserver 1.24 and later)",
    "insecure-bind-address": "there is no insecure port (as in kube-apiserver 1.24 and later)",
    "v": "this server's log has one level",
}

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)")
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def go_duration(text: str) -> float:
    """Seconds in a Go duration as kube-apiserver's flags take them: `1h0m0s`, `60s`, `1.5m`."""
    if text.replace(".", "", 1).isdigit():
        return float(text)
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r}")
    return sum(float(n) * _UNIT_SECONDS[u] for n, u in parts)


def _bool(text: str) -> bool:
    if text.lower() in ("true", "1", "t"):
        return True
    if text.lower() in ("false", "0", "f"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, not {text!r}")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fastkube-kube-apiserver", allow_abbrev=False,
        description="fastkube-apiserver with kube-apiserver's flags, for controller-runtime's envtest "
                    "(TEST_ASSET_KUBE_APISERVER). Flags not listed here are accepted and ignored with a log "
                    "line.")
    parser.add_argument("--etcd-servers", default="",
                        help="etcd URLs, comma-separated; none: the embedded store")
    parser.add_argument("--etcd-prefix", default="/registry")
    parser.add_argument("--etcd-cafile", default="")
    parser.add_argument("--etcd-certfile", default="")
    parser.add_argument("--etcd-keyfile", default="")
    parser.add_argument("--event-ttl", type=go_duration, default=3600.0)
    parser.add_argument("--cert-dir", default="",
                        help="apiserver.crt and apiserver.key, made there when absent")
    parser.add_argument("--tls-cert-file", default="")
    parser.add_argument("--tls-private-key-file", default="")
    parser.add_argument("--client-ca-file", default="", help="the CA client certificates must be signed by")
    parser.add_argument("--secure-port", type=int, default=6443)
    parser.add_argument("--bind-address", default="0.0.0.0")
    parser.add_argument("--anonymous-auth", type=_bool, nargs="?", const=True, default=True)
    parser.add_argument("--service-account-issuer", action="append", default=[])
    parser.add_argument("--service-account-key-file", action="append", default=[])
    parser.add_argument("--service-account-signing-key-file", default="")
    parser.add_argument("--allow-privileged", type=_bool, nargs="?", const=True, default=False,
                        help="let privileged containers in (kube-apiserver's default: false)")
    parser.add_argument("--admission-control-config-file", help="an AdmissionConfiguration (PodSecurity's)")
    parser.add_argument("--audit-log-path")
    parser.add_argument("--audit-policy-file")
    parser.add_argument("--request-timeout", type=go_duration, default=Limits().request_timeout_seconds)
    parser.add_argument("--min-request-timeout", type=min_request_timeout,
                        default=Limits().min_request_timeout_seconds)
    parser.add_argument("--feature-gates", default="")
    parser.add_argument("--enable-admission-plugins", default="")
    parser.add_argument("--disable-admission-plugins", default="")
    parser.add_argument("--service-cluster-ip-range", default="",
                        help="Services' cluster IPs (the first of dual-stack ranges; default "
                             f"{DEFAULT_SERVICE_RANGE.cidr})")
    parser.add_argument("--authorization-mode", default="RBAC",
                        help="authorizers in order; RBAC, AlwaysAllow and AlwaysDeny are carried out")
    parser.add_argument("--fastkube-data-dir", default="",
                        help="the store (without etcd), the admin token and a kubeconfig; default: "
                             "CERT_DIR/fastkube, or a new temporary directory")
    parser.add_argument("--fastkube-controllers", default="-*",
                        help="controllers to run (python -m apiserver --controllers); none by default, as "
                             "kube-apiserver alone runs none")
    parser.add_argument("--fastkube-simulate-nodes", type=int, default=0, metavar="N")
    return parser


def _log_ignored(unknown: Sequence[str]) -> None:
    for arg in unknown:
        name = arg.lstrip("-").split("=", 1)[0]
        if not arg.startswith("-"):
            log.info("ignoring %s: a value of the flag before it, which is ignored", arg)
        else:
            why = IGNORED.get(name, "not a flag this server has a counterpart for")
            log.info("ignoring %s: %s", arg, why)


def _feature_gates(value: str) -> bool:
    """The APIServerIdentity gate (default on), the one gate read here; the others are logged."""
    identity = True
    for item in filter(None, (part.strip() for part in value.split(","))):
        name, _, setting = item.partition("=")
        if name == "APIServerIdentity":
            identity = _bool(setting)
        else:
            log.info("ignoring feature gate %s: not one this server reads", item)
    return identity


def _disabled_plugins(enable: str, disable: str) -> frozenset[str]:
    """The plugins of this server's admission chain that `--disable-admission-plugins` turns off. A name
    kube-apiserver does not know stops the start, as it stops kube-apiserver's; a plugin not on this
    server's chain (not applied, or applied outside it: docs/compatibility.md) is logged and left as it
    is, and so is every name `--enable-admission-plugins` gives, as this server's chain is on by default."""
    from apiserver.admission import plugins  # its plugins registered, as options() imported the server
    asked = {flag: [name.strip() for name in value.split(",") if name.strip()]
             for flag, value in (("enable-admission-plugins", enable), ("disable-admission-plugins", disable))}
    for flag, names in asked.items():
        for name in names:
            if name not in plugins.ORDERED_PLUGINS:
                raise SystemExit(f'{flag} plugin "{name}" is unknown')
    on_chain = plugins.on_chain()
    for flag, names in asked.items():
        for name in names:
            if flag == "enable-admission-plugins" or name not in on_chain:
                where = "on by default here" if name in on_chain else "not on this server's admission chain"
                log.info("ignoring %s=%s: %s (docs/compatibility.md)", f"--{flag}", name, where)
    return frozenset(asked["disable-admission-plugins"]) & on_chain


def _service_range(value: str) -> ServiceRange:
    ranges = [part.strip() for part in value.split(",") if part.strip()]
    if not ranges:
        return DEFAULT_SERVICE_RANGE
    for extra in ranges[1:]:
        log.info("ignoring the service range %s: dual-stack Services are not served here", extra)
    try:
        return ServiceRange.parse(ranges[0])
    except ValueError as exc:
        raise SystemExit(f"cannot start: --service-cluster-ip-range: {exc}") from None


def _authorization_modes(value: str) -> tuple[str, ...]:
    from apiserver.auth.access import AUTHORIZATION_MODES
    modes = []
    for mode in filter(None, (part.strip() for part in value.split(","))):
        if mode in AUTHORIZATION_MODES:
            modes.append(mode)
        else:
            log.info("ignoring authorization mode %s: not one this server carries out", mode)
    return tuple(modes) or ("RBAC",)


def _data_dir(args: argparse.Namespace) -> str:
    if args.fastkube_data_dir:
        return str(args.fastkube_data_dir)
    if args.cert_dir:
        return os.path.join(args.cert_dir, "fastkube")  # removed with it, as envtest removes its cert dir
    return tempfile.mkdtemp(prefix="fastkube-kube-apiserver-")


def _tls(args: argparse.Namespace, data_dir: str) -> TlsFiles | None:
    """The serving files as kube-apiserver picks them: --tls-*-file, else --cert-dir's apiserver.crt/.key."""
    from apiserver.auth import pki
    own_ca = os.path.join(data_dir, "pki", "ca.crt")
    if args.tls_cert_file and args.tls_private_key_file:
        # Its CA is not given; a Go client (kubectl) accepts the certificate itself as its own root.
        cert, key, serving_ca = args.tls_cert_file, args.tls_private_key_file, args.tls_cert_file
    elif args.cert_dir:
        hosts = [] if args.bind_address in ("0.0.0.0", "::", "") else [args.bind_address]
        cert, key, made_here = pki.ensure_serving_in(args.cert_dir, data_dir, hosts)
        serving_ca = own_ca if made_here else cert
    elif args.client_ca_file:
        pki.ensure_credentials(data_dir, [])
        cert = os.path.join(data_dir, "pki", "apiserver.crt")
        key = os.path.join(data_dir, "pki", "apiserver.key")
        serving_ca = own_ca
    else:
        return None
    return pki.TlsFiles(cert, key, serving_ca, args.client_ca_file or own_ca)


def options(argv: Sequence[str] | None = None) -> ServeOptions:
    """The server's options for kube-apiserver's command line; flags meaning nothing here are logged."""
    args, unknown = _parser().parse_known_args(argv)
    # Only now: `--help`, which envtest runs before every start, answers without importing the server.
    from apiserver.auth.keyfiles import ServiceAccountFiles
    from apiserver.controllers.manager import enabled_controllers
    from apiserver.server import EtcdFlags, ServeOptions
    _log_ignored(unknown)
    data_dir = _data_dir(args)
    os.makedirs(data_dir, exist_ok=True)
    servers = [s.strip() for s in args.etcd_servers.split(",") if s.strip()]
    if not servers:
        log.info("no --etcd-servers: serving from the embedded store in %s", data_dir)
    etcd = EtcdFlags(servers, args.etcd_prefix, args.etcd_cafile, args.etcd_certfile, args.etcd_keyfile,
                     args.event_ttl) if servers else None
    accounts = None
    if args.service_account_signing_key_file or args.service_account_key_file or args.service_account_issuer:
        accounts = ServiceAccountFiles(
            args.service_account_signing_key_file, tuple(args.service_account_key_file),
            tuple(args.service_account_issuer))
    limits = Limits(request_timeout_seconds=args.request_timeout, min_request_timeout_seconds=args.min_request_timeout)
    return ServeOptions(data_dir, args.bind_address, args.secure_port, False, 10_000, 600.0, 20_000,
                        limits=limits, controllers=enabled_controllers(args.fastkube_controllers),
                        simulate_nodes=args.fastkube_simulate_nodes, anonymous_auth=args.anonymous_auth,
                        audit_log_path=args.audit_log_path, audit_policy_file=args.audit_policy_file,
                        etcd=etcd, apiserver_identity=_feature_gates(args.feature_gates),
                        tls=_tls(args, data_dir), service_accounts=accounts,
                        allow_privileged=args.allow_privileged,
                        admission_control_config_file=args.admission_control_config_file,
                        disabled_admission_plugins=_disabled_plugins(args.enable_admission_plugins,
                                                                     args.disable_admission_plugins),
                        service_range=_service_range(args.service_cluster_ip_range),
                        authorization_modes=_authorization_modes(args.authorization_mode))


def main(argv: Sequence[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    chosen = options(argv)
    from apiserver.server import serve
    serve(chosen)


if __name__ == "__main__":
    main()
