"""Controllers run only while their server holds the leader Lease: they stop when another holder takes it,
and start again, fresh, when the Lease comes back."""

from __future__ import annotations

import datetime
import json
import time
from typing import Any

import pytest
from support import EtcdCluster, ServerProcess, wait_for

# Starts its own etcd: the same in both passes.
pytestmark = pytest.mark.store_once

LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/fastkube-controllers"
REPLICASETS = "/apis/apps/v1/namespaces/default/replicasets"


def micro_time(at: datetime.datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def holder(server: ServerProcess) -> str:
    status, lease = server.json("GET", LEASE)
    return str(lease["spec"].get("holderIdentity", "")) if status == 200 else ""


def give_lease(server: ServerProcess, identity: str, renewed: datetime.datetime) -> None:
    status, body = server.json("PATCH", LEASE, {"spec": {"holderIdentity": identity, "renewTime": micro_time(renewed),
                                                         "leaseDurationSeconds": 3600}},
                               content_type="application/merge-patch+json")
    assert status == 200, body


def replicaset(name: str, replicas: int) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}}}


def pod_count(server: ServerProcess, app: str) -> int:
    status, body = server.json("GET", f"/api/v1/namespaces/default/pods?labelSelector=app={app}")
    assert status == 200, body
    return len(body["items"])


def test_controllers_stop_with_the_lease_and_start_again_with_it(tmp_path: Any) -> None:
    cluster = EtcdCluster(str(tmp_path / "etcd")).start()
    server = ServerProcess(str(tmp_path / "server"), extra_args=[
        "--etcd-servers", cluster.servers, "--leader-elect", "--leader-elect-lease-duration", "3",
        "--controllers=replicaset-controller"])
    try:
        server.start()
        assert server.proc is not None
        wait_for("the server to lead", lambda: holder(server).split("_")[1:2] == [str(server.proc.pid)])
        assert server.json("POST", REPLICASETS, replicaset("before", 2))[0] == 201
        wait_for("the pods of a leader's controllers", lambda: pod_count(server, "before") == 2)

        give_lease(server, "intruder", datetime.datetime.now(datetime.timezone.utc))
        wait_for("the controllers to stop", lambda: "controllers stopped" in server.log(), 15)
        assert holder(server) == "intruder"
        assert server.json("POST", REPLICASETS, replicaset("after", 2))[0] == 201
        status, body = server.json("PATCH", f"{REPLICASETS}/before", {"spec": {"replicas": 3}},
                                   content_type="application/merge-patch+json")
        assert status == 200, body
        # Bounded look: a server without the Lease must not act on either change.
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            assert (pod_count(server, "after"), pod_count(server, "before")) == (0, 2)
            time.sleep(0.2)

        # The intruder stops renewing: its Lease expired long ago, so the server takes it back.
        give_lease(server, "intruder", datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc))
        wait_for("the server to lead again", lambda: holder(server).split("_")[1:2] == [str(server.proc.pid)], 15)
        wait_for("fresh controllers catching up", lambda: (pod_count(server, "after"), pod_count(server, "before"))
                 == (2, 3), 30)
        lease = server.json("GET", LEASE)[1]
        assert lease["spec"]["leaseTransitions"] >= 1, json.dumps(lease)
    finally:
        server.stop()
        cluster.stop()
