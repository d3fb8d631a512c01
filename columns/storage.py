"""Printers for PersistentVolumes, PersistentVolumeClaims (core/v1) and StorageClasses (storage.k8s.io/v1)."""

from __future__ import annotations

import msgspec

from columns.base import Row
from columns.declare import AnnotatedMeta, age_column, column, name_column, printer
from columns.format import UNSET, access_modes, canonical_quantity, since

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
