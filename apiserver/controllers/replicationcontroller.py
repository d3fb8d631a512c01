"""The replicationcontroller controller: the replicaset controller's core for ReplicationControllers.

Upstream runs the same code for both, converting each ReplicationController to a ReplicaSet on the way
in; here the core is told the resource and kind instead, and reads the selector as what it is in a
ReplicationController: a plain map of labels that must all be equal.
"""

from __future__ import annotations

from typing import Mapping

from apiserver.controllers.base import Obj
from apiserver.controllers.replicaset import ReplicaSetController


class ReplicationManager(ReplicaSetController):
    name = "replicationcontroller-controller"
    reporter = "replication-controller"
    kind = "ReplicationController"
    resource = ("", "v1", "replicationcontrollers")

    def selects(self, rs: Obj, labels: Mapping[str, str]) -> bool:
        selector = (rs.get("spec") or {}).get("selector")
        if selector is None:
            return False  # validation requires one; a missing selector selects nothing, as a nil LabelSelector
        return all(labels.get(key) == value for key, value in selector.items())
