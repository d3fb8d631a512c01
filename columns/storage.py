"""Printers for PersistentVolumes, PersistentVolumeClaims (core/v1) and storage.k8s.io/v1 StorageClasses,
CSIDrivers, CSINodes, VolumeAttachments and VolumeAttributesClasses (CSIStorageCapacities have none)."""

from __future__ import annotations

import msgspec

from columns.base import Row
from columns.declare import AnnotatedMeta, Entry, Meta, age_column, column, name_column, printer
from columns.format import NONE, UNSET, access_modes, canonical_quantity, since

BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"


class ClaimRef(msgspec.Struct):
    namespace: str = ""
    name: str = ""


class VolumeSpec(msgspec.Struct):
    capacity: dict[str, str | int | float] = {}
    accessModes: list[str] = []
    persistentVolumeReclaimPolicy: str = ""
    claimRef: ClaimRef | None = None
    storageClassName: str = ""
    volumeAttributesClassName: str | None = None
    volumeMode: str | None = None


class VolumeStatus(msgspec.Struct):
    phase: str = ""
    reason: str = ""


class PersistentVolume(msgspec.Struct):
    metadata: AnnotatedMeta = msgspec.field(default_factory=AnnotatedMeta)
    spec: VolumeSpec = msgspec.field(default_factory=VolumeSpec)
    status: VolumeStatus = msgspec.field(default_factory=VolumeStatus)


def volume_row(pv: PersistentVolume) -> Row:
    spec, meta = pv.spec, pv.metadata
    claim = f"{spec.claimRef.namespace}/{spec.claimRef.name}" if spec.claimRef is not None else ""
    phase = "Terminating" if meta.deletionTimestamp is not None else pv.status.phase
    storage_class = meta.annotations.get(BETA_STORAGE_CLASS, spec.storageClassName)
    return Row([meta.name, canonical_quantity(str(spec.capacity.get("storage", 0))), access_modes(spec.accessModes),
                spec.persistentVolumeReclaimPolicy, phase, claim, storage_class,
                UNSET if spec.volumeAttributesClassName is None else spec.volumeAttributesClassName,
                pv.status.reason, since(meta.creationTimestamp),
                UNSET if spec.volumeMode is None else spec.volumeMode])


PERSISTENT_VOLUMES = printer(
    [name_column(),
     column("Capacity", "capacity is the description of the persistent volume's resources and capacity. More "
                        "info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity"),
     column("Access Modes", "accessModes contains all ways the volume can be mounted. More info: "
                            "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes"),
     column("Reclaim Policy", "persistentVolumeReclaimPolicy defines what happens to a persistent volume when "
                              "released from its claim. Valid options are Retain (default for manually created "
                              "PersistentVolumes), Delete (default for dynamically provisioned "
                              "PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the "
                              "volume plugin underlying this PersistentVolume. More info: "
                              "https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming"),
     column("Status", "phase indicates if a volume is available, bound to a claim, or released by a claim. "
                      "More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase"),
     column("Claim", "claimRef is part of a bi-directional binding between PersistentVolume and "
                     "PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the "
                     "authoritative bind between PV and PVC. More info: "
                     "https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding"),
     column("StorageClass", "StorageClass of the pv"),
     column("VolumeAttributesClass", "VolumeAttributesClass of the pv"),
     column("Reason", "reason is a brief CamelCase string that describes any failure and is meant for machine "
                      "parsing and tidy display in the CLI."),
     age_column(),
     column("VolumeMode", "volumeMode defines if a volume is intended to be used with a formatted filesystem "
                          "or to remain in raw block state. Value of Filesystem is implied when not included in "
                          "spec.", priority=1)],
    PersistentVolume,
    volume_row,
)


class ClaimSpec(msgspec.Struct):
    volumeName: str = ""
    storageClassName: str | None = None
    volumeAttributesClassName: str | None = None
    volumeMode: str | None = None


class ClaimStatus(msgspec.Struct):
    phase: str = ""
    accessModes: list[str] = []
    capacity: dict[str, str | int | float] = {}


