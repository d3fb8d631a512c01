"""Every built-in resource beyond the original fixtures, as kube-apiserver 1.36 answers for it.

Loads golden/fixtures then golden/surface/fixtures with their own apply.sh scripts, captures with
surface/capture.sh, and compares with golden/compare.py, as golden/surface/README.md says. The stored
objects (metadata answers, and the objects Table lists embed with includeObject=Object) must equal
upstream's; the whole set, Table cells included, is scored and must not fall below what it reached.
"""

from __future__ import annotations

import glob
import json
import os
import socket
import subprocess
import sys
from typing import Any, Iterator

import pytest
from support import GOLDEN, IDENTITY_LEASE, ServerProcess, kubectl_path

from apiserver.controllers.identitylease import server_id

SURFACE = os.path.join(GOLDEN, "surface")
ANSWERS = os.path.join(GOLDEN, "kube-1.36.2", "surface")
# The README's own exclusion: probes finish in any order. And `kubectl version` prints the client's
# own build, which is this machine's kubectl, not the server. (The README also skips the Lease lists,
# whose apiserver Lease is named after the host: here the name is put back to the reference host's.)
SKIP = ("componentstatuses", "kubectl-version")
REFERENCE_HOST = "vm"  # where the answers were captured: its identity Lease is apiserver-wlv32tlttr4jl3gtroqexyxapa

sys.path.insert(0, GOLDEN)
import compare  # noqa: E402  (golden/compare.py: the normalization every golden comparison shares)


def _run(script: str, env: dict[str, str], cwd: str) -> None:
    result = subprocess.run(["bash", script], cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, f"{script} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = ServerProcess(str(tmp_path_factory.mktemp("surface")), extra_args=[IDENTITY_LEASE])
    server.start()
    out = str(tmp_path_factory.mktemp("surface-answers"))
    env = {"KUBECONFIG": server.kubeconfig, "KUBECTL": kubectl_path(),
           "KUBECACHEDIR": os.path.join(server.data_dir, "kubecache")}
    try:
        _run("apply.sh", env, os.path.join(GOLDEN, "fixtures"))
        _run("apply.sh", env, SURFACE)
        _run("capture.sh", {**env, "BASE": server.url, "TOKEN": server.token, "NS": "surface", "OUT": out}, SURFACE)
        _as_on_the_reference_host(out)
        yield out
    finally:
        server.stop()


def _as_on_the_reference_host(out: str) -> None:
    """Our identity Lease under the name the reference host's has: the name is all the host changes."""
    ours, theirs = server_id(socket.gethostname()), server_id(REFERENCE_HOST)
    renamed = 0
    for path in glob.glob(os.path.join(out, "kubectl", "get-leases*.A*")):  # the lists of every namespace
        with open(path) as f:
            text = f.read()
        renamed += ours in text
        with open(path, "w") as f:
            f.write(text.replace(ours, theirs))
    assert renamed == 2, "the identity Lease is missing from the lists of every namespace"


def _stored_objects(path: str) -> Any:
    """What a captured answer says of the stored objects: the metadata answer, or a Table's embedded objects."""
    with open(path) as f:
        answer = compare.norm(json.load(f))
    if os.path.basename(os.path.dirname(path)) == "table":
        return [row.get("object") for row in answer.get("rows") or ()]
    return answer


def _object_answers() -> list[str]:
    found = sorted(glob.glob(os.path.join(ANSWERS, "metadata", "*.json"))
                   + glob.glob(os.path.join(ANSWERS, "table", "*.includeObject-Object.json")))
    return [os.path.relpath(p, ANSWERS) for p in found
            if not any(s in p for s in SKIP) and not p.endswith(".headers.txt")]


@pytest.mark.parametrize("answer", _object_answers())
def test_stored_objects_equal_upstream(captured: str, answer: str) -> None:
    assert _stored_objects(os.path.join(captured, answer)) == _stored_objects(os.path.join(ANSWERS, answer))


def test_fidelity_over_every_answer(captured: str, record_property: Any) -> None:
    result = subprocess.run([sys.executable, os.path.join(GOLDEN, "compare.py"), ANSWERS, captured,
                             "--skip", "|".join(SKIP)], capture_output=True, text=True, timeout=300)
    score = result.stdout.strip().splitlines()[-1]
    assert score.startswith("fidelity: ")
    equal, total = (int(n) for n in score.removeprefix("fidelity: ").split("/"))
    record_property("fidelity", score)
    print(score)
    assert total == 368
    assert equal == total, result.stdout
