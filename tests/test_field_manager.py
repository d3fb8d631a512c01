"""Who managedFields name: fieldManager, else the User-Agent's prefix, else nobody (but still tracked)."""

from __future__ import annotations

import http.client
import json

from support import ServerProcess


def post(server: ServerProcess, path: str, body: dict, headers: dict[str, str]) -> dict:
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=server.ssl_context(), timeout=30)
    try:
        conn.request("POST", path, json.dumps(body).encode(), {
            "Authorization": f"Bearer {server.token}", "Content-Type": "application/json", **headers})
        resp = conn.getresponse()
        assert resp.status == 201
        return json.loads(resp.read())
    finally:
        conn.close()


def configmap(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}


def test_the_user_agent_prefix_names_the_manager(shared_server: ServerProcess) -> None:
    created = post(shared_server, "/api/v1/namespaces/default/configmaps", configmap("by-agent"),
                   {"User-Agent": "deployer/2.1 (linux)"})
    entry, = created["metadata"]["managedFields"]
    assert entry["manager"] == "deployer" and entry["operation"] == "Update"
    assert entry["fieldsV1"] == {"f:data": {".": {}, "f:k": {}}}


def test_field_manager_wins_over_the_user_agent(shared_server: ServerProcess) -> None:
    created = post(shared_server, "/api/v1/namespaces/default/configmaps?fieldManager=tool",
                   configmap("by-param"), {"User-Agent": "deployer/2.1"})
    assert [e["manager"] for e in created["metadata"]["managedFields"]] == ["tool"]


def test_a_write_with_no_name_at_all_is_still_tracked(shared_server: ServerProcess) -> None:
    created = post(shared_server, "/api/v1/namespaces/default/configmaps", configmap("anonymous-manager"), {})
    entry, = created["metadata"]["managedFields"]
    assert "manager" not in entry
    assert entry["operation"] == "Update" and entry["fieldsType"] == "FieldsV1"