class PersistentVolumeClaim(msgspec.Struct):
    metadata: AnnotatedMeta = msgspec.field(default_factory=AnnotatedMeta)
    spec: ClaimSpec = msgspec.field(default_factory=ClaimSpec)
    status: ClaimStatus = msgspec.field(default_factory=ClaimStatus)


def claim_row(pvc: PersistentVolumeClaim) -> Row:
    spec, meta = pvc.spec, pvc.metadata
    phase = "Terminating" if meta.deletionTimestamp is not None else pvc.status.phase
    capacity = modes = ""
    # Capacity and access modes are the bound volume's, so only shown once bound.
    if spec.volumeName:
        modes = access_modes(pvc.status.accessModes)
        capacity = canonical_quantity(str(pvc.status.capacity.get("storage", 0)))
    storage_class = meta.annotations.get(BETA_STORAGE_CLASS, spec.storageClassName or "")
    return Row([meta.name, phase, spec.volumeName, capacity, modes, storage_class,
                UNSET if spec.volumeAttributesClassName is None else spec.volumeAttributesClassName,
                since(meta.creationTimestamp), UNSET if spec.volumeMode is None else spec.volumeMode])


PERSISTENT_VOLUME_CLAIMS = printer(
    [name_column(),
     column("Status", "phase represents the current phase of PersistentVolumeClaim."),
     column("Volume", "volumeName is the binding reference to the PersistentVolume backing this claim."),
     column("Capacity", "capacity represents the actual resources of the underlying volume."),
     column("Access Modes", "accessModes contains the actual access modes the volume backing the PVC has. More "
                            "info: https://kubernetes.io/docs/concepts/storage/persistent-volumes"
                            "#access-modes-1"),
     column("StorageClass", "StorageClass of the pvc"),
     column("VolumeAttributesClass", "VolumeAttributesClass of the pvc"),
     age_column(),
     column("VolumeMode", "volumeMode defines what type of volume is required by the claim. Value of "
                          "Filesystem is implied when not included in claim spec.", priority=1)],
    PersistentVolumeClaim,
    claim_row,
)


DEFAULT_CLASS_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class",
                             "storageclass.beta.kubernetes.io/is-default-class")


class StorageClass(msgspec.Struct):
    metadata: AnnotatedMeta = msgspec.field(default_factory=AnnotatedMeta)
    provisioner: str = ""
    reclaimPolicy: str | None = None
    volumeBindingMode: str | None = None
    allowVolumeExpansion: bool | None = None


def storage_class_row(sc: StorageClass) -> Row:
    name = sc.metadata.name
    if any(sc.metadata.annotations.get(key) == "true" for key in DEFAULT_CLASS_ANNOTATIONS):
        name += " (default)"
    return Row([name, sc.provisioner, sc.reclaimPolicy or "Delete", sc.volumeBindingMode or "Immediate",
                bool(sc.allowVolumeExpansion), since(sc.metadata.creationTimestamp)])


STORAGE_CLASSES = printer(
    [name_column(),
     column("Provisioner", "provisioner indicates the type of the provisioner."),
     column("ReclaimPolicy", "reclaimPolicy controls the reclaimPolicy for dynamically provisioned "
                             "PersistentVolumes of this storage class. Defaults to Delete."),
     column("VolumeBindingMode", "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned "
                                 "and bound.  When unset, VolumeBindingImmediate is used. This field is only "
                                 "honored by servers that enable the VolumeScheduling feature."),
     column("AllowVolumeExpansion", "allowVolumeExpansion shows whether the storage class allow volume expand."),
     age_column()],
    StorageClass,
    storage_class_row,
)


class TokenRequest(msgspec.Struct):
    audience: str = ""


class CSIDriverSpec(msgspec.Struct):
    attachRequired: bool | None = None
    podInfoOnMount: bool | None = None
    storageCapacity: bool | None = None
    tokenRequests: list[TokenRequest] | None = None
    requiresRepublish: bool | None = None
    volumeLifecycleModes: list[str] = []


