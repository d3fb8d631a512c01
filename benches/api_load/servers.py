"""The processes a load run talks to: a server under test (ours started here, or any other by URL) and the floors.

Our server runs as its own process with its store on disk, as in production. The floor apps
(shared/bench/floor_app.py for reads, write_floor_app.py here for writes) run on the same uvicorn, loop,
HTTP parser and certificate, and serve precomputed bytes: what any answer of that size costs before the
server does any work of its own.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

import yaml

from benches.api_load.scenarios import SIMULATED_NODES

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("FASTKUBE_SHARED") or os.path.join(os.path.dirname(REPO), "shared")
FLOOR_APP = os.path.join(SHARED, "bench", "floor_app.py")
WRITE_FLOOR_APP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "write_floor_app.py")


@dataclass
class Target:
    """Where to send requests: a base URL and a bearer token; `pid` when its memory can be sampled here."""

    url: str
    token: str
    ca_file: str | None
    pid: int | None = None

    def ssl_context(self) -> ssl.SSLContext:
        if self.ca_file is None:
            return _unverified()
        return ssl.create_default_context(cafile=self.ca_file)


def _unverified() -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_ready(url: str, ctx: ssl.SSLContext, proc: subprocess.Popen[bytes], log_path: str,
                timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            with open(log_path, errors="replace") as f:
                raise RuntimeError(f"{url} exited with {proc.returncode}:\n{f.read()}")
        try:
            with urllib.request.urlopen(url, context=ctx, timeout=5) as resp:
                if resp.status == 200:
                    return
        except (OSError, urllib.error.URLError):
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not become ready within {timeout}s (log: {log_path})")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class LocalServer:
    """`python -m apiserver` from `repo` (this checkout, or another one being compared with it)."""

    repo: str
    data_dir: str
    port: int
    http_server: str = "uvicorn"  # or "granian": the same app behind granian (see granian_app.py)
    proc: subprocess.Popen[bytes] | None = None
    extra_args: tuple[str, ...] = ()  # e.g. --etcd-servers URL --workers N
    event_loop: str | None = None  # --event-loop; None: the checkout's default (older ones lack the flag)

    @property
    def pki(self) -> str:
        return os.path.join(self.data_dir, "pki")

    def start(self) -> Target:
        os.makedirs(self.data_dir, exist_ok=True)
        log_path = os.path.join(self.data_dir, "server.log")
        with open(log_path, "ab") as log:
            self.proc = subprocess.Popen(self._command(), cwd=self.repo, stdout=log, stderr=subprocess.STDOUT,
                                         env={**os.environ, "FASTKUBE_SERVE_OPTIONS": json.dumps(self._options())})
        url = f"https://127.0.0.1:{self.port}"
        # Credentials are written while the server starts: poll without them, read them once it is ready.
        _wait_ready(url + "/readyz", _unverified(), self.proc, log_path, 60)
        with open(os.path.join(self.pki, "admin.token")) as f:
            token = f.read().strip()
        return Target(url, token, os.path.join(self.pki, "ca.crt"), self.proc.pid)

    def _node_args(self) -> list[str]:
        """Simulated nodes for `schedule`, where the checkout has them; its controllers run by default,
        as the seed measured every write with its controllers on."""
        if os.path.isdir(os.path.join(self.repo, "apiserver", "controllers")):
            return ["--simulate-nodes", str(SIMULATED_NODES)]
        return []

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)

    def _options(self) -> dict[str, object]:
        """ServeOptions' plain fields for granian_app: the defaults `python -m apiserver` runs with."""
        from apiserver.controllers.manager import enabled_controllers  # this checkout's, as granian_app is
        return {"data_dir": self.data_dir, "host": "127.0.0.1", "port": self.port, "plain_http": False,
                "history_size": 10_000, "history_seconds": 600.0, "snapshot_every": 20_000,
                "simulate_nodes": SIMULATED_NODES if self._node_args() else 0,
                "controllers": enabled_controllers("*") if self._node_args() else []}

    def _command(self) -> list[str]:
        if self.http_server == "uvicorn":
            return [sys.executable, "-m", "apiserver", "--data-dir", self.data_dir, "--port", str(self.port),
                    *self._node_args(), *self.extra_args,
                    *(["--event-loop", self.event_loop] if self.event_loop else [])]
        if self.extra_args:
            raise SystemExit("granian is measured on the embedded store only, with the server's defaults")
        # granian loads the certificate before the app exists: make the credentials first.
        subprocess.run([sys.executable, "-c", "import sys; from apiserver.auth import pki; "
                        "pki.ensure_credentials(sys.argv[1], [])", self.data_dir], cwd=self.repo, check=True)
        return [sys.executable, "-m", "granian", "--interface", "asgi", "--factory", "--loop", self.event_loop or "uvloop",
                "--host", "127.0.0.1", "--port", str(self.port), "--workers", "1", "--log-level", "warning",
                "--no-access-log",
                "--ssl-certificate", os.path.join(self.pki, "apiserver.crt"),
                "--ssl-keyfile", os.path.join(self.pki, "apiserver.key"), "benches.api_load.granian_app:make_app"]


def from_kubeconfig(path: str) -> Target:
    """The current context's server and bearer token (wrk can send a header, not a client certificate)."""
    with open(path) as f:
        config = yaml.safe_load(f)
    context = next(c["context"] for c in config["contexts"] if c["name"] == config["current-context"])
    cluster = next(c["cluster"] for c in config["clusters"] if c["name"] == context["cluster"])
    user = next(u["user"] for u in config["users"] if u["name"] == context["user"])
    if "token" not in user:
        raise SystemExit(f"{path}: the current user has no bearer token; wrk can only send a token")
    ca = cluster.get("certificate-authority")
    if ca is not None and not os.path.isabs(ca):
        ca = os.path.join(os.path.dirname(os.path.abspath(path)), ca)
    return Target(cluster["server"].rstrip("/"), user["token"], ca)


@dataclass
class Floor:
    """A floor app (`app`: floor_app.py or write_floor_app.py) under uvicorn with our server's flags,
    answering every NAME.body in `body_dir` at /NAME."""

    body_dir: str
    cert: str
    key: str
    port: int
    event_loop: str = "uvloop"  # uvicorn's --loop: the server's, for the ratio to mean anything
    app: str = FLOOR_APP
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        log_path = os.path.join(self.body_dir, "floor.log")
        with open(log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "uvicorn", f"{os.path.basename(self.app)[:-len('.py')]}:app",
                 "--app-dir", os.path.dirname(self.app),
                 "--host", "127.0.0.1", "--port", str(self.port), "--loop", self.event_loop, "--http", "httptools",
                 "--ssl-certfile", self.cert, "--ssl-keyfile", self.key,
                 "--log-level", "warning", "--no-access-log", "--timeout-keep-alive", "60"],
                env={**os.environ, "BODY_DIR": self.body_dir}, stdout=log, stderr=subprocess.STDOUT)
        url = f"https://127.0.0.1:{self.port}"
        names = [n for n in os.listdir(self.body_dir) if n.endswith(".body")]
        _wait_ready(f"{url}/{names[0][:-len('.body')]}", _unverified(), self.proc, log_path, 30)
        return url

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)


def floor_credentials(directory: str) -> tuple[str, str]:
    """A certificate of the kind our server makes, for a floor beside a server we did not start."""
    from apiserver.auth import pki  # the server's own certificate code: the same key type and chain

    creds = pki.ensure_credentials(directory, [])
    return creds.serving_cert, creds.serving_key
