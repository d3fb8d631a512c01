"""`--workers N`: N server processes on one port, each reading from its own watch cache.

The kernel spreads connections over the processes bound with SO_REUSEPORT, so reads use every core.
The parent only supervises: it restarts a worker that dies and stops them all when it is stopped.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import socket
import time
from multiprocessing.process import BaseProcess
from typing import Any, Callable

log = logging.getLogger("apiserver.workers")

_POLL_SECONDS = 0.2
_MIN_LIFETIME = 5.0  # seconds between starts of one worker


def shared_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def supervise(count: int, run_worker: Callable[[], None]) -> None:
    # Fresh interpreters: a forked copy of this process would share its event loop and gRPC state.
    context = multiprocessing.get_context("spawn")
    stopping = False

    def start() -> BaseProcess:
        proc = context.Process(target=run_worker, daemon=False)
        proc.start()
        return proc

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    procs = [start() for _ in range(count)]
    started = [time.monotonic()] * count
    while not stopping:
        time.sleep(_POLL_SECONDS)
        for i, proc in enumerate(procs):
            if not proc.is_alive() and not stopping:
                log.warning("worker %d (pid %s) exited with %s; starting another", i, proc.pid, proc.exitcode)
                # One that cannot start (etcd gone, port taken) is not restarted in a tight loop.
                time.sleep(max(0.0, _MIN_LIFETIME - (time.monotonic() - started[i])))
                procs[i], started[i] = start(), time.monotonic()
    for proc in procs:
        proc.terminate()
    deadline = time.monotonic() + 10
    for proc in procs:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