class CSIDriver(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: CSIDriverSpec = msgspec.field(default_factory=CSIDriverSpec)


def csi_driver_row(driver: CSIDriver) -> Row:
    spec = driver.spec
    # Stored objects lose an empty list (protobuf), so no token requests reads as unset.
    tokens = ",".join(t.audience for t in spec.tokenRequests) if spec.tokenRequests else UNSET
    attach = True if spec.attachRequired is None else spec.attachRequired
    return Row([driver.metadata.name, attach, bool(spec.podInfoOnMount), bool(spec.storageCapacity), tokens,
                bool(spec.requiresRepublish), ",".join(spec.volumeLifecycleModes) or NONE,
                since(driver.metadata.creationTimestamp)])


CSI_DRIVERS = printer(
    [name_column(),
     column("AttachRequired",
            "attachRequired indicates this CSI volume driver requires an attach operation (because it implements "
            "the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call "
            "the attach volume interface which checks the volumeattachment status and waits until the volume is "
            "attached before proceeding to mounting. The CSI external-attacher coordinates with CSI volume driver "
            "and updates the volumeattachment status when the attach operation is complete. If the value is "
            "specified to false, the attach operation will be skipped. Otherwise the attach operation will be "
            "called.\n\nThis field is immutable.", type="boolean"),
     column("PodInfoOnMount",
            "podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, "
            "podUID, etc.) during mount operations, if set to true. If set to false, pod information will not be "
            "passed on mount. Default is false.\n\nThe CSI driver specifies podInfoOnMount as part of driver "
            "deployment. If true, Kubelet will pass pod information as VolumeContext in the CSI "
            "NodePublishVolume() calls. The CSI driver is responsible for parsing and validating the information "
            "passed in as VolumeContext.\n\nThe following VolumeContext will be passed if podInfoOnMount is set "
            "to true. This list might grow, but the prefix will be used. \"csi.storage.k8s.io/pod.name\": "
            "pod.Name \"csi.storage.k8s.io/pod.namespace\": pod.Namespace \"csi.storage.k8s.io/pod.uid\": "
            "string(pod.UID) \"csi.storage.k8s.io/ephemeral\": \"true\" if the volume is an ephemeral inline "
            "volume\n                                defined by a CSIVolumeSource, otherwise \"false\"\n\n"
            "\"csi.storage.k8s.io/ephemeral\" is a new feature in Kubernetes 1.16. It is only required for drivers "
            "which support both the \"Persistent\" and \"Ephemeral\" VolumeLifecycleMode. Other drivers can "
            "leave pod info disabled and/or ignore this field. As Kubernetes 1.15 doesn't support this field, "
            "drivers can only support one mode when deployed on such a cluster and the deployment determines which "
            "mode that is, for example via a command line parameter of the driver.\n\nThis field was immutable in "
            "Kubernetes < 1.29 and now is mutable.", type="boolean"),
     column("StorageCapacity",
            "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage "
            "capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity "
            "information, if set to true.\n\nThe check can be enabled immediately when deploying a driver. In "
            "that case, provisioning new volumes with late binding will pause until the driver deployment has "
            "published some suitable CSIStorageCapacity object.\n\nAlternatively, the driver can be deployed "
            "with the field unset or false and it can be flipped later when storage capacity information has been "
            "published.\n\nThis field was immutable in Kubernetes <= 1.22 and now is mutable.", type="boolean"),
     column("TokenRequests",
            "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for "
            "to do necessary authentication. Kubelet will pass the tokens in VolumeContext in the CSI "
            "NodePublishVolume calls. The CSI driver should parse and validate the following VolumeContext: "
            "\"csi.storage.k8s.io/serviceAccount.tokens\": {\n  \"<audience>\": {\n    \"token\": <token>,\n"
            "    \"expirationTimestamp\": <expiration timestamp in RFC3339>,\n  },\n  ...\n}\n\nNote: Audience "
            "in each TokenRequest should be different and at most one token is empty string. To receive a new "
            "token after expiry, RequiresRepublish can be used to trigger NodePublishVolume periodically."),
     column("RequiresRepublish",
            "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to "
            "reflect any possible change in the mounted volume. This field defaults to false.\n\nNote: After a "
            "successful initial NodePublishVolume call, subsequent calls to NodePublishVolume should only update "
            "the contents of the volume. New mount points will not be seen by a running container.",
            type="boolean"),
     column("Modes",
            "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. The default if the "
            "list is empty is \"Persistent\", which is the usage defined by the CSI specification and implemented "
            "in Kubernetes via the usual PV/PVC mechanism.\n\nThe other mode is \"Ephemeral\". In this mode, "
            "volumes are defined inline inside the pod spec with CSIVolumeSource and their lifecycle is tied to "
            "the lifecycle of that pod. A driver has to be aware of this because it is only going to get a "
            "NodePublishVolume call for such a volume.\n\nFor more information about implementing this mode, see "
            "https://kubernetes-csi.github.io/docs/ephemeral-local-volumes.html A driver can support one or more "
            "of these modes and more modes may be added in the future.\n\nThis field is beta. This field is "
            "immutable."),
     age_column()],
    CSIDriver,
    csi_driver_row,
)


class CSINodeSpec(msgspec.Struct):
    drivers: list[Entry] | None = None  # Go writes a node without drivers as null


class CSINode(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: CSINodeSpec = msgspec.field(default_factory=CSINodeSpec)


CSI_NODES = printer(
    [name_column(),
     column("Drivers", "Drivers indicates the number of CSI drivers registered on the node", type="integer"),
     age_column()],
    CSINode,
    lambda node: Row([node.metadata.name, len(node.spec.drivers or []), since(node.metadata.creationTimestamp)]),
)


class AttachmentSource(msgspec.Struct):
    persistentVolumeName: str | None = None


class AttachmentSpec(msgspec.Struct):
    attacher: str = ""
    source: AttachmentSource = msgspec.field(default_factory=AttachmentSource)
    nodeName: str = ""


class AttachmentStatus(msgspec.Struct):
    attached: bool = False


class VolumeAttachment(msgspec.Struct):
    metadata: Meta = msgspec.field(default_factory=Meta)
    spec: AttachmentSpec = msgspec.field(default_factory=AttachmentSpec)
    status: AttachmentStatus = msgspec.field(default_factory=AttachmentStatus)


def volume_attachment_row(va: VolumeAttachment) -> Row:
    spec = va.spec
    return Row([va.metadata.name, spec.attacher, spec.source.persistentVolumeName or "", spec.nodeName,
                va.status.attached, since(va.metadata.creationTimestamp)])


VOLUME_ATTACHMENTS = printer(
    [name_column(),
     column("Attacher", "attacher indicates the name of the volume driver that MUST handle this request. This is "
                        "the name returned by GetPluginName().", format="name"),
     column("PV", "persistentVolumeName represents the name of the persistent volume to attach."),
     column("Node", "nodeName represents the node that the volume should be attached to."),
     column("Attached", "attached indicates the volume is successfully attached. This field must only be set by the "
                        "entity completing the attach operation, i.e. the external-attacher.", type="boolean"),
     age_column()],
    VolumeAttachment,
    volume_attachment_row,
)

DEFAULT_ATTRIBUTES_CLASS_ANNOTATION = "volumeattributesclass.alpha.kubernetes.io/is-default-class"


class VolumeAttributesClass(msgspec.Struct):
    metadata: AnnotatedMeta = msgspec.field(default_factory=AnnotatedMeta)
    driverName: str = ""


def volume_attributes_class_row(vac: VolumeAttributesClass) -> Row:
    name = vac.metadata.name
    if vac.metadata.annotations.get(DEFAULT_ATTRIBUTES_CLASS_ANNOTATION) == "true":
        name += " (default)"
    return Row([name, vac.driverName, since(vac.metadata.creationTimestamp)])


VOLUME_ATTRIBUTES_CLASSES = printer(
    [name_column(), column("DriverName", "Name of the CSI driver This field is immutable."), age_column()],
    VolumeAttributesClass,
    volume_attributes_class_row,
)
