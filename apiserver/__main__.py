"""`python -m apiserver`: serve the API on the embedded store."""

from __future__ import annotations

import argparse
import logging

from apiserver.server import ServeOptions, serve
from apiserver.storage.wal import CorruptLog


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m apiserver",
                                     description="A Kubernetes-compatible API server on an embedded durable store.")
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
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        serve(ServeOptions(args.data_dir, args.host, args.port, args.http, args.history_size,
                           args.history_seconds, args.snapshot_every, args.watch_queue_limit,
                           args.watch_bookmark_seconds))
    except CorruptLog as exc:
        # An operator's problem, not a bug: the message alone (file and offset) says what to look at.
        raise SystemExit(f"cannot start: {exc}") from None


if __name__ == "__main__":
    main()
