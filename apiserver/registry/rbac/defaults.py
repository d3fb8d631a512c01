"""rbac.authorization.k8s.io/v1 defaulting: pkg/apis/rbac/v1/defaults.go."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]

GROUP = "rbac.authorization.k8s.io"


def binding(obj: Obj) -> None:
    """SetDefaults_RoleBinding and _ClusterRoleBinding: a role reference without apiGroup is RBAC's
    (roleRef is a struct, so even an absent one is defaulted); then each subject's defaults."""
    ref = obj.get("roleRef")
    if not isinstance(ref, dict):
        ref = obj["roleRef"] = {}
    if not ref.get("apiGroup"):
        ref["apiGroup"] = GROUP
    subjects(obj)


def subjects(obj: Obj) -> None:
    """SetDefaults_Subject: a User or Group subject without apiGroup is RBAC's (a ServiceAccount's stays core's)."""
    for subject in obj.get("subjects") or ():
        if isinstance(subject, dict) and not subject.get("apiGroup") and subject.get("kind") in ("User", "Group"):
            subject["apiGroup"] = GROUP
