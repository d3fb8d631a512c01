"""Starting the real server process and finding the real kubectl, for tests and benchmarks."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, NoReturn

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# shared/ lies beside the checkout (CI's clone, the main work tree, or a sibling git worktree).
SHARED = os.environ.get("FASTKUBE_SHARED") or os.path.join(os.path.dirname(REPO), "shared")
GOLDEN = os.path.join(SHARED, "golden")
FIXTURES = os.path.join(GOLDEN, "fixtures")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ServerProcess:
    data_dir: str
    port: int = field(default_factory=free_port)
    extra_args: list[str] = field(default_factory=list)
    proc: subprocess.Popen[bytes] | None = None
    log_path: str = ""

    @property
    def plain_http(self) -> bool:
        return "--http" in self.extra_args

    @property
    def url(self) -> str:
        return f"{'http' if self.plain_http else 'https'}://127.0.0.1:{self.port}"

    @property
    def kubeconfig(self) -> str:
        return os.path.join(self.data_dir, "kubeconfig")

    @property
    def token(self) -> str:
        with open(os.path.join(self.data_dir, "pki", "admin.token")) as f:
            return f.read().strip()

    @property
    def ca(self) -> str:
        return os.path.join(self.data_dir, "pki", "ca.crt")

    @property
    def args(self) -> list[str]:
        """The command line; without controllers unless the test asks for them, as the goldens were captured."""
        chosen = any(arg.startswith("--controllers") for arg in self.extra_args)
        return [sys.executable, "-m", "apiserver", "--data-dir", self.data_dir, "--port", str(self.port),
                *([] if chosen else ["--controllers=-*"]), *self.extra_args]

    def start(self, timeout: float = 30.0) -> None:
        self.log_path = os.path.join(self.data_dir, "server.log")
        os.makedirs(self.data_dir, exist_ok=True)
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            self.args,
            cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log()}")
            try:
                if self.request("GET", "/readyz", auth=False)[0] == 200 and self._namespaces_ready():
                    return
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.05)
        raise RuntimeError(f"server did not become ready:\n{self.log()}")

    def _namespaces_ready(self) -> bool:
        status, _ = self.request("GET", "/api/v1/namespaces/default")
        return status == 200

    def log(self) -> str:
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def ssl_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.ca)

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
                auth: bool = True, content_type: str = "application/json") -> tuple[int, bytes]:
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", content_type)
        if auth:
            req.add_header("Authorization", f"Bearer {self.token}")
        for key, value in (headers or {}).items():
            req.add_header(key, value)
        try:
            context = None if self.plain_http else self.ssl_context()
            with urllib.request.urlopen(req, context=context, timeout=30) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as err:
            return err.code, err.read()

    def json(self, method: str, path: str, body: Any = None, **kw: Any) -> tuple[int, Any]:
        status, raw = self.request(method, path, body, **kw)
        return status, json.loads(raw) if raw else None


def wait_for(what: str, probe: Callable[[], Any], seconds: float = 60.0) -> Any:
    """The probe's first truthy answer, polled for a bounded time; a failure naming `what` after that."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def unavailable(what: str) -> NoReturn:
    """A tool a test needs is missing: a failure in CI, which must prove it, a skip elsewhere."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what}; CI must have it")
    pytest.skip(what)


def kubectl_path() -> str:
    found = shutil.which("kubectl")
    if found is None:
        unavailable("kubectl is not on PATH")
    return found


def versioned_kubectl(minor: str) -> str:
    """The kubectl.<minor> binary beside the real kubectl (e.g. "1.27")."""
    binary = kubectl_versions().get(minor)
    if binary is None:
        unavailable(f"kubectl.{minor} does not lie beside kubectl")
    return binary


def kubectl_versions() -> dict[str, str]:
    """Every kubectl.1.NN lying beside the real kubectl binary, by minor version."""
    found = shutil.which("kubectl")
    if found is None:
        return {}
    directory = os.path.dirname(os.path.realpath(found))
    out = {}
    for name in sorted(os.listdir(directory)):
        if name.startswith("kubectl.1."):
            out[name.removeprefix("kubectl.")] = os.path.join(directory, name)
    return out


def run_kubectl(server: ServerProcess, *args: str, binary: str | None = None, check: bool = True,
                stdin: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    cmd = [binary or kubectl_path(), "--kubeconfig", server.kubeconfig, *args]
    result = subprocess.run(cmd, capture_output=True, text=True, input=stdin, timeout=timeout,
                            env={**os.environ, "KUBECACHEDIR": os.path.join(server.data_dir, "kubecache")})
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


@contextlib.contextmanager
def small_tmpfs(path: str, size: str) -> Iterator[str]:
    """A tmpfs of `size` mounted at `path`, to fill up in full-disk tests; skips where mounting is refused."""
    os.makedirs(path, exist_ok=True)
    if shutil.which("mount") is None:
        unavailable("no mount command: cannot make a small file system to fill up")
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path],
                            check=False, capture_output=True, text=True)
    if result.returncode != 0:
        unavailable(f"mounting a tmpfs is not permitted here ({result.stderr.strip()}); it needs root or "
                    f"CAP_SYS_ADMIN")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", path], check=True)


def fill_up(directory: str) -> str:
    """Writes one file until its file system is full; deleting it frees the space again."""
    path = os.path.join(directory, "filler")
    with open(path, "wb", buffering=0) as f:
        try:
            while True:
                f.write(bytes(4096))
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
    return path


def frame_offsets(path: str) -> list[int]:
    """Where each frame of a well-formed file starts, and (last) where the file ends."""
    with open(path, "rb") as f:
        data = f.read()
    offsets = [0]
    while offsets[-1] < len(data):
        (length,) = struct.unpack_from("<I", data, offsets[-1])
        offsets.append(offsets[-1] + 8 + length)
    assert offsets[-1] == len(data)
    return offsets
