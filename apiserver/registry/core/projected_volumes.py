"""Projected volumes: validateProjectedVolumeSource and validateProjectionSources of
pkg/apis/core/validation/validation.go. Every source's files share one directory, so no two may have the
same path ("conflicting duplicate paths", reported on the volume with the later source's name or path).

ClusterTrustBundle and PodCertificate sources are not judged here: their features are off at 1.36, and
`pod_fields.py` drops them (dropDisabledFields) before validation, as a pod already using them cannot
have been stored.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.core import downward_api
from apiserver.registry.core.volume_files import file_mode, key_to_path, local_non_reserved_path

Obj = dict[str, Any]

_MIN_TOKEN_SECONDS = 10 * 60
_MAX_TOKEN_SECONDS = 1 << 32


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _tokens(spec: Obj) -> list[Obj]:
    return [_dict(source.get("serviceAccountToken"))
            for volume in spec.get("volumes") or ()
            for source in _dict(_dict(volume).get("projected")).get("sources") or ()
            if isinstance(source, dict) and source.get("serviceAccountToken") is not None]


def has_non_local_token_path(spec: Obj) -> bool:
    """pkg/api/pod/util.go's hasNonLocalProjectedTokenPath: an old spec whose token path is now refused keeps
    its leave to have one (AllowNonLocalProjectedTokenPath)."""
    return any(local_non_reserved_path(str(token.get("path") or ""), "") for token in _tokens(spec))


class _Paths:
    """The file paths the sources so far write; a repeated one is reported on the volume."""

    def __init__(self, at: str) -> None:
        self._at = at
        self._seen: set[str] = set()

    def add(self, path: str, shown: str) -> list[FieldError]:
        if path in self._seen:
            return [field.invalid(self._at, shown, "conflicting duplicate paths")]
        self._seen.add(path)
        return []


def _key_files(source: Obj, at: str, paths: _Paths) -> list[FieldError]:
    """A secret or configMap projection: its name, and each key written as a file."""
    name = str(source.get("name") or "")
    found = [] if name else [field.required(f"{at}.name")]
    for i, item in enumerate(source.get("items") or ()):
        item = _dict(item)
        found += key_to_path(item, f"{at}.items[{i}]")
        if item.get("path"):
            found += paths.add(str(item["path"]), name)
    return found


def _downward_files(source: Obj, at: str, paths: _Paths) -> list[FieldError]:
    found: list[FieldError] = []
    for item in source.get("items") or ():
        item = _dict(item)
        found += downward_api.volume_file(item, at)
        if item.get("path"):
            found += paths.add(str(item["path"]), str(item["path"]))
    return found


def _token(source: Obj, at: str, volume_at: str, allow_non_local: bool) -> list[FieldError]:
    """A service account token. Upstream reports its path under the volume, not the source."""
    found: list[FieldError] = []
    seconds = source.get("expirationSeconds")
    seconds = seconds if isinstance(seconds, int) else 0
    if seconds < _MIN_TOKEN_SECONDS:
        found.append(field.invalid(f"{at}.expirationSeconds", seconds, "may not specify a duration less than 10 "
                                                                        "minutes"))
    if seconds > _MAX_TOKEN_SECONDS:
        found.append(field.invalid(f"{at}.expirationSeconds", seconds, "may not specify a duration larger than 2^32 "
                                                                        "seconds"))
    path = str(source.get("path") or "")
    if not path:
        found.append(field.required(f"{volume_at}.path"))
    elif not allow_non_local:
        found += local_non_reserved_path(path, f"{volume_at}.path")
    return found


def projected_volume_source(projected: Obj, at: str, allow_non_local_token_path: bool) -> list[FieldError]:
    """validateProjectedVolumeSource: the default mode, then each source in turn."""
    found = file_mode(projected.get("defaultMode"), f"{at}.defaultMode")
    paths = _Paths(at)
    for i, source in enumerate(projected.get("sources") or ()):
        source = _dict(source)
        source_at = f"{at}.sources[{i}]"
        kinds = 0
        for key in ("secret", "configMap"):
            if source.get(key) is not None:
                kinds += 1
                found += _key_files(_dict(source[key]), f"{source_at}.{key}", paths)
        if source.get("downwardAPI") is not None:
            kinds += 1
            found += _downward_files(_dict(source["downwardAPI"]), f"{source_at}.downwardAPI", paths)
        if source.get("serviceAccountToken") is not None:
            kinds += 1
            found += _token(_dict(source["serviceAccountToken"]), f"{source_at}.serviceAccountToken", at,
                            allow_non_local_token_path)
        if kinds > 1:
            found.append(field.forbidden(source_at, "may not specify more than 1 volume type per source"))
    return found
