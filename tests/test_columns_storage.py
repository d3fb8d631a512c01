"""The PersistentVolume, PersistentVolumeClaim and StorageClass printers against kube-apiserver 1.36.2."""

from __future__ import annotations

import orjson
from columns_golden import cells

from columns import storage


def test_claims_prefer_the_beta_class_annotation_and_show_capacity_once_bound() -> None:
    claim = {"metadata": {"annotations": {"volume.beta.kubernetes.io/storage-class": "old"}},
             "spec": {"storageClassName": "new", "volumeName": "pv"}, "status": {"phase": "Bound"}}
    assert cells(storage.PERSISTENT_VOLUME_CLAIMS, claim)[1:8] == ["Bound", "pv", "0", "", "old", "<unset>",
                                                                "<unknown>"]
    assert cells(storage.PERSISTENT_VOLUMES, {"metadata": {"deletionTimestamp": "2033-01-01T00:00:00Z"}})[1:6] == \
        ["0", "", "", "Terminating", ""]


def test_storage_class_defaults() -> None:
    beta = {"metadata": {"name": "s", "annotations": {"storageclass.beta.kubernetes.io/is-default-class": "true"}}}
    assert storage.STORAGE_CLASSES.row(orjson.dumps(beta)).cells[:5] == ["s (default)", "", "Delete", "Immediate",
                                                                        False]


def test_csi_driver_defaults() -> None:
    # attachRequired defaults to true; an empty token request list does not survive storage, so reads as unset.
    assert cells(storage.CSI_DRIVERS, {"spec": {"tokenRequests": []}})[1:7] == \
        [True, False, False, "<unset>", False, "<none>"]
    assert cells(storage.CSI_DRIVERS, {"spec": {"tokenRequests": [{"audience": "a"}, {"audience": "b"}]}})[4] == "a,b"


def test_volume_attachment_of_an_inline_volume_has_no_pv() -> None:
    attachment = {"spec": {"attacher": "csi.example.com", "nodeName": "n", "source": {"inlineVolumeSpec": {}}}}
    assert cells(storage.VOLUME_ATTACHMENTS, attachment)[1:5] == ["csi.example.com", "", "n", False]


def test_default_volume_attributes_class() -> None:
    vac = {"metadata": {"name": "gold", "annotations": {storage.DEFAULT_ATTRIBUTES_CLASS_ANNOTATION: "true"}}}
    assert cells(storage.VOLUME_ATTRIBUTES_CLASSES, vac)[0] == "gold (default)"
