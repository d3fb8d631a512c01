"""`python -m apiserver`: serve the API on the embedded store; `... token add`: hand out a token."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from apiserver.auth import access, pki, tokens
from apiserver.http.limits import Limits
from apiserver.server import ServeOptions, serve
from apiserver.storage.wal import CorruptLog


def _add_token(data_dir: str, name: str, role: str) -> None:
    path = tokens.token_file_path(data_dir)
    kubeconfig = os.path.join(data_dir, "kubeconfig")
    if not os.path.exists(path) or not os.path.exists(kubeconfig):
        raise SystemExit(f"no server has started with --data-dir {data_dir} yet: "
                         "start it once, then add tokens")
    try:
        token = tokens.add_token(path, name, access.ROLE_GROUPS[role])
    except tokens.TokenFileError as exc:
        raise SystemExit(f"not adding to a token file that does not parse: {exc}") from None
    sys.stdout.write(pki.kubeconfig_beside(kubeconfig, name, token))


def _flag(value: str) -> bool:
    """A boolean flag written as kube-apiserver's are: --console=false."""
    if value.lower() in ("true", "1"):
        return True
    if value.lower() in ("false", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, not {value!r}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m apiserver",
                                     description="A Kubernetes-compatible API server on an embedded store.")
    parser.add_argument("--data-dir", default="./data", help="where the store, credentials and kubeconfig live")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=6443)
    parser.add_argument("--http", action="store_true", help="serve plain HTTP (loopback addresses only)")
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
    commands = parser.add_subparsers(dest="command", metavar="{token}")
    token = commands.add_parser("token", help="manage bearer tokens")
    token_actions = token.add_subparsers(dest="action", required=True)
    add = token_actions.add_parser("add", help="add a token to DATA_DIR/pki/tokens.csv; print its kubeconfig")
    add.add_argument("name", help="the user name the token authenticates as")
    add.add_argument("--role", choices=sorted(access.ROLE_GROUPS), required=True)
    add.add_argument("--data-dir", default=argparse.SUPPRESS, help="as for serving (default ./data)")
    args = parser.parse_args(argv)
    if args.command == "token":
        _add_token(args.data_dir, args.name, args.role)
        return
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    limits = Limits(args.max_body_bytes, args.max_object_bytes, args.max_watches_per_user, args.max_watches,
                    args.request_timeout)
    try:
        serve(ServeOptions(args.data_dir, args.host, args.port, args.http, args.history_size,
                           args.history_seconds, args.snapshot_every, args.watch_queue_limit,
                           args.watch_bookmark_seconds, limits, args.console))
    except CorruptLog as exc:
        # An operator's problem, not a bug: the message alone (file and offset) says what to look at.
        raise SystemExit(f"cannot start: {exc}") from None


if __name__ == "__main__":
    main()
