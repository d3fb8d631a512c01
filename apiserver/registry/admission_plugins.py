"""The default admission plugins that read nothing but the object they admit, on create.

DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds), TaintNodesByCondition
(plugin/pkg/admission/nodetaint), StorageObjectInUseProtection
(plugin/pkg/admission/storage/storageobjectinuseprotection), and the labels PodTopologyLabels
(plugin/pkg/admission/podtopologylabels) copies from the node its caller read. They run after managed fields are taken,
so their fields are nobody's. Those that read other objects are in `apiserver/kinds/admission.py`.
"""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]

# PodTopologyLabels' default set of node labels a pod bound to the node carries.
_TOPOLOGY_LABELS = ("topology.kubernetes.io/zone", "topology.kubernetes.io/region")
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


def topology_labels(node: Obj | None) -> dict[str, str]:
    """topologyLabelsForNodeName: the node's topology labels (none for a node that is not there)."""
    node_labels = ((node or {}).get("metadata") or {}).get("labels") or {}
    return {key: node_labels[key] for key in _TOPOLOGY_LABELS if key in node_labels}
