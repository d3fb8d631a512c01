"""The Pod printer: READY, STATUS and RESTARTS the way kube-apiserver derives them.

STATUS follows upstream's precedence: the phase, then status.reason, then a SchedulingGated
condition; an init container still working or failed; the last regular container that is
waiting or terminated; "Completed" turns back into Running/NotReady while a container still runs;
deletion shows Terminating (or Unknown for pods on a lost node).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from columns.base import Cell, Row, Since
from columns.declare import Meta, age_column, column, name_column, printer
from columns.format import NONE, elapsed, epoch, since


class Waiting(msgspec.Struct):
    reason: str = ""


class Running(msgspec.Struct):
    pass


class Terminated(msgspec.Struct):
    exitCode: int = 0
    signal: int = 0
    reason: str = ""
    finishedAt: str | None = None


class State(msgspec.Struct):
    waiting: Waiting | None = None
    running: Running | None = None
    terminated: Terminated | None = None


class ContainerStatus(msgspec.Struct):
    name: str = ""
    state: State = msgspec.field(default_factory=State)
    lastState: State = msgspec.field(default_factory=State)
    ready: bool = False
    started: bool | None = None
    restartCount: int = 0


class Condition(msgspec.Struct):
    type: str = ""
    status: str = ""
    reason: str = ""


class PodIP(msgspec.Struct):
    ip: str = ""


class PodStatus(msgspec.Struct):
    phase: str = ""
    reason: str = ""
    conditions: list[Condition] = []
    initContainerStatuses: list[ContainerStatus] = []
    containerStatuses: list[ContainerStatus] = []
    podIP: str = ""
    podIPs: list[PodIP] = []
    nominatedNodeName: str = ""


class Container(msgspec.Struct):
    name: str = ""
    restartPolicy: str | None = None


class ReadinessGate(msgspec.Struct):
    conditionType: str = ""


class PodSpec(msgspec.Struct):
    initContainers: list[Container] = []
    containers: list[Container] = []
    nodeName: str = ""
    readinessGates: list[ReadinessGate] = []


class Pod(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: PodSpec = msgspec.field(default_factory=PodSpec)
    status: PodStatus = msgspec.field(default_factory=PodStatus)


COLUMNS = [
    name_column(),
    column("Ready", "The aggregate readiness state of this pod for accepting traffic."),
    column("Status", "The aggregate status of the containers in this pod."),
    column("Restarts", "The number of times the containers in this pod have been restarted and when the "
                       "last container in this pod has restarted."),
    age_column(),
    column("IP", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not "
                 "yet allocated.", priority=1),
    column("Node", "NodeName indicates in which node this pod is scheduled. If empty, this pod is a "
                   "candidate for scheduling by the scheduler defined in schedulerName. Once this field is "
                   "set, the kubelet for this node becomes responsible for the lifecycle of this pod. This "
                   "field should not be used to express a desire for the pod to be scheduled on a specific "
                   "node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename",
           priority=1),
    column("Nominated Node", "nominatedNodeName is set only when this pod preempts other pods on the node, "
                             "but it cannot be scheduled right away as preemption victims receive their "
                             "graceful termination periods. This field does not guarantee that the pod will "
                             "be scheduled on this node. Scheduler may decide to place the pod elsewhere if "
                             "other nodes become available sooner. Scheduler may also decide to give the "
                             "resources on this node to a higher priority pod that is created after "
                             "preemption. As a result, this field may be different than PodSpec.nodeName "
                             "when the pod is scheduled.", priority=1),
    column("Readiness Gates", "If specified, all readiness gates will be evaluated for pod readiness. A pod "
                              "is ready when all its containers are ready AND all conditions specified in "
                              "the readiness gates have status equal to \"True\" More info: "
                              "https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates",
           priority=1),
]

# Finished pods carry a row condition so clients can hide or grey them out.
SUCCEEDED = [{"type": "Completed", "status": "True", "reason": "Succeeded",
              "message": "The pod has completed successfully."}]
FAILED = [{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}]


@dataclass(frozen=True, slots=True)
class Restarts:
    """Renders "N (5m ago)" once the request time is known."""

    count: int

    def __call__(self, seconds: float | None) -> str:
        return f"{self.count} ({elapsed(seconds)} ago)"


def _later(current: float | None, state: State) -> float | None:
    """The later of `current` and the finish time of a container's last termination."""
    if state.terminated is None:
        return current
    finished = epoch(state.terminated.finishedAt)
    if finished is None or current is not None and finished <= current:
        return current
    return finished


