"""SIGKILL in the middle of a rollout: after a restart the controllers finish it, with no pod too many
and no ReplicaSet left without its Deployment."""

from __future__ import annotations

import time
from typing import Any

from support import ServerProcess, run_kubectl

REPLICAS = 30


def _items(server: ServerProcess, path: str) -> list[dict[str, Any]]:
    status, body = server.json("GET", path)
    assert status == 200, body
    return body["items"]  # type: ignore[no-any-return]


def test_a_rollout_killed_midway_finishes_after_a_restart(tmp_path: Any) -> None:
    server = ServerProcess(str(tmp_path), extra_args=["--controllers=*", "--simulate-nodes", "3"])
    server.start()
    try:
        run_kubectl(server, "create", "deployment", "web", "--image=nginx:1", f"--replicas={REPLICAS}")
        run_kubectl(server, "rollout", "status", "deployment/web", "--timeout=60s")
        # One pod at a time, so that the rollout takes many steps and the kill lands inside it.
        run_kubectl(server, "patch", "deployment/web", "-p",
                    '{"spec":{"strategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}}}')
        run_kubectl(server, "set", "image", "deployment/web", "nginx=nginx:2")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # kill once the new ReplicaSet has started to take over
            new = [p for p in _items(server, "/api/v1/namespaces/default/pods?labelSelector=app=web")
                   if p["spec"]["containers"][0]["image"] == "nginx:2"]
            if len(new) >= 3:
                break
            time.sleep(0.02)
        server.kill()
        assert 3 <= len(new) < REPLICAS, "the kill should land in the middle of the rollout"
        server.start()
        run_kubectl(server, "rollout", "status", "deployment/web", "--timeout=90s")
        deadline = time.monotonic() + 60
        pods: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            pods = _items(server, "/api/v1/namespaces/default/pods?labelSelector=app=web")
            if len(pods) == REPLICAS and all(p["status"].get("phase") == "Running" for p in pods):
                break
            time.sleep(0.1)
        assert len(pods) == REPLICAS
        assert {p["spec"]["containers"][0]["image"] for p in pods} == {"nginx:2"}
        deployment = server.json("GET", "/apis/apps/v1/namespaces/default/deployments/web")[1]
        replicasets = _items(server, "/apis/apps/v1/namespaces/default/replicasets")
        assert len(replicasets) == 2
        assert all(rs["metadata"]["ownerReferences"][0]["uid"] == deployment["metadata"]["uid"] for rs in replicasets)
        by_uid = {rs["metadata"]["uid"]: rs for rs in replicasets}
        owners = {p["metadata"]["ownerReferences"][0]["uid"] for p in pods}
        assert len(owners) == 1 and by_uid[owners.pop()]["spec"]["replicas"] == REPLICAS
        assert sorted(rs["spec"]["replicas"] for rs in replicasets) == [0, REPLICAS]
        assert len({p["metadata"]["name"] for p in pods}) == REPLICAS
    finally:
        server.stop()
