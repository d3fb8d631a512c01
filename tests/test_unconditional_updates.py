"""resourceVersion "0" (or none) in an update means no precondition where the kind's strategy allows
unconditional updates (a node: kubectl replace of a manifest with resourceVersion "0"); where it does not
(a lease, a custom resource) upstream's store refuses it."""

from __future__ import annotations

import json

from support import ServerProcess, run_kubectl


def test_a_node_replaced_with_resource_version_zero(shared_server: ServerProcess) -> None:
    node = {"kind": "Node", "apiVersion": "v1", "metadata": {"name": "node-v1-test"}}
    run_kubectl(shared_server, "create", "-f", "-", stdin=json.dumps(node))
    node["metadata"].update(annotations={"a": "b"}, resourceVersion="0")
    out = run_kubectl(shared_server, "replace", "--dry-run=server", "-f", "-", stdin=json.dumps(node))
    assert "node/node-v1-test replaced (server dry run)" in out.stdout
    run_kubectl(shared_server, "replace", "-f", "-", stdin=json.dumps(node))
    assert shared_server.json("GET", "/api/v1/nodes/node-v1-test")[1]["metadata"]["annotations"] == {"a": "b"}


def test_a_lease_needs_its_resource_version(shared_server: ServerProcess) -> None:
    lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "held"}, "spec": {}}
    run_kubectl(shared_server, "create", "-f", "-", stdin=json.dumps(lease))
    lease["metadata"]["resourceVersion"] = "0"
    status, refused = shared_server.json("PUT", "/apis/coordination.k8s.io/v1/namespaces/default/leases/held", lease)
    assert status == 422
    assert refused["message"] == ('leases.coordination.k8s.io "held" is invalid: metadata.resourceVersion: '
                                  "Invalid value: 0: must be specified for an update")


def test_a_lease_update_naming_no_resource_version(shared_server: ServerProcess) -> None:
    """Upstream's store reads an unset resourceVersion as 0: refused alike where the kind needs one."""
    lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "held-unset"}, "spec": {}}
    run_kubectl(shared_server, "create", "-f", "-", stdin=json.dumps(lease))
    status, refused = shared_server.json("PUT", "/apis/coordination.k8s.io/v1/namespaces/default/leases/held-unset",
                                         lease)
    assert status == 422
    assert refused["message"] == ('leases.coordination.k8s.io "held-unset" is invalid: metadata.resourceVersion: '
                                  "Invalid value: 0: must be specified for an update")
