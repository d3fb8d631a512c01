"""Starting the real server process and finding the real kubectl, for tests and benchmarks."""

from __future__ import annotations

import atexit
import contextlib
import errno
import json
import os
import random
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
# The flag of a server that keeps its identity Lease, as kube-apiserver does by default.
IDENTITY_LEASE = "--feature-gates=APIServerIdentity=true"


# Ports for servers and etcds the tests start. Not the kernel's ephemeral range (32768 and up here): a
# port found free there can be taken by any outgoing connection (kubectl's, a client's) before the
# server binds it. Each pytest worker walks its own share of this range from a random start, so two
# workers never hand out the same port and one worker reuses a port only after thousands of others.
_PORTS = range(20000, 32000)


def _port_sequence() -> Iterator[int]:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    index = int(worker[2:]) if worker[2:].isdigit() else 0
    share = len(_PORTS) // max(count, 1)
    first = _PORTS.start + index * share
    offset = random.randrange(share)
    while True:
        yield first + offset
        offset = (offset + 1) % share


_next_ports = _port_sequence()


def free_port() -> int:
    """A port nothing listens on now, from this worker's share of the test ports."""
    for _ in range(1000):
        port = next(_next_ports)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free test port in a thousand tries")


def etcd_selected() -> bool:
    """FASTKUBE_STORE=etcd runs every server of the suite on a private etcd instead of the embedded store."""
    return os.environ.get("FASTKUBE_STORE", "embedded") == "etcd"


@dataclass
class EtcdTls:
    """etcd serving TLS with `cert`/`key` and asking clients for a certificate signed by `ca`."""

    ca: str
    cert: str
    key: str


@dataclass
class EtcdMember:
    name: str
    data_dir: str
    client_port: int = field(default_factory=free_port)
    peer_port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    tls: EtcdTls | None = None

    @property
    def client_url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.client_port}"

    @property
    def peer_url(self) -> str:
        return f"http://127.0.0.1:{self.peer_port}"


_STARTED_CLUSTERS: list[EtcdCluster] = []


@atexit.register
def _stop_clusters() -> None:
    # Tests restart servers on the same etcd, so a server's stop() leaves it running; the run's end does not.
    for cluster in _STARTED_CLUSTERS:
        cluster.stop()


class EtcdCluster:
    """Real etcd processes (Debian's etcd-server) on free loopback ports, data in a temporary directory."""

    def __init__(self, directory: str, size: int = 1, tls: EtcdTls | None = None) -> None:
        self.tls = tls
        self.members = [EtcdMember(f"m{i}", os.path.join(directory, f"etcd-m{i}"), tls=tls) for i in range(size)]
        self._initial = ",".join(f"{m.name}={m.peer_url}" for m in self.members)
        _STARTED_CLUSTERS.append(self)

    @property
    def servers(self) -> str:
        return ",".join(m.client_url for m in self.members)

    def start(self, timeout: float = 30.0) -> EtcdCluster:
        binary = shutil.which("etcd")
        if binary is None:
            unavailable("etcd is not installed (apt-get install etcd-server)")
        for member in self.members:
            self.start_member(member, binary)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            # etcd answers /health without a client certificate only when it asks for none
            if all(self.healthy(m) or (self.tls is not None and self._listening(m)) for m in self.members):
                return self
            time.sleep(0.1)
        raise RuntimeError("etcd did not become healthy:\n" + "\n".join(self.log(m) for m in self.members))

    def start_member(self, member: EtcdMember, binary: str = "etcd") -> None:
        os.makedirs(member.data_dir, exist_ok=True)
        log = open(member.data_dir + ".log", "ab")
        member.proc = subprocess.Popen(
            [binary, "--name", member.name, "--data-dir", member.data_dir,
             "--listen-client-urls", member.client_url, "--advertise-client-urls", member.client_url,
             "--listen-peer-urls", member.peer_url, "--initial-advertise-peer-urls", member.peer_url,
             "--initial-cluster", self._initial, "--initial-cluster-state", "new",
             # short elections, so that losing the leader costs a test a second, not ten
             "--heartbeat-interval", "50", "--election-timeout", "500", *self._tls_flags()],
            stdout=log, stderr=subprocess.STDOUT)

    def _tls_flags(self) -> list[str]:
        if self.tls is None:
            return []
        return ["--cert-file", self.tls.cert, "--key-file", self.tls.key, "--trusted-ca-file", self.tls.ca,
                "--client-cert-auth"]

    def healthy(self, member: EtcdMember) -> bool:
        try:
            with urllib.request.urlopen(member.client_url + "/health", timeout=2) as resp:
                return b'"true"' in resp.read()
        except (OSError, urllib.error.URLError):
            return False

    @staticmethod
    def _listening(member: EtcdMember) -> bool:
        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", member.client_port)) == 0

    def log(self, member: EtcdMember) -> str:
        with open(member.data_dir + ".log", errors="replace") as f:
            return f.read()[-4000:]

    def kill(self, member: EtcdMember) -> None:
        if member.proc is not None and member.proc.poll() is None:
            member.proc.send_signal(signal.SIGKILL)
            member.proc.wait()

    def stop(self) -> None:
        for member in self.members:
            if member.proc is not None and member.proc.poll() is None:
                member.proc.terminate()
                try:
                    member.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.kill(member)


@dataclass
class ServerProcess:
    data_dir: str
    port: int = field(default_factory=free_port)
    extra_args: list[str] = field(default_factory=list)
    proc: subprocess.Popen[bytes] | None = None
    log_path: str = ""
    etcd: EtcdCluster | None = None  # the private etcd started for this server under FASTKUBE_STORE=etcd

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
        """The command line; without controllers unless the test asks for them, as the goldens were captured.

        Without the identity Lease either, unless asked (IDENTITY_LEASE): its renewal every 10 s would
        move the store's revision under tests that hold it still around a refused write."""
        chosen = any(arg.startswith("--controllers") for arg in self.extra_args)
        gates = any(arg.startswith("--feature-gates") for arg in self.extra_args)
        return [sys.executable, "-m", "apiserver", "--data-dir", self.data_dir, "--port", str(self.port),
                *([] if chosen else ["--controllers=-*"]),
                *([] if gates else ["--feature-gates=APIServerIdentity=false"]), *self.extra_args]

    def start(self, timeout: float = 30.0) -> None:
        self.log_path = os.path.join(self.data_dir, "server.log")
        os.makedirs(self.data_dir, exist_ok=True)
        log = open(self.log_path, "ab")
        store_args: list[str] = []
        if etcd_selected() and not any(a.startswith("--etcd-servers") for a in self.extra_args):
            if self.etcd is None:  # kept across restarts: the data lives there
                self.etcd = EtcdCluster(os.path.join(self.data_dir, "etcd")).start()
            store_args = ["--etcd-servers", self.etcd.servers]
        self.proc = subprocess.Popen(
            [*self.args, *store_args],
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

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop_all(self) -> None:
        """Stops the server and the private etcd it was given, for a test done with both."""
        self.stop()
        if self.etcd is not None:
            self.etcd.stop()
            self.etcd = None

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
    """Writes one file until its file system stays full; deleting it frees the space again.

    Full once is not enough: a snapshot the server was writing when the space ran out fails and gives
    its space back, so the filler writes on until the disk has refused it several times in a row.
    """
    path = os.path.join(directory, "filler")
    refusals_in_a_row = 0
    with open(path, "wb", buffering=0) as f:
        while refusals_in_a_row < 5:
            try:
                f.write(bytes(4096))
                refusals_in_a_row = 0
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                refusals_in_a_row += 1
                time.sleep(0.2)
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
