"""Which printer a built-in kind gets: its own, or upstream's default of Name and Created At."""

from __future__ import annotations

import datetime

from columns import (
    admissionregistration,
    apps,
    autoscaling,
    batch,
    certificates,
    core,
    events,
    flowcontrol,
    networking,
    node,
    other,
    pods,
    policy,
    rbac,
    resource,
    scheduling,
    storage,
)
from columns.base import Printer, Row
from columns.declare import CREATED_DESCRIPTION, Named, column, name_column, printer
from columns.format import epoch


def created_at(timestamp: str | None) -> str:
    """The creation time in RFC 3339, whole seconds in UTC; Go's zero time when absent."""
    at = epoch(timestamp)
    if at is None:
        return "0001-01-01T00:00:00Z"
    return datetime.datetime.fromtimestamp(at, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# Kinds without a printer of their own (CustomResourceDefinitions, Roles, ClusterRoles, LimitRanges
# and CSIStorageCapacities among them) show the absolute
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
    ("", "ReplicationController"): core.REPLICATION_CONTROLLERS,
    ("", "PodTemplate"): core.POD_TEMPLATES,
    ("", "ResourceQuota"): core.RESOURCE_QUOTAS,
    ("", "ComponentStatus"): core.COMPONENT_STATUSES,
    ("", "PersistentVolume"): storage.PERSISTENT_VOLUMES,
    ("", "PersistentVolumeClaim"): storage.PERSISTENT_VOLUME_CLAIMS,
    ("apps", "Deployment"): apps.DEPLOYMENTS,
    ("apps", "ReplicaSet"): apps.REPLICA_SETS,
    ("apps", "StatefulSet"): apps.STATEFUL_SETS,
    ("apps", "DaemonSet"): apps.DAEMON_SETS,
    ("apps", "ControllerRevision"): apps.CONTROLLER_REVISIONS,
    ("autoscaling", "HorizontalPodAutoscaler"): autoscaling.HORIZONTAL_POD_AUTOSCALERS,
    ("policy", "PodDisruptionBudget"): policy.POD_DISRUPTION_BUDGETS,
    ("rbac.authorization.k8s.io", "RoleBinding"): rbac.ROLE_BINDINGS,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): rbac.CLUSTER_ROLE_BINDINGS,
    ("batch", "Job"): batch.JOBS,
    ("batch", "CronJob"): batch.CRON_JOBS,
    ("networking.k8s.io", "Ingress"): networking.INGRESSES,
    ("networking.k8s.io", "IngressClass"): networking.INGRESS_CLASSES,
    ("networking.k8s.io", "NetworkPolicy"): networking.NETWORK_POLICIES,
    ("networking.k8s.io", "ServiceCIDR"): networking.SERVICE_CIDRS,
    ("networking.k8s.io", "IPAddress"): networking.IP_ADDRESSES,
    ("discovery.k8s.io", "EndpointSlice"): networking.ENDPOINT_SLICES,
    ("storage.k8s.io", "StorageClass"): storage.STORAGE_CLASSES,
    ("storage.k8s.io", "CSIDriver"): storage.CSI_DRIVERS,
    ("storage.k8s.io", "CSINode"): storage.CSI_NODES,
    ("storage.k8s.io", "VolumeAttachment"): storage.VOLUME_ATTACHMENTS,
    ("storage.k8s.io", "VolumeAttributesClass"): storage.VOLUME_ATTRIBUTES_CLASSES,
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"):
        admissionregistration.VALIDATING_WEBHOOK_CONFIGURATIONS,
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"):
        admissionregistration.MUTATING_WEBHOOK_CONFIGURATIONS,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): admissionregistration.VALIDATING_ADMISSION_POLICIES,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"):
        admissionregistration.VALIDATING_ADMISSION_POLICY_BINDINGS,
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"): admissionregistration.MUTATING_ADMISSION_POLICIES,
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"):
        admissionregistration.MUTATING_ADMISSION_POLICY_BINDINGS,
    ("scheduling.k8s.io", "PriorityClass"): scheduling.PRIORITY_CLASSES,
    ("node.k8s.io", "RuntimeClass"): node.RUNTIME_CLASSES,
    ("certificates.k8s.io", "CertificateSigningRequest"): certificates.CERTIFICATE_SIGNING_REQUESTS,
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): flowcontrol.FLOW_SCHEMAS,
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): flowcontrol.PRIORITY_LEVEL_CONFIGURATIONS,
    ("resource.k8s.io", "DeviceClass"): resource.DEVICE_CLASSES,
    ("resource.k8s.io", "ResourceClaim"): resource.RESOURCE_CLAIMS,
    ("resource.k8s.io", "ResourceClaimTemplate"): resource.RESOURCE_CLAIM_TEMPLATES,
    ("resource.k8s.io", "ResourceSlice"): resource.RESOURCE_SLICES,
    ("coordination.k8s.io", "Lease"): other.LEASES,
    ("apiregistration.k8s.io", "APIService"): other.API_SERVICES,
}


def printer_for(group: str, kind: str) -> Printer:
    """The printer of a built-in kind, or the default (Name, Created At) for kinds without one."""
    return PRINTERS.get((group, kind), DEFAULT)
