"""Server-side apply under generated input, against a real server.

Random sequences of applies (plain and forced) and merge-patch updates by several managers keep the
issue's invariants after every step: each field of the object is owned by some manager (every write
here names one), no manager owns a field that is absent, and re-applying what was just applied
changes nothing (same resourceVersion). Generated bad apply requests are answered with a 4xx Status
and write nothing.
"""

from __future__ import annotations

import itertools
import json
import os
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from keepalive import Connection
from support import ServerProcess

EXAMPLES = int(os.environ.get("APPLY_EXAMPLES", "40"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
NS = "props"
CM = f"/api/v1/namespaces/{NS}/configmaps"
APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
_names = itertools.count()


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Connection]:
    server = ServerProcess(str(tmp_path_factory.mktemp("apply-props")))
    server.start()
    connection = Connection(server)
    try:
        assert connection.json("POST", "/api/v1/namespaces", {"metadata": {"name": NS}})[0] == 201
        yield connection
    finally:
        connection.close()
        server.stop()
        assert "Traceback" not in server.log(), server.log()


# -- what an object holds and what its managers own -------------------------------------------------

def _leaves(obj: dict[str, Any]) -> set[tuple[str, ...]]:
    """The fields the generated writes touch: data keys and labels."""
    found = {("f:data", "f:" + k) for k in obj.get("data") or {}}
    found |= {("f:metadata", "f:labels", "f:" + k) for k in (obj["metadata"].get("labels") or {})}
    return found


def _paths(fields: dict[str, Any], prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    out = set()
    for key, child in fields.items():
        if key == ".":
            out.add(prefix)
        elif child:
            out |= _paths(child, prefix + (key,))
        else:
            out.add(prefix + (key,))
    return out


def _exists(obj: Any, path: tuple[str, ...]) -> bool:
    """Whether the object holds the field a FieldsV1 path names (keyed list items by their keys)."""
    for element in path:
        kind, text = element[:2], element[2:]
        if kind == "f:":
            if not isinstance(obj, dict) or text not in obj:
                return False
            obj = obj[text]
        elif kind == "k:":
            key = json.loads(text)
            found = [item for item in obj or () if isinstance(item, dict)
                     and all(item.get(k, "TCP" if k == "protocol" else None) == v for k, v in key.items())]
            if not found:
                return False
            obj = found[0]
        else:
            if json.loads(text) not in (obj or ()):
                return False
            obj = json.loads(text)
    return True


def check_invariants(obj: dict[str, Any], leaves: Any = None,
                     untracked: frozenset[tuple[str, ...]] = frozenset()) -> None:
    """`untracked`: fields an update wrote while the object had no managedFields, which upstream's field
    manager does not track (skipNonAppliedManager) until an apply records them as before-first-apply."""
    owned: set[tuple[str, ...]] = set()
    for entry in obj["metadata"].get("managedFields") or ():
        paths = _paths(entry["fieldsV1"])
        absent = [p for p in paths if not _exists(obj, p)]
        assert not absent, (entry["manager"], absent, obj)
        owned |= paths
    unowned = (leaves or _leaves)(obj) - owned - untracked
    assert not unowned, (unowned, obj)


# -- generated sequences ------------------------------------------------------------------------------

keys = st.sampled_from(["a", "b", "c", "d"])
values = st.sampled_from(["1", "2"])
managers = st.sampled_from(["ann", "ben", "cat"])
steps = st.tuples(
    st.sampled_from(["apply", "force", "update"]), managers,
    st.dictionaries(keys, values, max_size=3),                        # data
    st.dictionaries(keys, values, max_size=2),                        # labels
    st.lists(keys, max_size=1),                                       # data keys an update deletes
)


def _apply_body(name: str, data: dict[str, str], labels: dict[str, str]) -> bytes:
    meta: dict[str, Any] = {"name": name}
    if labels:
        meta["labels"] = labels
    body: dict[str, Any] = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
    if data:
        body["data"] = data
    return yaml.safe_dump(body).encode()


def _get(conn: Connection, name: str) -> dict[str, Any]:
    status, obj = conn.json("GET", f"{CM}/{name}")
    assert status == 200, obj
    return obj  # type: ignore[no-any-return]


@SETTINGS
@given(st.lists(steps, min_size=1, max_size=6))
def test_random_applies_and_updates_keep_ownership_whole(conn: Connection, sequence: list[Any]) -> None:
    name = f"cm-{next(_names)}"
    created = False
    untracked: frozenset[tuple[str, ...]] = frozenset()
    for operation, manager, data, labels, deleted in sequence:
        before = _get(conn, name) if created else None
        if operation == "update":
            if before is None:
                continue
            patch: dict[str, Any] = {"data": {**data, **{k: None for k in deleted}}}
            if labels:
                patch["metadata"] = {"labels": labels}
            status, headers, answer = conn.request("PATCH", f"{CM}/{name}?fieldManager={manager}",
                                                   json.dumps(patch).encode(), {"Content-Type": MERGE})
            assert status == 200, answer
            if not before["metadata"].get("managedFields"):
                untracked |= _leaves(json.loads(answer))
        else:
            query = f"fieldManager={manager}" + ("&force=true" if operation == "force" else "")
            body = _apply_body(name, data, labels)
            status, headers, answer = conn.request("PATCH", f"{CM}/{name}?{query}", body, {"Content-Type": APPLY})
            if status == 409:
                assert operation == "apply" and before is not None
                causes = json.loads(answer)["details"]["causes"]
                assert causes and all(c["reason"] == "FieldManagerConflict" for c in causes)
                assert _get(conn, name)["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
                continue
            assert status in (200, 201), answer
            created = True
            untracked = frozenset()
            applied = json.loads(answer)
            assert {k: applied.get("data", {}).get(k) for k in data} == data
            # The same configuration again is a no-op.
            again_status, _, again = conn.request("PATCH", f"{CM}/{name}?fieldManager={manager}", body,
                                                  {"Content-Type": APPLY})
            assert again_status == 200, again
            assert json.loads(again)["metadata"]["resourceVersion"] == applied["metadata"]["resourceVersion"]
        check_invariants(_get(conn, name), untracked=untracked)


# -- bad input ----------------------------------------------------------------------------------------

scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**40), max_value=2**40), st.text(max_size=8))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)), max_leaves=6)
near_configmaps = st.fixed_dictionaries({}, optional={
    "apiVersion": st.one_of(st.just("v1"), st.just("apps/v1"), json_values),
    "kind": st.one_of(st.just("ConfigMap"), st.just("Deployment"), json_values),
    "metadata": st.one_of(st.fixed_dictionaries({}, optional={
        "name": st.one_of(st.just("target"), st.just("other"), json_values),
        "namespace": st.one_of(st.just(NS), st.just("elsewhere"), json_values),
        "labels": st.one_of(st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=2), json_values),
        "managedFields": json_values}), json_values),
    "data": st.one_of(st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=3), json_values),
    "bogus": json_values,
})
bodies = st.one_of(
    near_configmaps.map(lambda v: yaml.safe_dump(v)), near_configmaps.map(json.dumps),
    st.text(max_size=120), st.sampled_from(["metadata: {name: [1\n", "- a\n- b\n", "", "a: &x [*x]\n",
                                            "data:\n  k: 2001-12-14\n", "kind: ConfigMap\n<<: {a: 1}\n"]))
