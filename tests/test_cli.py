"""`python -m apiserver`: what it prints, what it refuses, and plain HTTP on loopback."""

from __future__ import annotations

import subprocess
import sys
import urllib.request

from support import REPO, ServerProcess, run_kubectl


def test_plain_http_is_refused_off_loopback(tmp_path: object) -> None:
    result = subprocess.run([sys.executable, "-m", "apiserver", "--data-dir", str(tmp_path), "--http",
                             "--host", "0.0.0.0"], cwd=REPO, capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "refusing to serve plain HTTP on 0.0.0.0" in result.stderr


def test_start_prints_the_kubeconfig_path(server: ServerProcess) -> None:
    assert f"kubeconfig: {server.kubeconfig}" in server.log()


def test_credentials_survive_a_restart(server: ServerProcess) -> None:
    token = server.token
    with open(server.kubeconfig) as f:
        before = f.read()
    server.stop()
    server.start()
    assert server.token == token
    with open(server.kubeconfig) as f:
        assert f.read() == before
    run_kubectl(server, "get", "namespaces")


def test_plain_http_on_loopback(tmp_path: object) -> None:
    proc = ServerProcess(str(tmp_path), extra_args=["--http"])
    try:
        proc.start()
        with urllib.request.urlopen(f"http://127.0.0.1:{proc.port}/readyz", timeout=10) as resp:
            assert resp.read() == b"ok"
        names = run_kubectl(proc, "get", "namespaces", "-o", "name").stdout.split()
        assert names == ["namespace/default", "namespace/kube-node-lease", "namespace/kube-public",
                         "namespace/kube-system"]
    finally:
        proc.stop()
