"""The Priority admission plugin: a pod's priority resolved from its PriorityClass on create and kept on
update, one global default PriorityClass at most; disabled, it does neither (answers recorded from a
kube-apiserver run with --disable-admission-plugins=ServiceAccount,Priority:
tests/fixtures/priority_disabled.json, by tools/capture_priority_disabled.py).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator

import priority_disabled_cases as cases
import pytest
from support import ServerProcess

from apiserver.admissionplugins import priority
from apiserver.admissionplugins.request import Request
from apiserver.errors import ApiError

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
from capture_validation import exchange

pytestmark = pytest.mark.store_once


def priority_class(name: str, value: int, global_default: bool = False, policy: str | None = None) -> dict:
    found: dict = {"metadata": {"name": name, "creationTimestamp": "2026-01-01T00:00:00Z"}, "value": value}
    if global_default:
        found["globalDefault"] = True
    if policy:
        found["preemptionPolicy"] = policy
    return found


def a_pod(**spec: object) -> dict:
    return {"metadata": {"name": "web"}, "spec": {"containers": [{"name": "c", "image": "i"}], **spec}}


def creating(pod: dict) -> Request:
    return Request("CREATE", "", "pods", "", "default", "", pod, None)


CLASSES = [priority_class("system-cluster-critical", 2000000000, policy="PreemptLowerPriority"),
           priority_class("batch", 100, policy="Never"),
           priority_class("low-default", 10, global_default=True, policy="PreemptLowerPriority"),
           priority_class("high-default", 1000, global_default=True, policy="PreemptLowerPriority")]


@pytest.mark.parametrize("spec, classes, expected", [
    ({"priorityClassName": "system-cluster-critical"}, CLASSES,
     {"priorityClassName": "system-cluster-critical", "priority": 2000000000,
      "preemptionPolicy": "PreemptLowerPriority"}),
    ({"priorityClassName": "batch", "priority": 100}, CLASSES,
     {"priorityClassName": "batch", "priority": 100, "preemptionPolicy": "Never"}),
    # Several global defaults: the lowest value wins, and the pod is given its name.
    ({}, CLASSES, {"priorityClassName": "low-default", "priority": 10, "preemptionPolicy": "PreemptLowerPriority"}),
    ({}, [], {"priority": 0, "preemptionPolicy": "PreemptLowerPriority"}),
])
def test_priority_comes_from_the_priority_class(spec: dict, classes: list[dict], expected: dict) -> None:
    pod = a_pod(**spec)
    priority.admit_pod(creating(pod), classes)
    assert {k: v for k, v in pod["spec"].items() if k != "containers"} == expected


@pytest.mark.parametrize("spec, message", [
    ({"priorityClassName": "missing"}, 'pods "web" is forbidden: no PriorityClass with name missing was found'),
    ({"priorityClassName": "batch", "priority": 5},
     ('pods "web" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority '
     "admission controller computed 100 from the given PriorityClass name")),
    ({"priorityClassName": "batch", "preemptionPolicy": "PreemptLowerPriority"},
     ('pods "web" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in '
     "pod spec; priority admission controller computed Never from the given PriorityClass name")),
])
def test_a_priority_the_class_contradicts_is_forbidden(spec: dict, message: str) -> None:
    with pytest.raises(ApiError) as refused:
        priority.admit_pod(creating(a_pod(**spec)), CLASSES)
    assert (refused.value.code, refused.value.reason, refused.value.message) == (403, "Forbidden", message)
    assert refused.value.details == {"name": "web", "kind": "pods"}


def test_an_update_keeps_the_priority_the_new_pod_leaves_out() -> None:
    old = a_pod(priority=7, preemptionPolicy="Never")
    new = a_pod()
    priority.admit_pod(Request("UPDATE", "", "pods", "", "default", "web", new, old), CLASSES)
    assert (new["spec"]["priority"], new["spec"]["preemptionPolicy"]) == (7, "Never")


def test_a_pod_stating_its_own_priority_without_classes_is_refused_over_http(shared_server: ServerProcess) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pushy"},
           "spec": {"priority": 7, "containers": [{"name": "c", "image": "nginx:1.27"}]}}
    status, refused = shared_server.json("POST", "/api/v1/namespaces/default/pods", pod)
    assert (status, refused["message"]) == (403, ('pods "pushy" is forbidden: the integer value of priority (7) must '
                                                 "not be provided in pod spec; priority admission controller computed "
                                                 "0 from the given PriorityClass name"))
    assert shared_server.json("GET", "/api/v1/namespaces/default/pods/pushy")[0] == 404


@pytest.fixture(scope="module")
def disabled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict]]:
    with ServerProcess(str(tmp_path_factory.mktemp("noprio")), extra_args=["--disable-admission-plugins=Priority"]) \
            as server:
        yield cases.run(exchange(server.kubeconfig))


def test_disabled_it_does_as_the_recorded_reference(disabled: dict[str, dict]) -> None:
    with open(os.path.join(os.path.dirname(__file__), "fixtures", cases.FIXTURE)) as f:
        assert disabled == json.load(f)


def test_disabled_neither_half_acts(disabled: dict[str, dict]) -> None:
    assert disabled["create-missing-class"]["code"] == 201
    assert disabled["create-plain"]["priority"] is None
    assert disabled["create-class-disabled-default-b"] == {"code": 201}
    assert disabled["update-dropping-priority"]["code"] == 422


def test_a_plugin_applied_outside_the_chain_cannot_be_disabled(tmp_path: object) -> None:
    server = ServerProcess(str(tmp_path), extra_args=["--disable-admission-plugins=DefaultStorageClass"])
    with pytest.raises(RuntimeError, match='plugin "DefaultStorageClass" is applied outside the admission chain'):
        server.start()
