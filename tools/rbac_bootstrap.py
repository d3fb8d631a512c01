"""Writes the RBAC objects kube-apiserver 1.36 creates at start (its bootstrap policy) into
apiserver/data/rbac_bootstrap.json, read off the objects a real kube-apiserver returned (shared/golden).

The surface goldens hold every bootstrap ClusterRole and ClusterRoleBinding in full (those labelled
`kubernetes.io/bootstrapping: rbac-defaults`; the surface fixtures' own objects are left out). Of the
namespaced kube-system and kube-public Roles and RoleBindings they show only names and subjects, so
their rules are declared below, as upstream's bootstrappolicy/namespace_policy.go grants them.
What the server assigns (uid, resourceVersion, creationTimestamp, managedFields) is dropped.

Usage: python tools/rbac_bootstrap.py [GOLDEN_DIR]
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

_HERE = os.path.dirname(os.path.abspath(__file__))
_DEFAULT_GOLDEN = os.path.join(os.path.dirname(os.path.dirname(_HERE)), "shared", "golden")
_OUT = os.path.join(os.path.dirname(_HERE), "apiserver", "data", "rbac_bootstrap.json")

_GROUP = "rbac.authorization.k8s.io"
_BOOTSTRAP_LABEL = ("kubernetes.io/bootstrapping", "rbac-defaults")
_ASSIGNED = ("uid", "resourceVersion", "creationTimestamp", "managedFields")


def _rule(groups: list[str], resources: list[str], verbs: list[str], names: list[str] | None = None
          ) -> dict[str, Any]:
    rule: dict[str, Any] = {"verbs": verbs, "apiGroups": groups, "resources": resources}
    if names:
        rule["resourceNames"] = names
    return rule


_EVENTS_WRITE = _rule(["", "events.k8s.io"], ["events"], ["create", "patch", "update"])
_LEADER_LOCKING = [_rule(["coordination.k8s.io"], ["leases"], ["create", "get", "list", "update", "watch"]),
                   _rule(["coordination.k8s.io"], ["leasecandidates"], ["create", "get", "list", "update", "watch"])]

# (namespace, name, rules), in the order upstream creates them.
_NAMESPACE_ROLES: list[tuple[str, str, list[dict[str, Any]]]] = [
    ("kube-public", "system:controller:bootstrap-signer", [
        _rule([""], ["configmaps"], ["get", "list", "watch"]),
        _rule([""], ["configmaps"], ["update"], ["cluster-info"]), _EVENTS_WRITE]),
    ("kube-system", "extension-apiserver-authentication-reader", [
        _rule([""], ["configmaps"], ["get", "list", "watch"], ["extension-apiserver-authentication"])]),
    ("kube-system", "system::leader-locking-kube-controller-manager", _LEADER_LOCKING),
    ("kube-system", "system::leader-locking-kube-scheduler", _LEADER_LOCKING),
    ("kube-system", "system:controller:bootstrap-signer", [_rule([""], ["secrets"], ["get", "list", "watch"])]),
    ("kube-system", "system:controller:cloud-provider", [
        _rule([""], ["configmaps"], ["create", "get", "list", "watch"])]),
    ("kube-system", "system:controller:token-cleaner", [
        _rule([""], ["secrets"], ["delete", "get", "list", "watch"]), _EVENTS_WRITE]),
]


def _user(name: str) -> dict[str, str]:
    return {"kind": "User", "apiGroup": _GROUP, "name": name}


def _sa(name: str) -> dict[str, str]:
    return {"kind": "ServiceAccount", "name": name, "namespace": "kube-system"}


# (namespace, name, role, subjects)
_NAMESPACE_BINDINGS: list[tuple[str, str, str, list[dict[str, str]]]] = [
    ("kube-public", "system:controller:bootstrap-signer", "system:controller:bootstrap-signer",
     [_sa("bootstrap-signer")]),
    ("kube-system", "system::extension-apiserver-authentication-reader", "extension-apiserver-authentication-reader",
     [_user("system:kube-controller-manager"), _user("system:kube-scheduler")]),
    ("kube-system", "system::leader-locking-kube-controller-manager", "system::leader-locking-kube-controller-manager",
     [_user("system:kube-controller-manager"), _sa("kube-controller-manager"), _sa("leader-election-controller")]),
    ("kube-system", "system::leader-locking-kube-scheduler", "system::leader-locking-kube-scheduler",
     [_user("system:kube-scheduler"), _sa("kube-scheduler")]),
    ("kube-system", "system:controller:bootstrap-signer", "system:controller:bootstrap-signer",
     [_sa("bootstrap-signer")]),
    ("kube-system", "system:controller:cloud-provider", "system:controller:cloud-provider", [_sa("cloud-provider")]),
    ("kube-system", "system:controller:token-cleaner", "system:controller:token-cleaner", [_sa("token-cleaner")]),
]


def _metadata(namespace: str, name: str) -> dict[str, Any]:
    return {"name": name, "namespace": namespace, "labels": dict([_BOOTSTRAP_LABEL]),
            "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"}}


def _from_golden(golden: str, plural: str) -> list[dict[str, Any]]:
    path = os.path.join(golden, "kube-1.36.2", "surface", "table",
                        f"{plural}.{_GROUP}.list.includeObject-Object.json")
    with open(path) as f:
        rows = json.load(f)["rows"]
    out = []
    for row in rows:
        obj = row["object"]
        labels = obj["metadata"].get("labels") or {}
        if labels.get(_BOOTSTRAP_LABEL[0]) != _BOOTSTRAP_LABEL[1]:
            continue
        for key in _ASSIGNED:
            obj["metadata"].pop(key, None)
        out.append(obj)
    return out


def bootstrap_objects(golden: str) -> list[dict[str, Any]]:
    """Every object as (resource, namespace, object) records, in the order they are to be created."""
    records: list[dict[str, Any]] = []
    for plural in ("clusterroles", "clusterrolebindings"):
        records += [{"resource": plural, "namespace": "", "object": obj} for obj in _from_golden(golden, plural)]
    for namespace, name, rules in _NAMESPACE_ROLES:
        records.append({"resource": "roles", "namespace": namespace, "object": {
            "kind": "Role", "apiVersion": f"{_GROUP}/v1", "metadata": _metadata(namespace, name), "rules": rules}})
    for namespace, name, role, subjects in _NAMESPACE_BINDINGS:
        records.append({"resource": "rolebindings", "namespace": namespace, "object": {
            "kind": "RoleBinding", "apiVersion": f"{_GROUP}/v1", "metadata": _metadata(namespace, name),
            "subjects": subjects, "roleRef": {"apiGroup": _GROUP, "kind": "Role", "name": role}}})
    return records


def main() -> None:
    golden = sys.argv[1] if len(sys.argv) > 1 else _DEFAULT_GOLDEN
    records = bootstrap_objects(golden)
    with open(_OUT, "w") as f:
        json.dump(records, f, indent=1)
        f.write("\n")
    print(f"{_OUT}: {len(records)} objects")


if __name__ == "__main__":
    main()
