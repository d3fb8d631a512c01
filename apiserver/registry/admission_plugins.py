"""The default admission plugins that read nothing but the object they admit, on create.

DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds), TaintNodesByCondition
(plugin/pkg/admission/nodetaint) and StorageObjectInUseProtection
(plugin/pkg/admission/storage/storageobjectinuseprotection). They run after managed fields are taken,
so their fields are nobody's. Those that read other objects are in `apiserver/kinds/admission.py`.
"""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]

_NOT_READY_TOLERATIONS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")


def default_toleration_seconds(spec: Obj) -> None:
    """Tolerate a not-ready or unreachable node for 300s, unless the pod spec says otherwise: a toleration
    without a key tolerates every taint, and one without an effect every effect."""
    tolerations = spec.setdefault("tolerations", [])
    for key in _NOT_READY_TOLERATIONS:
        if not any(isinstance(t, dict) and (t.get("key") or key) == key
                   and (t.get("effect") or "NoExecute") == "NoExecute" for t in tolerations):
            tolerations.append({"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300})


def taint_nodes_by_condition(node: Obj) -> None:
    """A new node is not ready until its kubelet says so."""
    spec = node.get("spec")
    if not isinstance(spec, dict):
        spec = node["spec"] = {}
    taints = spec.setdefault("taints", [])
    taint = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}
    if not any(isinstance(t, dict) and t.get("key") == taint["key"] and t.get("effect") == taint["effect"]
               for t in taints):
        taints.append(taint)


def storage_object_in_use_protection(obj: Obj, finalizer: str) -> None:
    """A claim, volume or attributes class in use is not removed under its pod."""
    finalizers = obj["metadata"].setdefault("finalizers", [])
    if finalizer not in finalizers:
        finalizers.append(finalizer)