queries = st.fixed_dictionaries({}, optional={
    "fieldManager": st.one_of(st.just("fuzzer"), st.text(max_size=8)),
    "force": st.sampled_from(["true", "false", "x", ""]),
    "dryRun": st.sampled_from(["All", "x"]),
    "fieldValidation": st.sampled_from(["Strict", "Warn", "Ignore", "x"]),
})


def _revision(conn: Connection) -> str:
    status, listing = conn.json("GET", CM + "?limit=1")
    assert status == 200
    return str(listing["metadata"]["resourceVersion"])


@SETTINGS
@given(bodies, queries, st.sampled_from(["target", "fresh"]))
def test_bad_apply_requests_get_a_status_and_write_nothing(conn: Connection, body: str, query: dict[str, str],
                                                           name: str) -> None:
    if conn.request("GET", f"{CM}/target")[0] == 404:
        target = _apply_body("target", {"k": "v"}, {})
        assert conn.request("PATCH", f"{CM}/target?fieldManager=owner", target, {"Content-Type": APPLY})[0] == 201
    before = _revision(conn)
    path = f"{CM}/{name}?{urllib.parse.urlencode(query)}"
    status, headers, answer = conn.request("PATCH", path, body.encode(), {"Content-Type": APPLY})
    assert status < 500 or status == 500 and json.loads(answer)["message"].startswith(
        "failed to convert new object (/shaped; apps/v1, Kind=Deployment) to proper version: "), answer[:2000]
    assert b"Traceback" not in answer
    if status >= 400:
        status_body = json.loads(answer)
        assert status_body["kind"] == "Status" and status_body["code"] == status and status_body["message"]
        assert _revision(conn) == before, answer[:500]
    elif name == "fresh" and query.get("dryRun") != "All":
        assert conn.request("DELETE", f"{CM}/fresh")[0] == 200


