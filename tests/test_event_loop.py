"""`--event-loop`: the server runs on uvloop by default, or on asyncio's own loop when asked."""

from __future__ import annotations

import subprocess
import sys

from kubernetes import client, config, watch
from support import REPO, ServerProcess, run_kubectl


def _uvloop_loaded(server: ServerProcess) -> bool:
    """Whether uvloop's compiled loop is mapped into the server process: uvicorn imports it only to use it."""
    assert server.proc is not None
    with open(f"/proc/{server.proc.pid}/maps") as f:
        return "uvloop" in f.read()


def test_asyncio_loop_serves_kubectl_and_a_watch(tmp_path: object) -> None:
    server = ServerProcess(str(tmp_path), extra_args=["--event-loop", "asyncio"])
    try:
        server.start()
        assert not _uvloop_loaded(server)
        names = run_kubectl(server, "get", "ns", "-o", "name").stdout.split()
        assert names == ["namespace/default", "namespace/kube-node-lease", "namespace/kube-public",
                         "namespace/kube-system"]

        core = client.CoreV1Api(config.new_client_from_config(config_file=server.kubeconfig))
        start = core.list_namespaced_config_map("default").metadata.resource_version
        core.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="a")))
        core.delete_namespaced_config_map("a", "default")
        seen = [(e["type"], e["object"].metadata.name) for e in watch.Watch().stream(
            core.list_namespaced_config_map, "default", resource_version=start, timeout_seconds=1)]
        assert seen == [("ADDED", "a"), ("DELETED", "a")]
    finally:
        server.stop()


def test_uvloop_is_the_default(server: ServerProcess) -> None:
    assert _uvloop_loaded(server)


def test_an_unknown_event_loop_is_refused(tmp_path: object) -> None:
    result = subprocess.run([sys.executable, "-m", "apiserver", "--data-dir", str(tmp_path), "--event-loop", "trio"],
                            cwd=REPO, capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "--event-loop: invalid choice: 'trio' (choose from" in result.stderr
