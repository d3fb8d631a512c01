"""pkg/api/pod/warnings.go's warningsForOverlappingVirtualPaths: a ConfigMap, Secret, DownwardAPI or
projected volume whose items write two files to the same path, or one inside another (the kubelet then
fails with "is directory" or "file exists"), is warned of, naming both paths and where each came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apiserver.registry.field import go_quote

Obj = dict[str, Any]
# The projection sources, in the order upstream's switch tries them, and how each shows its name.
_PROJECTION_FIELDS = ("secret", "downwardAPI", "configMap", "serviceAccountToken", "clusterTrustBundle",
                      "podCertificate")


@dataclass(frozen=True)
class _Path:
    path: str
    source: str

    def __str__(self) -> str:
        quoted = go_quote(self.path)
        return f"{quoted} ({self.source})" if self.source else quoted


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _items(source: Obj, label: str) -> list[_Path]:
    return [_Path(str(_dict(item).get("path") or ""), label) for item in source.get("items") or ()]


def _overlapping(haystack: list[_Path], needle: _Path) -> list[_Path]:
    """checkForOverlap: the earlier paths equal to the new one, or holding it, or held by it."""
    if not needle.path:
        return []
    return [item for item in haystack if item.path and (
        item == needle or (item.path + "/").startswith(needle.path + "/")
        or (needle.path + "/").startswith(item.path + "/"))]


def _within(paths: list[_Path]) -> list[str]:
    """checkVolumeMappingForOverlap: each path against those before it, trailing slashes trimmed."""
    found: list[str] = []
    seen: list[_Path] = []
    for ps in paths:
        ps = _Path(ps.path.rstrip("/"), ps.source)
        found += [f"{ps} with {other}" for other in _overlapping(seen, ps)]
        seen.append(ps)
    return found


def _projected_paths(source: Obj) -> list[_Path]:
    """The paths one projection source writes, as upstream's switch finds them (first match wins)."""
    if isinstance(source.get("configMap"), dict) and source["configMap"].get("items") is not None:
        return _items(source["configMap"], f"ConfigMap {go_quote(str(source['configMap'].get('name') or ''))}")
    if isinstance(source.get("secret"), dict) and source["secret"].get("items") is not None:
        return _items(source["secret"], f"Secret {go_quote(str(source['secret'].get('name') or ''))}")
    if isinstance(source.get("downwardAPI"), dict) and source["downwardAPI"].get("items") is not None:
        return _items(source["downwardAPI"], "DownwardAPI")
    if isinstance(source.get("serviceAccountToken"), dict):
        return [_Path(str(source["serviceAccountToken"].get("path") or ""), "ServiceAccountToken")]
    if isinstance(source.get("clusterTrustBundle"), dict):
        bundle = source["clusterTrustBundle"]
        name = bundle.get("name") if bundle.get("name") is not None else bundle.get("signerName")
        return [_Path(str(bundle.get("path") or ""), f"ClusterTrustBundle {go_quote(str(name or ''))}")]
    if isinstance(source.get("podCertificate"), dict):
        certificate = source["podCertificate"]
        return [_Path(str(certificate[key]), label) for key, label in (
            ("certificateChainPath", "PodCertificate chain"), ("keyPath", "PodCertificate key"),
            ("credentialBundlePath", "PodCertificate credential bundle")) if certificate.get(key)]
    return []


def overlapping_paths(volumes: list[Any]) -> list[str]:
    """The warnings of a pod spec's volumes, in upstream's order."""
    found: list[str] = []
    for volume in volumes:
        volume = _dict(volume)
        name = go_quote(str(volume.get("name") or ""))

        def warn(description: str, body: str, name: str = name) -> str:
            return f"volume {name} ({description}): overlapping paths: {body}"

        config_map = volume.get("configMap")
        if isinstance(config_map, dict) and config_map.get("items") is not None:
            label = f"ConfigMap {go_quote(str(config_map.get('name') or ''))}"
            found += [warn(label, body) for body in _within(_items(config_map, ""))]
        secret = volume.get("secret")
        if isinstance(secret, dict) and secret.get("items") is not None:
            label = f"Secret {go_quote(str(secret.get('secretName') or ''))}"
            found += [warn(label, body) for body in _within(_items(secret, ""))]
        downward = volume.get("downwardAPI")
        if isinstance(downward, dict) and downward.get("items") is not None:
            found += [warn("DownwardAPI", body) for body in _within(_items(downward, ""))]
        projected = volume.get("projected")
        if isinstance(projected, dict):
            seen: list[_Path] = []
            for source in projected.get("sources") or ():
                source = _dict(source)
                if not any(source.get(key) is not None for key in _PROJECTION_FIELDS):
                    found.append(f"volume {name} (Projected) has no sources provided")
                    continue
                for ps in _projected_paths(source):
                    ps = _Path(ps.path.rstrip("/"), ps.source)
                    found += [warn("Projected", f"{ps} with {other}") for other in _overlapping(seen, ps)]
                    seen.append(ps)
    return found