# -- keyed lists: a Deployment's containers, their env and ports ----------------------------------
# Lists are never sent empty: the server keeps an empty list that Go's omitempty would drop, so
# restating `env: []` after the last item was pruned writes once (a shaping gap outside apply).

DEPLOYMENTS = f"/apis/apps/v1/namespaces/{NS}/deployments"
SMP = "application/strategic-merge-patch+json"
containers = st.lists(st.fixed_dictionaries({
    "name": st.sampled_from(["a", "b"]),
    "image": st.sampled_from(["img:1", "img:2"]),
}, optional={
    "env": st.lists(st.fixed_dictionaries({"name": st.sampled_from(["X", "Y"]), "value": values}),
                    min_size=1, max_size=2, unique_by=lambda e: e["name"]),
    "ports": st.lists(st.fixed_dictionaries({"containerPort": st.sampled_from([80, 81])},
                                            optional={"protocol": st.sampled_from(["TCP", "UDP"])}),
                      min_size=1, max_size=2, unique_by=lambda p: (p["containerPort"], p.get("protocol", "TCP"))),
}), min_size=1, max_size=2, unique_by=lambda c: c["name"])
deployment_steps = st.tuples(st.sampled_from(["apply", "force", "update"]), managers, containers)


def _deployment(name: str, items: list[dict[str, Any]]) -> bytes:
    return json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
                       "spec": {"selector": {"matchLabels": {"app": name}},
                                "template": {"metadata": {"labels": {"app": name}},
                                             "spec": {"containers": items}}}}).encode()


def _written_leaves(obj: dict[str, Any]) -> set[tuple[str, ...]]:
    """What the generated writes set in a Deployment's containers (the rest is defaulting's)."""
    base = ("f:spec", "f:template", "f:spec", "f:containers")
    found = set()
    for container in obj["spec"]["template"]["spec"]["containers"]:
        item = base + ("k:" + json.dumps({"name": container["name"]}, separators=(",", ":")),)
        found.add(item + ("f:image",))
        for env in container.get("env") or ():
            if "value" in env:  # an item can outlive its value: pruned from one owner, kept by another's key
                found.add(item + ("f:env", "k:" + json.dumps({"name": env["name"]}, separators=(",", ":")),
                                  "f:value"))
    return found


@SETTINGS
@given(st.lists(deployment_steps, min_size=1, max_size=5))
def test_keyed_lists_merge_by_key_and_keep_ownership_whole(conn: Connection, sequence: list[Any]) -> None:
    name = f"dep-{next(_names)}"
    created = False
    for operation, manager, items in sequence:
        before = _get_at(conn, f"{DEPLOYMENTS}/{name}") if created else None
        if operation == "update":
            if not created:
                continue
            patch = {"spec": {"template": {"spec": {"containers": [
                {"name": c["name"], "image": c["image"]} for c in items]}}}}
            status, _, answer = conn.request("PATCH", f"{DEPLOYMENTS}/{name}?fieldManager={manager}",
                                             json.dumps(patch).encode(), {"Content-Type": SMP})
            assert status == 200, answer
        else:
            query = f"fieldManager={manager}" + ("&force=true" if operation == "force" else "")
            body = _deployment(name, items)
            status, _, answer = conn.request("PATCH", f"{DEPLOYMENTS}/{name}?{query}", body, {"Content-Type": APPLY})
            if status in (409, 422):
                # Refused (a conflict, or a Deployment left without a container): nothing was written.
                assert before is not None and (status == 422 or operation == "apply"), answer
                after = _get_at(conn, f"{DEPLOYMENTS}/{name}")
                assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
                continue
            assert status in (200, 201), answer
            created = True
            applied = json.loads(answer)
            by_name = {c["name"]: c for c in applied["spec"]["template"]["spec"]["containers"]}
            for container in items:
                live = by_name[container["name"]]
                assert live["image"] == container["image"]
                live_env = {e["name"]: e.get("value") for e in live.get("env") or ()}
                assert all(live_env[e["name"]] == e["value"] for e in container.get("env") or ())
            again_status, _, again = conn.request("PATCH", f"{DEPLOYMENTS}/{name}?fieldManager={manager}", body,
                                                  {"Content-Type": APPLY})
            assert again_status == 200, again
            assert json.loads(again)["metadata"]["resourceVersion"] == applied["metadata"]["resourceVersion"]
        check_invariants(_get_at(conn, f"{DEPLOYMENTS}/{name}"), _written_leaves)


