"""Strategic merge patch on built-in kinds: each case is an object, a patch, and what the object becomes."""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest
from support import ServerProcess

SMP = "application/strategic-merge-patch+json"
_names = itertools.count()


def _deployment(containers: list[dict[str, Any]], **pod: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"labels": {"app": "smp", "tier": "gold"}, "finalizers": ["example.com/a"]},
            "spec": {"selector": {"matchLabels": {"app": "smp"}},
                     "template": {"metadata": {"labels": {"app": "smp"}}, "spec": {"containers": containers, **pod}}}}


def _containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return obj["spec"]["template"]["spec"]["containers"]  # type: ignore[no-any-return]


def _brief(containers: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(c["name"], c["image"]) for c in containers]


TWO: list[dict[str, Any]] = [{"name": "app", "image": "app:1", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
        "ports": [{"containerPort": 80}, {"containerPort": 443}], "args": ["--one", "--two"]},
       {"name": "side", "image": "side:1"}]


def _tpl(patch: dict[str, Any]) -> dict[str, Any]:
    return {"spec": {"template": {"spec": patch}}}


CASES: list[tuple[str, dict[str, Any], Any]] = [
    ("a container is found by its name and only its image changes",
     _tpl({"containers": [{"name": "side", "image": "side:2"}]}),
     lambda o: _brief(_containers(o)) == [("app", "app:1"), ("side", "side:2")]),
    # kube-apiserver 1.36.2's answers: a merge ends in normalizeElementOrder, so the patch's elements
    # come first where the server's list does not place them.
    ("a container with a new name comes before the server's ones",
     _tpl({"containers": [{"name": "extra", "image": "extra:1"}]}),
     lambda o: _brief(_containers(o)) == [("extra", "extra:1"), ("app", "app:1"), ("side", "side:1")]),
    ("$patch: delete in an element removes the element with that name",
     _tpl({"containers": [{"name": "app", "$patch": "delete"}]}),
     lambda o: _brief(_containers(o)) == [("side", "side:1")]),
    ("env inside a container merges by name too",
     _tpl({"containers": [{"name": "app", "env": [{"name": "B", "value": "3"}, {"name": "C", "value": "4"}]}]}),
     lambda o: _containers(o)[0]["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "3"},
                                            {"name": "C", "value": "4"}]),
    ("ports merge by containerPort",
     _tpl({"containers": [{"name": "app", "ports": [{"containerPort": 443, "name": "tls"}]}]}),
     lambda o: _containers(o)[0]["ports"] == [{"containerPort": 80, "protocol": "TCP"},
                                              {"containerPort": 443, "name": "tls", "protocol": "TCP"}]),
    ("a list without a patch strategy (args) is replaced whole",
     _tpl({"containers": [{"name": "app", "args": ["--three"]}]}),
     lambda o: _containers(o)[0]["args"] == ["--three"]),
    ("$setElementOrder puts merged elements in the client's order",
     _tpl({"$setElementOrder/containers": [{"name": "side"}, {"name": "app"}],
           "containers": [{"name": "app", "image": "app:2"}]}),
     lambda o: _brief(_containers(o)) == [("side", "side:1"), ("app", "app:2")]),
    ("an element only the server has stays before the listed ones it preceded",
     _tpl({"$setElementOrder/containers": [{"name": "extra"}, {"name": "side"}],
           "containers": [{"name": "extra", "image": "extra:1"}]}),
     lambda o: _brief(_containers(o)) == [("extra", "extra:1"), ("app", "app:1"), ("side", "side:1")]),
    ("$patch: replace on a list element replaces the whole list",
     _tpl({"containers": [{"name": "only", "image": "only:1"}, {"$patch": "replace"}]}),
     lambda o: _brief(_containers(o)) == [("only", "only:1")]),
    ("a merge list of primitives (finalizers) is a union, in the patch's order",
     {"metadata": {"finalizers": ["example.com/b", "example.com/a"]}},
     lambda o: o["metadata"]["finalizers"] == ["example.com/b", "example.com/a"]),
    ("$deleteFromPrimitiveList removes values from such a list",
     {"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/a"]}},
     lambda o: "finalizers" not in o["metadata"] or o["metadata"]["finalizers"] == []),
    ("null deletes a key of a map",
     {"metadata": {"labels": {"tier": None}}},
     lambda o: o["metadata"]["labels"] == {"app": "smp"}),
    ("$patch: delete on a map removes it",
     _tpl({"nodeSelector": {"$patch": "delete"}}),
     lambda o: "nodeSelector" not in o["spec"]["template"]["spec"]),
    ("$patch: replace on a map replaces the map",
     {"metadata": {"labels": {"$patch": "replace", "app": "smp", "new": "yes"}}},
     lambda o: o["metadata"]["labels"] == {"app": "smp", "new": "yes"}),
    ("$retainKeys drops what the patch does not keep (a Recreate strategy has no rollingUpdate)",
     {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}},
     lambda o: o["spec"]["strategy"] == {"type": "Recreate"}),
    ("volumes merge by name and $retainKeys switches a volume's source",
     _tpl({"volumes": [{"name": "data", "configMap": {"name": "cm"}, "$retainKeys": ["configMap", "name"]}]}),
     lambda o: o["spec"]["template"]["spec"]["volumes"] == [
         {"name": "data", "configMap": {"name": "cm", "defaultMode": 420}}, {"name": "cache", "emptyDir": {}}]),
]


