"""A server process for a test session: started on a data directory and a free loopback port, then stopped.

The process runs the `apiserver` package this module belongs to (its parent directory leads
PYTHONPATH), so a plugin imported from a checkout starts that checkout's server, not another install's.
Ready means what a client needs: `/readyz` answers 200 and the bootstrap has made `default`.
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
from dataclasses import dataclass, field
from typing import Any

import apiserver

# Where the `apiserver` package this module was imported from lives, for the server process to import.
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(apiserver.__file__)))
# A port found free can be taken before the server binds it; so many starts are tried before giving up.
_BIND_ATTEMPTS = 3


class StartFailed(RuntimeError):
    """The server exited or did not become ready; the message ends with its log."""


@dataclass(frozen=True)
class ServerOptions:
    """What the server is started with: the flags a test project is most likely to choose, and any others."""

    controllers: str = "*"  # kube-controller-manager's syntax, as `--controllers`
    simulate_nodes: int = 0
    extra_args: tuple[str, ...] = ()

    def args(self) -> list[str]:
        return [f"--controllers={self.controllers}", f"--simulate-nodes={self.simulate_nodes}",
                *self.extra_args]


def free_port() -> int:
    """A loopback port nothing listens on now (the kernel's choice)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class ServerProcess:
    data_dir: str
    options: ServerOptions = field(default_factory=ServerOptions)
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def kubeconfig(self) -> str:
        return os.path.join(self.data_dir, "kubeconfig")

    @property
    def log_path(self) -> str:
        return os.path.join(self.data_dir, "server.log")

    @property
    def ca(self) -> str:
        return os.path.join(self.data_dir, "pki", "ca.crt")

    @property
    def token(self) -> str:
        with open(os.path.join(self.data_dir, "pki", "admin.token")) as f:
            return f.read().strip()

    def start(self, timeout: float = 60.0) -> ServerProcess:
        os.makedirs(self.data_dir, exist_ok=True)
        failures: list[StartFailed] = []
        while len(failures) < _BIND_ATTEMPTS:
            self.port = free_port()
            try:
                self._start_once(timeout)
                return self
            except StartFailed as failure:
                if "already in use" not in str(failure):
                    raise
                failures.append(failure)
        raise failures[-1]

    def _start_once(self, timeout: float) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [_PACKAGE_ROOT,
                                                                            os.environ.get("PYTHONPATH")]))}
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "apiserver", "--data-dir", self.data_dir, "--port", str(self.port),
                 *self.options.args()],
                cwd=self.data_dir, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise StartFailed(f"the server exited with {self.proc.returncode}:\n{self.log_tail()}")
            if self._ready():
                return
            time.sleep(0.05)
        self.stop()
        raise StartFailed(f"the server was not ready after {timeout:g} s:\n{self.log_tail()}")

    def _ready(self) -> bool:
        try:
            return (self.request("GET", "/readyz", auth=False)[0] == 200
                    and self.request("GET", "/api/v1/namespaces/default")[0] == 200)
        except (OSError, urllib.error.URLError):
            return False

    def log_tail(self, size: int = 4000) -> str:
        with open(self.log_path, errors="replace") as f:
            return f.read()[-size:]

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def request(self, method: str, path: str, body: Any = None, auth: bool = True) -> tuple[int, Any]:
        """One request as the admin; the status and the decoded JSON answer (None when empty or not JSON)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if auth:
            req.add_header("Authorization", f"Bearer {self.token}")
        context = ssl.create_default_context(cafile=self.ca)
        try:
            with urllib.request.urlopen(req, context=context, timeout=30) as resp:
                return resp.status, _decode(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, _decode(err.read())


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None