def _condition_true(conditions: list[Condition], kind: str) -> bool:
    """Whether the first condition of this type is True."""
    for condition in conditions:
        if condition.type == kind:
            return condition.status == "True"
    return False


def pod_row(pod: Pod) -> Row:
    spec, status = pod.spec, pod.status
    reason = status.reason or status.phase
    for condition in status.conditions:
        if condition.type == "PodScheduled" and condition.reason == "SchedulingGated":
            reason = "SchedulingGated"

    # Sidecars (init containers that restart always) count as containers of the pod.
    sidecars = {c.name for c in spec.initContainers if c.restartPolicy == "Always"}
    total = len(spec.containers) + sum(1 for c in spec.initContainers if c.restartPolicy == "Always")
    ready = 0
    restarts = sidecar_restarts = 0
    last_restart: float | None = None
    last_sidecar_restart: float | None = None

    initializing = False
    for index, container in enumerate(status.initContainerStatuses):
        restarts += container.restartCount
        last_restart = _later(last_restart, container.lastState)
        is_sidecar = container.name in sidecars
        if is_sidecar:
            sidecar_restarts += container.restartCount
            last_sidecar_restart = _later(last_sidecar_restart, container.lastState)
        terminated, waiting = container.state.terminated, container.state.waiting
        if terminated is not None and terminated.exitCode == 0:
            continue
        if is_sidecar and container.started:
            if container.ready:
                ready += 1
            continue
        if terminated is not None:
            if terminated.reason:
                reason = "Init:" + terminated.reason
            elif terminated.signal:
                reason = f"Init:Signal:{terminated.signal}"
            else:
                reason = f"Init:ExitCode:{terminated.exitCode}"
        elif waiting is not None and waiting.reason and waiting.reason != "PodInitializing":
            reason = "Init:" + waiting.reason
        else:
            reason = f"Init:{index}/{len(spec.initContainers)}"
        initializing = True
        break

    if not initializing or _condition_true(status.conditions, "Initialized"):
        restarts, last_restart = sidecar_restarts, last_sidecar_restart
        running = False
        for container in reversed(status.containerStatuses):
            restarts += container.restartCount
            last_restart = _later(last_restart, container.lastState)
            terminated, waiting = container.state.terminated, container.state.waiting
            if waiting is not None and waiting.reason:
                reason = waiting.reason
            elif terminated is not None and terminated.reason:
                reason = terminated.reason
            elif terminated is not None:
                reason = f"Signal:{terminated.signal}" if terminated.signal else f"ExitCode:{terminated.exitCode}"
            elif container.ready and container.state.running is not None:
                running = True
                ready += 1
        if reason == "Completed" and running:
            ready_condition = any(c.type == "Ready" and c.status == "True" for c in status.conditions)
            reason = "Running" if ready_condition else "NotReady"

    if pod.metadata.deletionTimestamp is not None:
        if status.reason == "NodeLost":
            reason = "Unknown"
        elif status.phase not in ("Succeeded", "Failed"):
            reason = "Terminating"

    restart_cell: str | Since = str(restarts)
    if restarts and last_restart is not None:
        restart_cell = Since(last_restart, Restarts(restarts))

    # Upstream reads the pod's IPs after conversion, where a set podIP wins over podIPs.
    ip = status.podIP or (status.podIPs[0].ip if status.podIPs else "")
    gates = NONE
    if spec.readinessGates:
        true = 0
        for gate in spec.readinessGates:
            for condition in status.conditions:
                if condition.type == gate.conditionType:
                    true += condition.status == "True"
                    break
        gates = f"{true}/{len(spec.readinessGates)}"

    conditions: list[dict[str, Any]] | None = None
    if status.phase == "Succeeded":
        conditions = SUCCEEDED
    elif status.phase == "Failed":
        conditions = FAILED
    cells: list[Cell] = [pod.metadata.name, f"{ready}/{total}", reason, restart_cell, since(pod.metadata.creationTimestamp),
             ip or NONE, spec.nodeName or NONE, status.nominatedNodeName or NONE, gates]
    return Row(cells, conditions)


PODS = printer(COLUMNS, Pod, pod_row)
