"""The API server's identity Lease in kube-system, as kube-apiserver 1.36 creates and renews it."""

from __future__ import annotations

import os
import re
import socket
from typing import Any

import pytest
from support import GOLDEN, IDENTITY_LEASE, ServerProcess, run_kubectl, wait_for

from apiserver.controllers.identitylease import server_id

LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"


def _lease(server: ServerProcess) -> dict[str, Any] | None:
    status, lease = server.json("GET", f"{LEASES}/{server_id(socket.gethostname())}")
    return lease if status == 200 else None


def _renewed_since(server: ServerProcess, before: dict[str, Any], seconds: float) -> dict[str, Any]:
    def probe() -> dict[str, Any] | None:
        now = _lease(server)
        return now if now is not None and now["spec"]["renewTime"] != before["spec"]["renewTime"] else None
    return wait_for("a renewal of the identity lease", probe, seconds)  # type: ignore[no-any-return]


def test_the_name_is_upstreams_hash_of_the_host() -> None:
    # The reference kube-apiserver ran on a host named "vm"; its Lease is in the goldens' kubectl output.
    path = os.path.join(GOLDEN, "kube-1.36.2", "surface", "kubectl", "get-leases.coordination.k8s.io.A.txt")
    with open(path) as f:
        [name] = re.findall(r"^kube-system\s+(apiserver-\S+)", f.read(), re.M)
    assert server_id("vm") == name
    assert server_id("vm2") != name


@pytest.fixture
def identified(tmp_path: Any) -> Any:
    server = ServerProcess(str(tmp_path), extra_args=[IDENTITY_LEASE])
    server.start()
    try:
        yield server
    finally:
        server.stop_all()


def test_the_server_holds_a_lease_named_after_its_host_and_renews_it(identified: ServerProcess) -> None:
    lease = wait_for("the identity lease", lambda: _lease(identified), seconds=10)
    name = server_id(socket.gethostname())
    assert lease["metadata"]["labels"] == {"apiserver.kubernetes.io/identity": "kube-apiserver",
                                           "kubernetes.io/hostname": socket.gethostname()}
    spec = lease["spec"]
    assert re.fullmatch(name + r"_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", spec["holderIdentity"])
    assert spec["leaseDurationSeconds"] == 3600
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", spec["renewTime"])
    [entry] = lease["metadata"]["managedFields"]
    assert (entry["manager"], entry["operation"]) == ("kube-apiserver-go1264", "Update")
    # Renewed every 10 s: the time moves, the holder stays.
    renewed = _renewed_since(identified, lease, seconds=25)
    assert renewed["spec"]["holderIdentity"] == spec["holderIdentity"]
    listed = run_kubectl(identified, "-n", "kube-system", "get", "leases").stdout.splitlines()
    assert re.split(r"\s+", listed[1])[:2] == [name, spec["holderIdentity"]]


def test_a_restarted_server_renews_the_lease_it_finds(identified: ServerProcess) -> None:
    first = wait_for("the identity lease", lambda: _lease(identified), seconds=10)
    identified.stop()
    identified.start()
    # A start renews at once, not 10 s later.
    again = _renewed_since(identified, first, seconds=8)
    # Upstream's lease controller renews a copy of the Lease it finds: same object, same holder.
    assert again["metadata"]["uid"] == first["metadata"]["uid"]
    assert again["spec"]["holderIdentity"] == first["spec"]["holderIdentity"]


def test_without_the_feature_gate_there_is_no_lease(server: ServerProcess) -> None:
    status, listing = server.json("GET", LEASES)
    assert status == 200
    assert [item["metadata"]["name"] for item in listing["items"]] == []