def _get_at(conn: Connection, path: str) -> dict[str, Any]:
    status, obj = conn.json("GET", path)
    assert status == 200, obj
    return obj  # type: ignore[no-any-return]


near_containers = st.lists(st.fixed_dictionaries({}, optional={
    "name": st.one_of(st.sampled_from(["a", "b"]), json_values),
    "image": st.one_of(st.just("img:1"), json_values),
    "env": st.one_of(st.lists(st.fixed_dictionaries({}, optional={"name": st.one_of(st.just("X"), json_values),
                                                                  "value": json_values}), max_size=3), json_values),
    "ports": st.one_of(st.lists(st.fixed_dictionaries({}, optional={
        "containerPort": st.one_of(st.just(80), json_values), "protocol": st.one_of(st.just("UDP"), json_values)}),
        max_size=3), json_values),
}), max_size=3)
near_deployments = st.fixed_dictionaries({"apiVersion": st.just("apps/v1"), "kind": st.just("Deployment")}, optional={
    "metadata": st.one_of(st.just({"name": "shaped"}), json_values),
    "spec": st.one_of(st.fixed_dictionaries({}, optional={
        "replicas": st.one_of(st.just(2), json_values),
        "selector": st.one_of(st.just({"matchLabels": {"app": "s"}}), json_values),
        "template": st.one_of(st.fixed_dictionaries({}, optional={
            "metadata": st.one_of(st.just({"labels": {"app": "s"}}), json_values),
            "spec": st.one_of(st.fixed_dictionaries({}, optional={"containers": st.one_of(near_containers,
                                                                                          json_values)}),
                              json_values)}), json_values)}), json_values),
    "status": json_values,
})


@SETTINGS
@given(near_deployments, st.booleans())
def test_generated_deployment_configurations_are_answered_with_a_status(conn: Connection, config: dict[str, Any],
                                                                        force: bool) -> None:
    """Over an existing Deployment owned by another applier: merged, refused, or conflicting, never a 5xx
    but upstream's own 500 for an applied object its Go type cannot hold (a fractional replicas)."""
    path = f"{DEPLOYMENTS}/shaped"
    if conn.request("GET", path)[0] == 404:
        base = _deployment("shaped", [{"name": "a", "image": "img:0", "env": [{"name": "X", "value": "0"}]}])
        assert conn.request("PATCH", path + "?fieldManager=owner", base, {"Content-Type": APPLY})[0] == 201
    before = _revision(conn)
    query = "fieldManager=fuzzer" + ("&force=true" if force else "")
    status, _, answer = conn.request("PATCH", f"{path}?{query}", json.dumps(config).encode(), {"Content-Type": APPLY})
    assert status < 500 or status == 500 and json.loads(answer)["message"].startswith(
        "failed to convert new object (/shaped; apps/v1, Kind=Deployment) to proper version: "), answer[:2000]
    if status >= 400:
        status_body = json.loads(answer)
        assert status_body["kind"] == "Status" and status_body["code"] == status and status_body["message"]
        assert _revision(conn) == before, answer[:500]
    elif "null" not in json.dumps(config):
        # (A null is owned, as upstream owns it, though Go leaves the field unset: no check then.)
        check_invariants(_get_at(conn, path), lambda obj: set())
