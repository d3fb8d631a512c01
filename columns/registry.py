"""Which printer a built-in kind gets: its own, or upstream's default of Name and Created At."""

from __future__ import annotations

import datetime

from columns import apps, batch, core, events, networking, other, pods, storage
from columns.base import Printer, Row
from columns.declare import CREATED_DESCRIPTION, Named, column, name_column, printer
from columns.format import epoch


def created_at(timestamp: str | None) -> str:
    """The creation time in RFC 3339, whole seconds in UTC; Go's zero time when absent."""
    at = epoch(timestamp)
    if at is None:
        return "0001-01-01T00:00:00Z"
    return datetime.datetime.fromtimestamp(at, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# Kinds without a printer of their own (CustomResourceDefinitions among them) show the absolute
# creation time, not an age: a "date" column clients may render as they like.
DEFAULT = printer(
    [name_column(), column("Created At", CREATED_DESCRIPTION, type="date")],
    Named,
    lambda obj: Row([obj.metadata.name, created_at(obj.metadata.creationTimestamp)]),
)

PRINTERS: dict[tuple[str, str], Printer] = {
    ("", "Pod"): pods.PODS,
    ("", "Namespace"): core.NAMESPACES,
    ("", "ConfigMap"): core.CONFIG_MAPS,
    ("", "Secret"): core.SECRETS,
    ("", "ServiceAccount"): core.SERVICE_ACCOUNTS,
    ("", "Service"): core.SERVICES,
    ("", "Endpoints"): core.ENDPOINTS,
    ("", "Node"): core.NODES,
    ("", "Event"): events.EVENTS,
    # events.k8s.io Events are stored as core/v1 Events and printed from those bytes.
    ("events.k8s.io", "Event"): events.EVENTS,
    ("", "PersistentVolume"): storage.PERSISTENT_VOLUMES,
    ("", "PersistentVolumeClaim"): storage.PERSISTENT_VOLUME_CLAIMS,
    ("apps", "Deployment"): apps.DEPLOYMENTS,
    ("apps", "ReplicaSet"): apps.REPLICA_SETS,
    ("apps", "StatefulSet"): apps.STATEFUL_SETS,
    ("apps", "DaemonSet"): apps.DAEMON_SETS,
    ("batch", "Job"): batch.JOBS,
    ("batch", "CronJob"): batch.CRON_JOBS,
    ("networking.k8s.io", "Ingress"): networking.INGRESSES,
    ("networking.k8s.io", "IngressClass"): networking.INGRESS_CLASSES,
    ("discovery.k8s.io", "EndpointSlice"): networking.ENDPOINT_SLICES,
    ("storage.k8s.io", "StorageClass"): storage.STORAGE_CLASSES,
    ("coordination.k8s.io", "Lease"): other.LEASES,
    ("apiregistration.k8s.io", "APIService"): other.API_SERVICES,
}


def printer_for(group: str, kind: str) -> Printer:
    """The printer of a built-in kind, or the default (Name, Created At) for kinds without one."""
    return PRINTERS.get((group, kind), DEFAULT)