@pytest.mark.parametrize(("case", "patch", "check"), CASES, ids=[c[0] for c in CASES])
def test_strategic_merge_patch(shared_server: ServerProcess, case: str, patch: dict[str, Any], check: Any) -> None:
    name = f"smp-{next(_names)}"
    obj = _deployment(copy.deepcopy(TWO), volumes=[{"name": "data", "emptyDir": {}}, {"name": "cache", "emptyDir": {}}],
                      nodeSelector={"disk": "ssd"})
    obj["metadata"]["name"] = name
    base = "/apis/apps/v1/namespaces/default/deployments"
    status, _ = shared_server.json("POST", base, obj)
    assert status == 201
    status, patched = shared_server.json("PATCH", f"{base}/{name}", patch, content_type=SMP)
    assert status == 200, patched
    assert check(patched), patched
    status, stored = shared_server.json("GET", f"{base}/{name}")
    assert check(stored)


def test_a_patch_that_changes_nothing_keeps_the_resource_version(shared_server: ServerProcess) -> None:
    obj = _deployment(copy.deepcopy(TWO))
    obj["metadata"]["name"] = "smp-same"
    base = "/apis/apps/v1/namespaces/default/deployments"
    status, created = shared_server.json("POST", base, obj)
    assert status == 201
    status, patched = shared_server.json("PATCH", f"{base}/smp-same", _tpl({"containers": [{"name": "app", "image": "app:1"}]}),
                                         content_type=SMP)
    assert status == 200
    assert patched["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


def test_events_served_as_events_k8s_io_take_their_own_schema(shared_server: ServerProcess) -> None:
    event = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "smp-event"},
             "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "test", "reportingInstance": "t",
             "action": "Test", "reason": "Tested", "regarding": {"kind": "Pod", "name": "p"}, "type": "Normal"}
    base = "/apis/events.k8s.io/v1/namespaces/default/events"
    assert shared_server.json("POST", base, event)[0] == 201
    # The series is what an events.k8s.io/v1 update may change (its note is fixed, as kube-apiserver 1.36.2 answers).
    series = {"count": 2, "lastObservedTime": "2026-01-01T00:00:01.000000Z"}
    status, patched = shared_server.json("PATCH", f"{base}/smp-event", {"series": series}, content_type=SMP)
    assert status == 200
    assert patched["series"] == series
