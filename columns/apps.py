"""Printers for apps/v1: Deployments, ReplicaSets, StatefulSets, DaemonSets and ControllerRevisions."""

from __future__ import annotations

import msgspec

from columns.base import Row
from columns.declare import Meta, age_column, column, name_column, printer, template_columns
from columns.format import (
    INVALID,
    NONE,
    Container,
    LabelSelector,
    SelectorError,
    container_cells,
    format_label_selector,
    format_labels,
    selector_string,
    since,
)


class PodTemplateSpec(msgspec.Struct):
    containers: list[Container] = []
    nodeSelector: dict[str, str] = {}


class PodTemplate(msgspec.Struct):
    spec: PodTemplateSpec = msgspec.field(default_factory=PodTemplateSpec)


class WorkloadSpec(msgspec.Struct):
    replicas: int = 0
    selector: LabelSelector | None = None
    template: PodTemplate = msgspec.field(default_factory=PodTemplate)


class WorkloadStatus(msgspec.Struct):
    replicas: int = 0
    readyReplicas: int = 0
    updatedReplicas: int = 0
    availableReplicas: int = 0
    desiredNumberScheduled: int = 0
    currentNumberScheduled: int = 0
    numberReady: int = 0
    updatedNumberScheduled: int = 0
    numberAvailable: int = 0


class Workload(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: WorkloadSpec = msgspec.field(default_factory=WorkloadSpec)
    status: WorkloadStatus = msgspec.field(default_factory=WorkloadStatus)


READY = "Number of the pod with ready state"


def deployment_row(d: Workload) -> Row:
    # Unlike the other workloads, a Deployment prints an empty selector as "" and a bad one as <invalid>.
    try:
        selector = selector_string(d.spec.selector)
    except SelectorError:
        selector = INVALID
    names, images = container_cells(d.spec.template.spec.containers)
    return Row([d.metadata.name, f"{d.status.readyReplicas}/{d.spec.replicas}", d.status.updatedReplicas,
                d.status.availableReplicas, since(d.metadata.creationTimestamp), names, images, selector])


DEPLOYMENTS = printer(
    [name_column(), column("Ready", READY),
     column("Up-to-date", "Total number of non-terminating pods targeted by this deployment that have the "
                          "desired template spec."),
     column("Available", "Total number of available non-terminating pods (ready for at least minReadySeconds) "
                         "targeted by this deployment."),
     age_column(),
     *template_columns("Label selector for pods. Existing ReplicaSets whose pods are selected by this will be "
                       "the ones affected by this deployment. It must match the pod template's labels.")],
    Workload,
    deployment_row,
)


def replica_set_row(rs: Workload) -> Row:
    names, images = container_cells(rs.spec.template.spec.containers)
    return Row([rs.metadata.name, rs.spec.replicas, rs.status.replicas, rs.status.readyReplicas,
                since(rs.metadata.creationTimestamp), names, images, format_label_selector(rs.spec.selector)])


REPLICA_SETS = printer(
    [name_column(),
     column("Desired", "Replicas is the number of desired pods. This is a pointer to distinguish between "
                       "explicit zero and unspecified. Defaults to 1. More info: "
                       "https://kubernetes.io/docs/concepts/workloads/controllers/replicaset", type="integer"),
     column("Current", "Replicas is the most recently observed number of non-terminating pods. More info: "
                       "https://kubernetes.io/docs/concepts/workloads/controllers/replicaset", type="integer"),
     column("Ready", "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.",
            type="integer"),
     age_column(),
     *template_columns("Selector is a label query over pods that should match the replica count. Label keys "
                       "and values that must match in order to be controlled by this replica set. It must match "
                       "the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/"
                       "working-with-objects/labels/#label-selectors")],
    Workload,
    replica_set_row,
)


def stateful_set_row(sts: Workload) -> Row:
    names, images = container_cells(sts.spec.template.spec.containers)
    return Row([sts.metadata.name, f"{sts.status.readyReplicas}/{sts.spec.replicas}",
                since(sts.metadata.creationTimestamp), names, images])


STATEFUL_SETS = printer(
    [name_column(), column("Ready", READY), age_column(), *template_columns(None)],
    Workload,
    stateful_set_row,
)


def daemon_set_row(ds: Workload) -> Row:
    status = ds.status
    names, images = container_cells(ds.spec.template.spec.containers)
    return Row([ds.metadata.name, status.desiredNumberScheduled, status.currentNumberScheduled,
                status.numberReady, status.updatedNumberScheduled, status.numberAvailable,
                format_labels(ds.spec.template.spec.nodeSelector), since(ds.metadata.creationTimestamp),
                names, images, format_label_selector(ds.spec.selector)])


_DAEMONS = "More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"

DAEMON_SETS = printer(
    [name_column(),
     column("Desired", "The total number of nodes that should be running the daemon pod (including nodes "
                       f"correctly running the daemon pod). {_DAEMONS}", type="integer"),
     column("Current", "The number of nodes that are running at least 1 daemon pod and are supposed to run the "
                       f"daemon pod. {_DAEMONS}", type="integer"),
     column("Ready", "numberReady is the number of nodes that should be running the daemon pod and have one or "
                     "more of the daemon pod running with a Ready Condition.", type="integer"),
     column("Up-to-date", "The total number of nodes that are running updated daemon pod", type="integer"),
     column("Available", "The number of nodes that should be running the daemon pod and have one or more of "
                         "the daemon pod running and available (ready for at least spec.minReadySeconds)",
            type="integer"),
     column("Node Selector", "NodeSelector is a selector which must be true for the pod to fit on a node. "
                             "Selector which must match a node's labels for the pod to be scheduled on that "
                             "node. More info: https://kubernetes.io/docs/concepts/configuration/"
                             "assign-pod-node/"),
     age_column(),
     *template_columns("A label query over pods that are managed by the daemon set. Must match in order to be "
                       "controlled. It must match the pod template's labels. More info: https://kubernetes.io/"
                       "docs/concepts/overview/working-with-objects/labels/#label-selectors")],
    Workload,
    daemon_set_row,
)


class OwnerReference(msgspec.Struct):
    apiVersion: str = ""
    kind: str = ""
    name: str = ""
    controller: bool | None = None


class OwnedMeta(Meta):
    ownerReferences: list[OwnerReference] = []


class ControllerRevision(msgspec.Struct):
    metadata: OwnedMeta = msgspec.field(default_factory=OwnedMeta)
    revision: int = 0


def controller_name(owners: list[OwnerReference]) -> str:
    """The controlling owner as "kind.group/name" in lower case (no ".group" for core), `<none>` without one."""
    for owner in owners:
        if owner.controller:
            # Only the group matters here: "apps/v1" is group "apps", "v1" the core group.
            group = owner.apiVersion.split("/", 1)[0] if "/" in owner.apiVersion else ""
            if not group and not owner.kind:
                return owner.name
            kind = f"{owner.kind}.{group}" if group else owner.kind
            return f"{kind.lower()}/{owner.name}"
    return NONE


CONTROLLER_REVISIONS = printer(
    [name_column(), column("Controller", "Controller of the object"),
     column("Revision", "Revision indicates the revision of the state represented by Data."), age_column()],
    ControllerRevision,
    lambda cr: Row([cr.metadata.name, controller_name(cr.metadata.ownerReferences), cr.revision,
                    since(cr.metadata.creationTimestamp)]),
)
