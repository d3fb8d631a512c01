"""The scheduler's decision, pure: which nodes can take a pod (kube-scheduler's default filters, in their
order, each node failing at the first one that refuses it) and which of those fits best.

Filters: NodeUnschedulable, TaintToleration, NodeAffinity (nodeSelector and required node affinity),
NodeResourcesFit, PodTopologySpread (DoNotSchedule constraints), InterPodAffinity (required pod
affinity and anti-affinity, both ways). Reasons use
upstream's wording, and `fit_error` writes the FailedScheduling message as upstream's FitError does,
with the preemption post-filter's note: a node refused only for room (resources, anti-affinity) could
be helped by evicting lower-priority pods, one refused by its taints or labels could not.
Scores: LeastAllocated over CPU and memory (with upstream's non-zero defaults for pods that request
nothing) plus the default spreading of one owner's pods across nodes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from apiserver.controllers.quantities import Requests, node_allocatable, pod_requests
from apiserver.controllers.selectors import label_selector_matches, labels_of, node_selector_term_matches

Obj = dict[str, Any]

UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
# schedutil.DefaultMilliCPURequest and DefaultMemoryRequest: what a pod without requests counts as when scoring.
_DEFAULT_CPU = 0.1
_DEFAULT_MEMORY = 200 * 2 ** 20

R_UNSCHEDULABLE = "node(s) were unschedulable"
R_TAINT = "node(s) had untolerated taint(s)"
R_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
R_POD_AFFINITY = "node(s) didn't match pod affinity rules"
R_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
R_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
R_TOO_MANY_PODS = "Too many pods"
R_SPREAD = "node(s) didn't match pod topology spread constraints"
R_SPREAD_LABEL = "node(s) didn't match pod topology spread constraints (missing required label)"

NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
# Refusals that evicting pods could lift; the rest are UnschedulableAndUnresolvable upstream.
_RESOLVABLE = frozenset({R_ANTI_AFFINITY, R_EXISTING_ANTI_AFFINITY, R_TOO_MANY_PODS, R_SPREAD})


@dataclass
class NodeState:
    """A node and the pods bound (or assumed bound) to it."""

    node: Obj
    pods: dict[tuple[str, str], Obj] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.node["metadata"]["name"])

    def requested(self) -> Requests:
        total: Requests = {}
        for pod in self.pods.values():
            for name, value in pod_requests(pod).items():
                total[name] = total.get(name, 0.0) + value
        return total


def tolerates(tolerations: Iterable[Mapping[str, Any]], taint: Mapping[str, Any]) -> bool:
    for toleration in tolerations:
        effect = toleration.get("effect")
        if effect and effect != taint.get("effect"):
            continue
        key = toleration.get("key")
        if toleration.get("operator") == "Exists":
            if not key or key == taint.get("key"):
                return True
            continue
        if key == taint.get("key") and (toleration.get("value") or "") == (taint.get("value") or ""):
            return True
    return False


def _node_affinity_fits(pod: Obj, node: Obj) -> bool:
    spec = pod.get("spec") or {}
    labels = labels_of(node)
    if any(labels.get(k) != v for k, v in (spec.get("nodeSelector") or {}).items()):
        return False
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution"))
    if required is None:
        return True
    return any(node_selector_term_matches(term, node) for term in required.get("nodeSelectorTerms") or ())


def _resource_reasons(pod: Obj, state: NodeState) -> list[str]:
    allocatable = node_allocatable(state.node)
    reasons = []
    if len(state.pods) + 1 > allocatable.get("pods", 110):
        reasons.append(R_TOO_MANY_PODS)
    wanted = pod_requests(pod)
    used = state.requested()
    for name in sorted(wanted):
        if wanted[name] and used.get(name, 0.0) + wanted[name] > allocatable.get(name, 0.0):
            reasons.append(f"Insufficient {name}")
    return reasons


def _terms(pod: Obj, kind: str) -> list[Obj]:
    section = ((pod.get("spec") or {}).get("affinity") or {}).get(kind) or {}
    return list(section.get("requiredDuringSchedulingIgnoredDuringExecution") or ())


def _term_selects(term: Obj, owner: Obj, other: Obj) -> bool:
    namespaces = term.get("namespaces") or [owner["metadata"].get("namespace", "")]
    if term.get("namespaceSelector") == {}:
        namespaces = None  # every namespace
    if namespaces is not None and other["metadata"].get("namespace", "") not in namespaces:
        return False
    return label_selector_matches(term.get("labelSelector"), labels_of(other))


def _domain_pods(states: Iterable[NodeState], node: Obj, key: str) -> list[tuple[Obj, Obj]]:
    value = labels_of(node).get(key)
    if value is None:
        return []
    return [(state.node, pod) for state in states if labels_of(state.node).get(key) == value
            for pod in state.pods.values()]


def _inter_pod_reason(pod: Obj, state: NodeState, states: list[NodeState]) -> str | None:
    for term in _terms(pod, "podAntiAffinity"):
        if any(_term_selects(term, pod, other) for _, other in _domain_pods(states, state.node, term["topologyKey"])):
            return R_ANTI_AFFINITY
    for other_state in states:
        for other in other_state.pods.values():
            for term in _terms(other, "podAntiAffinity"):
                key = term.get("topologyKey", "")
                value = labels_of(other_state.node).get(key)
                if (value is not None and labels_of(state.node).get(key) == value
                        and _term_selects(term, other, pod)):
                    return R_EXISTING_ANTI_AFFINITY
    for term in _terms(pod, "podAffinity"):
        in_domain = _domain_pods(states, state.node, term["topologyKey"])
        if not any(_term_selects(term, pod, other) for _, other in in_domain):
            # The first pod of a group may land anywhere its own labels would satisfy the term.
            anywhere = any(_term_selects(term, pod, other) for s in states for other in s.pods.values())
            if anywhere or not _term_selects(term, pod, pod) or term["topologyKey"] not in labels_of(state.node):
                return R_POD_AFFINITY
    return None


def _spread_reason(pod: Obj, state: NodeState, states: list[NodeState]) -> str | None:
    """PodTopologySpread's filter for DoNotSchedule constraints: placing the pod here may not make its
    domain exceed the least populated eligible domain by more than maxSkew."""
    namespace = pod["metadata"].get("namespace", "")
    for constraint in (pod.get("spec") or {}).get("topologySpreadConstraints") or ():
        if constraint.get("whenUnsatisfiable", "DoNotSchedule") != "DoNotSchedule":
            continue
        key = constraint.get("topologyKey", "")
        if key not in labels_of(state.node):
            return R_SPREAD_LABEL
        selector = constraint.get("labelSelector")
        counts: dict[str, int] = {}
        for other in states:
            domain = labels_of(other.node).get(key)
            if domain is None or not _node_affinity_fits(pod, other.node):
                continue
            counts[domain] = counts.get(domain, 0) + sum(
                1 for p in other.pods.values()
                if p["metadata"].get("namespace", "") == namespace and label_selector_matches(selector, labels_of(p)))
        own = 1 if label_selector_matches(selector, labels_of(pod)) else 0
        domain = labels_of(state.node)[key]
        if counts.get(domain, 0) + own - min(counts.values(), default=0) > int(constraint.get("maxSkew", 1)):
            return R_SPREAD
    return None


def node_reasons(pod: Obj, state: NodeState, states: list[NodeState],
                 volume_reason: Callable[[Obj], str | None] | None = None) -> list[str]:
    """Why the node cannot take the pod (empty: it can), from the first filter that refuses it;
    `volume_reason` is the VolumeBinding filter's, which runs after the resources are counted."""
    spec = pod.get("spec") or {}
    tolerations = spec.get("tolerations") or []
    node_spec = state.node.get("spec") or {}
    if node_spec.get("unschedulable") and not tolerates(
            tolerations, {"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule"}):
        return [R_UNSCHEDULABLE]
    for taint in node_spec.get("taints") or ():
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(tolerations, taint):
            return [R_TAINT]
    if not _node_affinity_fits(pod, state.node):
        return [R_AFFINITY]
    reasons = _resource_reasons(pod, state)
    if reasons:
        return reasons
    reason = volume_reason(state.node) if volume_reason is not None else None
    if reason:
        return [reason]
    reason = _spread_reason(pod, state, states) or _inter_pod_reason(pod, state, states)
    return [reason] if reason else []


