"""The original golden set, captured from our server exactly as from kube-apiserver 1.36.2.

Loads golden/fixtures with its apply.sh, captures with capture_goldens.sh and capture_kubectl.sh
(kubectl 1.33, as the reference was captured), and compares with golden/compare.py under the skip
issue 12 allows (`kubectl/get-events.A` holds an event only the reference's build emits). Every
answer must match except the few named in ENVIRONMENT, and each of those may differ only in what
its reason names: anything else in them still has to equal upstream.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any, Callable, Iterator

import pytest
from support import GOLDEN, IDENTITY_LEASE, ServerProcess, kubectl_path, versioned_kubectl

ANSWERS = os.path.join(GOLDEN, "kube-1.36.2")
SKIP = "surface/|ssa/|kubectl/get-events.A"

def _run(script: str, env: dict[str, str], cwd: str) -> None:
    result = subprocess.run(["bash", script], cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, f"{script} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    server = ServerProcess(str(tmp_path_factory.mktemp("original")), extra_args=[IDENTITY_LEASE])
    server.start()
    out = str(tmp_path_factory.mktemp("original-answers"))
    env = {"KUBECONFIG": server.kubeconfig, "KUBECTL": versioned_kubectl("1.33"),
           "KUBECACHEDIR": os.path.join(server.data_dir, "kubecache")}
    try:
        _run("apply.sh", env, os.path.join(GOLDEN, "fixtures"))
        capture = {**env, "BASE": server.url, "TOKEN": server.token, "OUT": out}
        _run("capture_goldens.sh", capture, GOLDEN)
        _run("capture_kubectl.sh", capture, GOLDEN)
        # The reference also ran the plain `kubectl` on PATH (the image's dispatcher) for its version;
        # the capture scripts don't, so it is done here as it was there.
        result = subprocess.run([kubectl_path(), "--kubeconfig", server.kubeconfig, "version"],
                                capture_output=True, text=True, timeout=60)
        with open(os.path.join(out, "kubectl", "dispatcher-kubectl-version.txt"), "w") as f:
            f.write(result.stdout + result.stderr)
        yield server, out
    finally:
        server.stop()


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _build_masked(port: int, text: str) -> Any:
    """A build's identity: the commit and toolchain it was built from (we claim the version, not Go's build)."""
    version = json.loads(text)
    for key in ("gitCommit", "goVersion", "compiler", "buildDate"):
        version[key] = f"<{key}>"
    return version


def _address_masked(port: int, text: str) -> Any:
    return json.loads(text.replace(f"127.0.0.1:{port}", "<server>"))


# klog's line prefix (date, time, pid), and what varies in the URLs of one run: the resourceVersion
# kubectl watches from and the continue tokens that carry it.
KLOG_PREFIX = re.compile(r"^I\d{4} [\d:.]+\s+\d+ ")
RUN_VARYING = re.compile(r"(resourceVersion=|continue=)[^&\"]+")


def _requests_and_answers(port: int, text: str) -> list[str]:
    """What kubectl -v=8 says it asked and was answered: each request line and each response status."""
    lines = []
    for line in text.splitlines():
        if '"Request" verb=' in line or '"Response" status=' in line:
            line = RUN_VARYING.sub(r"\1<varies>", KLOG_PREFIX.sub("", line))
            lines.append(line.replace(f"127.0.0.1:{port}", "<server>"))
    return lines


REFERENCE_PORT = 6443
NOT_CAPTURED = "made by no capture script, and taken on a server without custom resources: test_discovery compares it"
# File -> why it cannot equal upstream byte for byte, and what of it must still equal upstream
# (from the port the answering server listened on and the file's text); None: the capture makes no such file.
ENVIRONMENT: dict[str, tuple[str, Callable[[int, str], Any] | None]] = {
    "discovery/api.json": (
        "serverAddressByClientCIDRs names the address the server listens on: the reference's 6443, a free port here",
        _address_masked),
    "discovery/version.json": (
        "gitCommit, goVersion and compiler describe the binary that answered, not the API it serves",
        _build_masked),
    "discovery/kubectl-api-resources.txt": (NOT_CAPTURED, None),
    "discovery/kubectl-api-resources.wide.txt": (NOT_CAPTURED, None),
    **{f"kubectl-v8/{name}": (
        "klog's timestamps, pids, the port, the order kubectl logs its feature gates and response times; the "
        "headers too, where this server still lacks upstream's Audit-Id and priority-and-fairness uids",
        _requests_and_answers)
       for name in sorted(os.listdir(os.path.join(ANSWERS, "kubectl-v8")))},
}


def _differing(out: str) -> list[str]:
    result = subprocess.run([sys.executable, os.path.join(GOLDEN, "compare.py"), ANSWERS, out, "--skip", SKIP],
                            capture_output=True, text=True, timeout=300)
    lines = result.stdout.strip().splitlines()
    assert lines[-1].startswith("fidelity: ")
    print(lines[-1])
    return sorted(line.split(None, 1)[1] for line in lines[:-1] if line.startswith(("differs ", "missing ")))


def test_every_answer_but_the_environments_equals_upstream(captured: tuple[ServerProcess, str]) -> None:
    _, out = captured
    differing = _differing(out)
    assert [name for name in differing if name not in ENVIRONMENT] == []


@pytest.mark.parametrize("name", sorted(ENVIRONMENT))
def test_an_environment_answer_differs_only_in_what_its_reason_names(captured: tuple[ServerProcess, str],
                                                                      name: str) -> None:
    server, out = captured
    why, essence = ENVIRONMENT[name]
    ours = os.path.join(out, name)
    if essence is None:
        assert not os.path.exists(ours), why
        return
    assert essence(server.port, _read(ours)) == essence(REFERENCE_PORT, _read(os.path.join(ANSWERS, name))), why


def test_answers_name_no_server_software(captured: tuple[ServerProcess, str]) -> None:
    """kube-apiserver sends no `Server` header; the goldens' headers say so."""
    _, out = captured
    for name in ("table/pods.list.default", "metadata/configmaps.get", "errors/table-protobuf.list"):
        reference = _read(os.path.join(ANSWERS, name + ".headers.txt")).lower()
        ours = _read(os.path.join(out, name + ".headers.txt")).lower()
        assert "\nserver:" not in reference
        assert "\nserver:" not in ours, ours
