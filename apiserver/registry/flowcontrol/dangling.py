"""API priority and fairness: what the server writes into a FlowSchema's status.

kube-apiserver's configuration consumer marks every FlowSchema whose PriorityLevelConfiguration does
not exist as Dangling; it does so as soon as it sees the FlowSchema, so here it is part of the write.
"""

from __future__ import annotations

from typing import Any

from apiserver.registry.hooks import Cluster

GROUP = "flowcontrol.apiserver.k8s.io"
_LEVELS = f"{GROUP}/prioritylevelconfigurations"
_FLOW_SCHEMAS = f"{GROUP}/flowschemas"


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


# -- the storage hooks ---------------------------------------------------------------------------

def decorate_flow_schema(flow_schema: dict[str, Any], old: dict[str, Any] | None, cluster: Cluster, now: str) -> None:
    """The status is the server's: an update keeps what it had, and the Dangling condition says whether
    the priority level exists now."""
    if old is not None and "status" in old:
        flow_schema["status"] = old["status"]
    exists = cluster.get(_LEVELS, "", level_name(flow_schema)) is not None
    with_dangling_condition(flow_schema, exists, now)


async def level_created(level: dict[str, Any], cluster: Cluster, now: str) -> None:
    await _mark_flow_schemas(str(level["metadata"].get("name", "")), True, cluster, now)


async def level_deleted(level: dict[str, Any], cluster: Cluster, now: str) -> None:
    await _mark_flow_schemas(str(level["metadata"].get("name", "")), False, cluster, now)


async def _mark_flow_schemas(level: str, exists: bool, cluster: Cluster, now: str) -> None:
    """APF's configuration consumer: FlowSchemas of a level that came or went say whether it dangles."""

    def mark(flow_schema: dict[str, Any]) -> bool:
        if level_name(flow_schema) != level:
            return False
        before = flow_schema.get("status")  # replaced, never changed in place, by the condition's setter
        with_dangling_condition(flow_schema, exists, now)
        return flow_schema["status"] != before
    await cluster.rewrite_status(_FLOW_SCHEMAS, mark)
