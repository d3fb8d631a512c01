"""rbac.authorization.k8s.io/v1 defaulting: pkg/apis/rbac/v1/defaults.go."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]


def subjects(obj: Obj) -> None:
    """A User or Group subject without apiGroup is RBAC's own (a ServiceAccount's stays core's)."""
    for subject in obj.get("subjects") or ():
        if isinstance(subject, dict) and not subject.get("apiGroup") and subject.get("kind") in ("User", "Group"):
            subject["apiGroup"] = "rbac.authorization.k8s.io"
