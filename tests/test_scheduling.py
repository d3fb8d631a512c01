"""The scheduler's decision, table-driven: a pod and nodes in, the chosen node or upstream's message out."""

from __future__ import annotations

from typing import Any

import pytest

from apiserver.controllers.scheduling import NodeState, decide, fit_error


def node(name: str, cpu: str = "4", memory: str = "8Gi", labels: dict[str, str] | None = None,
         taints: list[dict[str, str]] | None = None, unschedulable: bool = False, pods: str = "110") -> NodeState:
    spec: dict[str, Any] = {"taints": taints or []}
    if unschedulable:
        spec["unschedulable"] = True
    return NodeState({"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
                      "spec": spec, "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods}}})


def pod(name: str = "p", cpu: str | None = None, memory: str | None = None, labels: dict[str, str] | None = None,
        **spec: Any) -> dict[str, Any]:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    return {"metadata": {"name": name, "namespace": "default", "labels": labels or {}},
            "spec": {"containers": [{"name": "c", "resources": {"requests": requests}}], **spec}}


def place(state: NodeState, *pods: dict[str, Any]) -> NodeState:
    for p in pods:
        state.pods[("default", p["metadata"]["name"])] = p
    return state


ANTI = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}

SPREAD = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
          "labelSelector": {"matchLabels": {"app": "web"}}}

CASES = [
    ("fits the emptier node", pod(cpu="1"), [place(node("a"), pod("x", cpu="3")), node("b")], "b", None),
    ("too big everywhere", pod(cpu="8"), [node("a"), node("b"), node("c")], None,
     "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are "
     "available: 3 No preemption victims found for incoming pod."),
    ("both resources short on one node", pod(cpu="3", memory="7Gi"),
     [place(node("a"), pod("x", cpu="2", memory="2Gi")), node("b", unschedulable=True)], None,
     "0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) were unschedulable. no new "
     "claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, "
     "1 Preemption is not helpful for scheduling."),
    ("taints and selectors", pod(nodeSelector={"disk": "ssd"}),
     [node("a", taints=[{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]), node("b"),
      node("c", labels={"disk": "ssd"})], "c", None),
    ("untolerated taint and unmatched selector", pod(nodeSelector={"disk": "ssd"}),
     [node("a", taints=[{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]), node("b"), node("c")], None,
     "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match Pod's node "
     "affinity/selector. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not "
     "helpful for scheduling."),
    ("a toleration lets it in", pod(tolerations=[{"key": "dedicated", "operator": "Equal", "value": "db",
                                                  "effect": "NoSchedule"}]),
     [node("a", taints=[{"key": "dedicated", "value": "db", "effect": "NoSchedule"}])], "a", None),
    ("a PreferNoSchedule taint does not filter", pod(),
     [node("a", taints=[{"key": "k", "effect": "PreferNoSchedule"}])], "a", None),
    ("required node affinity", pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z2"]}]}]}}}),
     [node("a", labels={"zone": "z1"}), node("b", labels={"zone": "z2"})], "b", None),
    ("hostname anti-affinity", pod(labels={"app": "web"}, affinity=ANTI),
     [place(node("a"), pod("w1", labels={"app": "web"})), place(node("b"), pod("w2", labels={"app": "web"}))],
     None, "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules. no new claims to "
           "deallocate, preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."),
    ("existing pods' anti-affinity", pod(labels={"app": "web"}),
     [place(node("a"), pod("w1", labels={"app": "web"}, affinity=ANTI)), node("b")], "b", None),
    ("zone spread", pod(labels={"app": "web"}, topologySpreadConstraints=[SPREAD]),
     [place(node("a", labels={"zone": "z1"}), pod("w1", labels={"app": "web"})),
      place(node("b", labels={"zone": "z1"}), pod("w2", labels={"app": "web"})),
      node("c", labels={"zone": "z2"})], "c", None),
    ("spread with nowhere to go", pod(cpu="1", labels={"app": "web"}, topologySpreadConstraints=[SPREAD]),
     [place(node("a", labels={"zone": "z1"}), pod("w1", labels={"app": "web"}), pod("w2", labels={"app": "web"})),
      node("b", cpu="500m", labels={"zone": "z2"}), node("d")], None,
     "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod topology spread constraints, 1 "
     "node(s) didn't match pod topology spread constraints (missing required label). no new claims to deallocate, "
     "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims "
     "found for incoming pod."),
    ("too many pods", pod(), [place(node("a", pods="1"), pod("x"))], None,
     "0/1 nodes are available: 1 Too many pods. no new claims to deallocate, preemption: 0/1 nodes are "
     "available: 1 No preemption victims found for incoming pod."),
]


@pytest.mark.parametrize("what, incoming, states, chosen, message", CASES, ids=[c[0] for c in CASES])
def test_decision(what: str, incoming: dict[str, Any], states: list[NodeState], chosen: str | None,
                  message: str | None) -> None:
    decision = decide(incoming, states)
    assert decision.node == chosen
    if message is not None:
        assert fit_error(decision, len(states)) == message


def test_no_nodes_at_all() -> None:
    assert fit_error(decide(pod(), []), 0) == "no nodes available to schedule pods"


def test_replicas_of_one_owner_spread_over_equal_nodes() -> None:
    owner = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u1", "controller": True}]
    states = [node("a"), node("b"), node("c")]
    for i in range(6):
        p = pod(f"p{i}")
        p["metadata"]["ownerReferences"] = owner
        chosen = decide(p, states).node
        place(next(s for s in states if s.name == chosen), p)
    assert sorted(len(s.pods) for s in states) == [2, 2, 2]


def test_noexecute_eviction_waits_the_shortest_toleration_used() -> None:
    from apiserver.controllers.tainteviction import matching_tolerations, min_toleration_seconds

    unreachable = {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2026-11-30T11:58:00Z"}
    dedicated = {"key": "dedicated", "value": "db", "effect": "NoExecute"}
    five_minutes = {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
                    "tolerationSeconds": 300}
    a_minute = {"key": "dedicated", "operator": "Equal", "value": "db", "tolerationSeconds": 60}
    forever = {"key": "dedicated", "operator": "Exists"}
    assert matching_tolerations([unreachable], []) is None  # deleted at once
    assert matching_tolerations([unreachable, dedicated], [five_minutes]) is None
    used = matching_tolerations([unreachable, dedicated], [five_minutes, a_minute])
    # counted from when the controller finds the pod, whatever the taint's timeAdded says
    assert used == [five_minutes, a_minute] and min_toleration_seconds(used) == 60
    # a toleration without a limit does not outlast another's limit (getMinTolerationTime)
    assert min_toleration_seconds(matching_tolerations([unreachable, dedicated], [five_minutes, forever])) == 300
    assert min_toleration_seconds(matching_tolerations([dedicated], [forever])) is None
    assert min_toleration_seconds([{**a_minute, "tolerationSeconds": -5}]) == 0
