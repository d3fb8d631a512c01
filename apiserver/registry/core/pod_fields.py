"""The pod spec fields of features off at 1.36's defaults, dropped as pkg/api/pod/util.go's
dropDisabledFields drops them (DropDisabledPodFields, DropDisabledTemplateFields): on create, and on
update unless the old spec already used them. Every strategy holding a pod spec calls it from its
PrepareForCreate and PrepareForUpdate.

Off at 1.36: ContainerStopSignals, ClusterTrustBundleProjection, PodCertificateRequest, GenericWorkload.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

Obj = dict[str, Any]

_CONTAINER_KEYS = ("initContainers", "containers", "ephemeralContainers")


def _containers(spec: Obj) -> Iterator[Obj]:
    for key in _CONTAINER_KEYS:
        for c in spec.get(key) or ():
            if isinstance(c, dict):
                yield c


def _projections(spec: Obj) -> Iterator[Obj]:
    for volume in spec.get("volumes") or ():
        projected = (volume or {}).get("projected") if isinstance(volume, dict) else None
        for source in (projected or {}).get("sources") or () if isinstance(projected, dict) else ():
            if isinstance(source, dict):
                yield source


def _stop_signal_in_use(spec: Obj) -> bool:
    return any(isinstance(c.get("lifecycle"), dict) and c["lifecycle"].get("stopSignal") is not None
               for c in _containers(spec))


def _projection_in_use(spec: Obj, key: str) -> bool:
    return any(source.get(key) is not None for source in _projections(spec))


def drop_disabled_pod_fields(spec: Any, old_spec: Any = None) -> None:
    """dropDisabledFields for the features off at 1.36 (old_spec: None on create)."""
    if not isinstance(spec, dict):
        return
    old = old_spec if isinstance(old_spec, dict) else {}
    if not _stop_signal_in_use(old):
        for c in _containers(spec):
            hooks = c.get("lifecycle")
            if isinstance(hooks, dict) and hooks.get("stopSignal") is not None:
                del hooks["stopSignal"]
                if not any(hooks.get(k) is not None for k in ("postStart", "preStop")):
                    del c["lifecycle"]
    for key in ("clusterTrustBundle", "podCertificate"):
        if not _projection_in_use(old, key):
            for source in _projections(spec):
                source.pop(key, None)
    if old.get("schedulingGroup") is None:
        spec.pop("schedulingGroup", None)
