"""The controller manager: picks controllers as kube-controller-manager's `--controllers` flag does and runs them.

`*` is every controller on by default, `name` turns one on, `-name` turns one off; the first entry
that names a controller decides, and without `*` only named ones run. `-*` (refused upstream) says
so explicitly: alone it runs none, the server exactly as it was without controllers. Names are upstream's (`deployment-controller`), and
the short forms older releases used (`deployment`) are accepted as aliases. `kube-scheduler` is not
a controller upstream but runs here in the same process and is chosen the same way, as are the
simulated nodes' kubelets (`fastkube-simulated-nodes`), which look after `--simulate-nodes` nodes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from apiserver import metrics
from apiserver.controllers.base import Context, Controller
from apiserver.controllers.cronjob import CronJobController
from apiserver.controllers.csrsigning import CSRSigner
from apiserver.controllers.daemonset import DaemonSetController
from apiserver.controllers.deployment import DeploymentController
from apiserver.controllers.disruption import DisruptionController
from apiserver.controllers.endpoints import EndpointsController, EndpointSliceController
from apiserver.controllers.ephemeral import EphemeralVolumes
from apiserver.controllers.garbagecollector import GarbageCollector
from apiserver.controllers.hpa import HorizontalPodAutoscaler
from apiserver.controllers.job import JobController
from apiserver.controllers.kubelet import SimulatedNodes
from apiserver.controllers.nodeipam import NodeIpam
from apiserver.controllers.nodelifecycle import NodeLifecycle
from apiserver.controllers.podgc import PodGarbageCollector
from apiserver.controllers.protection import ClaimProtection, VolumeProtection
from apiserver.controllers.provisioner import SimulatedProvisioner
from apiserver.controllers.pvbinder import PersistentVolumeBinder
from apiserver.controllers.policystatus import ValidatingAdmissionPolicyStatusController
from apiserver.controllers.replicaset import ReplicaSetController
from apiserver.controllers.replicationcontroller import ReplicationManager
from apiserver.controllers.resourcequota import ResourceQuotaController
from apiserver.controllers.rootca import RootCAPublisher
from apiserver.controllers.scheduler import Scheduler
from apiserver.controllers.serviceaccounts import ServiceAccountController
from apiserver.controllers.servicelb import ServiceLoadBalancer
from apiserver.controllers.statefulset import StatefulSetController
from apiserver.controllers.tainteviction import TaintEviction
from apiserver.controllers.ttlafterfinished import TTLAfterFinished

log = logging.getLogger("apiserver.controllers")

Factory = Callable[[Context], Controller]

# In the order they start; each is told its informers before any informer lists.
CONTROLLERS: dict[str, Factory] = {
    ServiceAccountController.name: ServiceAccountController,
    RootCAPublisher.name: RootCAPublisher,
    DeploymentController.name: DeploymentController,
    ReplicaSetController.name: ReplicaSetController,
    ReplicationManager.name: ReplicationManager,
    GarbageCollector.name: GarbageCollector,
    ResourceQuotaController.name: ResourceQuotaController,
    StatefulSetController.name: StatefulSetController,
    DisruptionController.name: DisruptionController,
    DaemonSetController.name: DaemonSetController,
    JobController.name: JobController,
    CronJobController.name: CronJobController,
    TTLAfterFinished.name: TTLAfterFinished,
    ValidatingAdmissionPolicyStatusController.name: ValidatingAdmissionPolicyStatusController,
    EndpointsController.name: EndpointsController,
    EndpointSliceController.name: EndpointSliceController,
    NodeIpam.name: NodeIpam,
    NodeLifecycle.name: NodeLifecycle,
    PodGarbageCollector.name: PodGarbageCollector,
    TaintEviction.name: TaintEviction,
    EphemeralVolumes.name: EphemeralVolumes,
    PersistentVolumeBinder.name: PersistentVolumeBinder,
    ClaimProtection.name: ClaimProtection,
    VolumeProtection.name: VolumeProtection,
    SimulatedProvisioner.name: SimulatedProvisioner,
    ServiceLoadBalancer.name: ServiceLoadBalancer,
    CSRSigner.name: CSRSigner,
    HorizontalPodAutoscaler.name: HorizontalPodAutoscaler,
    Scheduler.name: Scheduler,
    SimulatedNodes.name: SimulatedNodes,
}
DISABLED_BY_DEFAULT: frozenset[str] = frozenset()
# Unless named itself, a controller here runs exactly when the one it follows runs. The simulated
# provisioner makes hostPath volumes on the simulated nodes, so without their kubelets it has nothing
# to do. Node IPAM cuts podCIDRs only under kube-controller-manager's --allocate-node-cidrs (off by
# default; kind turns it on for its nodes), so it comes with the simulated cluster. kube-controller-manager
# alone (test/cmd's set-up: `*,-fastkube-simulated-nodes`) makes no default StorageClass and no podCIDR.
FOLLOWS = {SimulatedProvisioner.name: SimulatedNodes.name, NodeIpam.name: SimulatedNodes.name}
# The short names kube-controller-manager keeps for controllers whose name changed beyond the suffix.
ALIASES = {"persistentvolume-binder": PersistentVolumeBinder.name, "pvc-protection": ClaimProtection.name,
           "pv-protection": VolumeProtection.name, "service": ServiceLoadBalancer.name,
           "csrsigning": CSRSigner.name, "horizontalpodautoscaling": HorizontalPodAutoscaler.name,
           "podgc": PodGarbageCollector.name, "nodeipam": NodeIpam.name,
           "ephemeral-volume": EphemeralVolumes.name}
_SUFFIX = "-controller"


def _canonical(name: str) -> str:
    if name in CONTROLLERS or name == "*":
        return name
    if name + _SUFFIX in CONTROLLERS:
        return name + _SUFFIX
    if name in ALIASES:
        return ALIASES[name]
    raise ValueError(f"{name!r} is not in the list of known controllers: {', '.join(sorted(CONTROLLERS))}")


def enabled_controllers(flag: str) -> list[str]:
    """The controllers a `--controllers` value turns on, in start order; ValueError for an unknown name."""
    entries = [entry.strip() for entry in flag.split(",") if entry.strip()]
    decided: dict[str, bool] = {}
    star = False
    for entry in entries:
        negated = entry.startswith("-")
        name = _canonical(entry[1:] if negated else entry)
        if name == "*":
            star = star or not negated
            continue
        decided.setdefault(name, not negated)
    def enabled(name: str) -> bool:
        if name in decided:
            return decided[name]
        if name in FOLLOWS:
            return enabled(FOLLOWS[name])
        return star and name not in DISABLED_BY_DEFAULT

    return [name for name in CONTROLLERS if enabled(name)]


class ControllerManager:
    def __init__(self, ctx: Context, names: list[str]) -> None:
        self.ctx = ctx
        ctx.enabled = tuple(names)
        self.controllers = [CONTROLLERS[name](ctx) for name in names]
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def started(self) -> bool:
        return bool(self._tasks)

    def start(self) -> None:
        if not self.controllers or self.started:
            return
        self.ctx.informers.start()
        for controller in self.controllers:
            self._tasks.append(asyncio.create_task(controller.run(), name=controller.name))
        metrics.CONTROLLER_BACKLOG.source = self.backlog
        log.info("controllers running: %s", ", ".join(c.name for c in self.controllers))

    def backlog(self) -> metrics.Backlog:
        return {c.name: c.queue.unfinished() for c in self.controllers}, self.ctx.informers.backlogs()

    async def stop(self) -> None:
        if metrics.CONTROLLER_BACKLOG.source == self.backlog:
            metrics.CONTROLLER_BACKLOG.source = None
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for controller in self.controllers:
            await controller.close()
        await self.ctx.informers.stop()


class LeaderControllers:
    """The controllers of a server that runs them only while it holds the leader Lease, as
    kube-controller-manager: a fresh manager (new informers, empty queues) each time the server is
    elected, stopped when the Lease is lost, so two servers never drive the same objects at once.
    Starts and stops run in the order they were asked for."""

    def __init__(self, build: Callable[[], ControllerManager]) -> None:
        self._build = build
        self._current: ControllerManager | None = None
        self._lock = asyncio.Lock()
        self._pending: set[asyncio.Task[None]] = set()

    def elected(self) -> None:
        self._spawn(self._start())

    def lost(self) -> None:
        self._spawn(self.stop())

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    def start(self) -> None:
        """Starts at once; for a server that runs its controllers without an election."""
        if self._current is None:
            self._current = self._build()
            self._current.start()

    async def _start(self) -> None:
        async with self._lock:
            self.start()

    async def stop(self) -> None:
        async with self._lock:
            current, self._current = self._current, None
            if current is not None:
                await current.stop()
                log.info("controllers stopped")
