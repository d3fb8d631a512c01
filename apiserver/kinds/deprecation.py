"""The served kinds kube-apiserver 1.36 marks deprecated, and the warning every request to them carries.

Upstream derives the text from a kind's lifecycle (apiserver's endpoints/deprecation): "<group/version>
<Kind> is deprecated in v<major>.<minor>+", then "; use <group/version> <Kind>" when it names a
replacement. It adds the warning before the handler runs, so errors carry it too. Of the versions 1.36
serves by default only these two core/v1 kinds are deprecated (every beta version is off by default).
"""

from __future__ import annotations

from dataclasses import dataclass

from apiserver.kinds.resources import ResourceType


@dataclass(frozen=True)
class Deprecation:
    since: str  # the release that deprecated it, "1.33"
    replacement: str = ""  # "group/version Kind", or "" when upstream names none


_DEPRECATED: dict[tuple[str, str, str], Deprecation] = {
    ("", "v1", "Endpoints"): Deprecation("1.33", "discovery.k8s.io/v1 EndpointSlice"),
    ("", "v1", "ComponentStatus"): Deprecation("1.19"),
}


def warning_text(rt: ResourceType) -> str | None:
    """The warning a request to this kind's resource is answered with, or None if it is not deprecated."""
    found = _DEPRECATED.get((rt.group, rt.version, rt.kind))
    if found is None:
        return None
    text = f"{rt.group_version} {rt.kind} is deprecated in v{found.since}+"
    if found.replacement:
        text += f"; use {found.replacement}"
    return text


def warning_header(text: str) -> str:
    """One RFC 7234 warning as kube-apiserver writes it: code 299, no agent, the text quoted."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'299 - "{escaped}"'
