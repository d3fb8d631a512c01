"""API priority and fairness: what the server writes into a FlowSchema's status.

kube-apiserver's configuration consumer marks every FlowSchema whose PriorityLevelConfiguration does
not exist as Dangling; it does so as soon as it sees the FlowSchema, so here it is part of the write.
"""

from __future__ import annotations

from typing import Any

GROUP = "flowcontrol.apiserver.k8s.io"


def level_name(flow_schema: dict[str, Any]) -> str:
    return str(((flow_schema.get("spec") or {}).get("priorityLevelConfiguration") or {}).get("name") or "")


def with_dangling_condition(flow_schema: dict[str, Any], level_exists: bool, now: str) -> None:
    """Sets the Dangling condition, keeping its transition time while its status stays the same."""
    name = level_name(flow_schema)
    if level_exists:
        condition = {"type": "Dangling", "status": "False", "lastTransitionTime": now, "reason": "Found",
                     "message": f'This FlowSchema references the PriorityLevelConfiguration object named "{name}" '
                                "and it exists"}
    else:
        condition = {"type": "Dangling", "status": "True", "lastTransitionTime": now, "reason": "NotFound",
                     "message": f'This FlowSchema references the PriorityLevelConfiguration object named "{name}" '
                                "but there is no such object"}
    status = flow_schema.get("status") or {}
    conditions = [c for c in status.get("conditions") or () if isinstance(c, dict)]
    old = next((c for c in conditions if c.get("type") == "Dangling"), None)
    if old is not None and old.get("status") == condition["status"]:
        condition["lastTransitionTime"] = old.get("lastTransitionTime", now)
    others = [c for c in conditions if c.get("type") != "Dangling"]
    flow_schema["status"] = {**status, "conditions": others + [condition]}


def by_matching_precedence(flow_schema: dict[str, Any]) -> tuple[int, str]:
    """FlowSchemas are listed in the order they are matched in: lowest precedence first, then by name."""
    precedence = (flow_schema.get("spec") or {}).get("matchingPrecedence")
    return (precedence if isinstance(precedence, int) else 1000, str(flow_schema["metadata"].get("name", "")))