def _owner(pod: Obj) -> str | None:
    for ref in pod["metadata"].get("ownerReferences") or ():
        if ref.get("controller"):
            return str(ref.get("uid"))
    return None


def score(pod: Obj, state: NodeState) -> float:
    """Higher is better: room left on CPU and memory, less for each pod of the same owner already there."""
    allocatable = node_allocatable(state.node)
    used = {"cpu": 0.0, "memory": 0.0}
    for other in [*state.pods.values(), pod]:
        requests = pod_requests(other)
        used["cpu"] += requests.get("cpu") or _DEFAULT_CPU
        used["memory"] += requests.get("memory") or _DEFAULT_MEMORY
    free = 0.0
    for name in ("cpu", "memory"):
        capacity = allocatable.get(name, 0.0)
        free += max(capacity - used[name], 0.0) / capacity * 100 if capacity else 0.0
    owner = _owner(pod)
    siblings = sum(1 for other in state.pods.values() if owner is not None and _owner(other) == owner)
    return free / 2 - 10 * siblings


@dataclass
class Decision:
    node: str | None
    reasons: Counter[str]  # refusals over all nodes
    resolvable: int  # nodes whose refusal preemption could lift


def decide(pod: Obj, states: list[NodeState], volume_reason: Callable[[Obj], str | None] | None = None) -> Decision:
    reasons: Counter[str] = Counter()
    resolvable = 0
    best: tuple[float, str] | None = None
    for state in states:
        found = node_reasons(pod, state, states, volume_reason)
        if found:
            reasons.update(found)
            if all(r in _RESOLVABLE or r.startswith("Insufficient ") for r in found):
                resolvable += 1
            continue
        candidate = (score(pod, state), state.name)
        # The best score wins; ties go to the first name, which keeps decisions reproducible.
        if best is None or candidate[0] > best[0]:
            best = candidate
    return Decision(None if best is None else best[1], reasons, resolvable)


def fit_error(decision: Decision, nodes: int) -> str:
    """`0/3 nodes are available: ...` as kube-scheduler's FitError and the preemption note after it."""
    if nodes == 0:
        return "no nodes available to schedule pods"
    histogram = ", ".join(sorted(f"{count} {reason}" for reason, count in decision.reasons.items()))
    preemption = Counter({NO_VICTIMS: decision.resolvable, NOT_HELPFUL: nodes - decision.resolvable})
    notes = ", ".join(sorted(f"{count} {note}" for note, count in preemption.items() if count))
    return (f"0/{nodes} nodes are available: {histogram}. no new claims to deallocate, "
            f"preemption: 0/{nodes} nodes are available: {notes}.")
