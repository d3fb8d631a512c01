"""What a case is and how one is built: its id, namespace, object name, seed and requests.

Every family of cases (generate.py, writes.py) starts a case from its id with `Builder.start`, which
derives from the id a token that names the case's namespace (or, for a cluster-scoped kind, its
object), so that cases sent together never touch each other's objects, and the kind's seed.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import yaml

from apiserver.kinds import schemas
from tools.differential import schemawalk
from tools.differential.kinds import Kind, object_name
from tools.differential.normalize import STATUS_BY_CONTROLLERS
from tools.differential.schemawalk import Field
from tools.differential.seeds import Obj, seed

Case = dict[str, Any]
Request = dict[str, Any]
SEED = 23  # the main recording's
# Recorded again for what each of them changes (other fields and values sampled): every seed the
# harness holds our server to finds rules ported for the cases of one seed only.
MORE_SEEDS = (57, 91, 133, 179, 211, 263)
FIELD_CASES = 32  # sampled create cases from the schema walk, per kind
WRITE_FIELDS = 4  # fields whose change is sent by every write method, per kind
UPDATE_CASES = 10  # fields of the seed changed on an existing object, per kind
STATUS_CASES = 4
APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def token_of(case_id: str) -> str:
    return hashlib.sha1(case_id.encode()).hexdigest()[:8]


class Builder:
    """The cases of one kind, each given its namespace, object name and seed from its id."""

    def __init__(self, kind: Kind, seed: int = SEED) -> None:
        self.kind = kind
        self.seed = seed  # what the sampling of fields and values is seeded with
        self.cases: list[Case] = []
        self.schema = schemas.kind_schema(kind.group, kind.version, kind.kind) or {}

    def start(self, family: str, detail: str) -> tuple[str, str | None, str, Obj]:
        case_id = f"{self.kind.label}/{family}/{detail}"
        token = token_of(case_id)
        namespace = f"d-{token}" if self.kind.namespaced else None
        name = object_name(self.kind, token)
        return case_id, namespace, name, seed(self.kind, name, namespace, token)

    def add(self, case_id: str, namespace: str | None, request: Request, setup: list[Request] | None = None,
            check: Request | None = None) -> None:
        case: Case = {"id": case_id, "kind": self.kind.label, "namespace": namespace, "setup": setup or [],
                      "request": request}
        if check is not None:
            case["check"] = check
        self.cases.append(case)

    def prerequisites(self, namespace: str | None) -> list[Request]:
        """What a case of this kind needs before its object: a Binding binds an existing Pod."""
        if self.kind.kind == "Binding":
            pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "obj"},
                   "spec": {"containers": [{"name": "c", "image": "registry.example.com/app:1"}]}}
            return [post(f"/api/v1/namespaces/{namespace}/pods", pod)]
        return []

    def settled(self, namespace: str | None, name: str) -> list[Request]:
        """For a kind whose status kube-apiserver's own controllers write just after a create: a read a
        second later, so that an update carries the resourceVersion those writes left, not a race."""
        if self.kind.kind not in STATUS_BY_CONTROLLERS:
            return []
        return [{**get(self.kind.item(namespace, name)), "delay": 1.0}]

    def read_back(self, namespace: str | None, name: str) -> Request | None:
        if self.kind.kind == "Binding":
            return get(f"/api/v1/namespaces/{namespace}/pods/obj")
        if "get" not in self.kind.verbs:
            return None
        return get(self.kind.item(namespace, name))


def post(path: str, body: Any, query: str = "", content_type: str = "application/json") -> Request:
    return request("POST", path, body, query, content_type)


def get(path: str, query: str = "", accept: str = "") -> Request:
    req: Request = {"method": "GET", "path": path}
    if query:
        req["query"] = query
    if accept:
        req["accept"] = accept
    return req


def request(method: str, path: str, body: Any, query: str = "",
             content_type: str = "application/json") -> Request:
    req: Request = {"method": method, "path": path}
    if query:
        req["query"] = query
    if isinstance(body, str):
        req["raw"] = body
    elif body is not None:
        req["body"] = body
    if body is not None:
        req["contentType"] = content_type
    return req


def yaml_text(obj: Obj) -> str:
    return str(yaml.safe_dump(obj, sort_keys=False))


def put_read(path: str, body: Obj) -> Request:
    """A PUT carrying the resourceVersion of the object the setup's last step wrote."""
    return {**request("PUT", path, body), "resourceVersionFromSetup": True}



_GLOBAL_FIELDS = {("PriorityClass", "globalDefault")}


def sampled_fields(b: Builder, under: str | None = None) -> list[Field]:
    found = [f for f in schemawalk.fields(b.schema, under) if (b.kind.kind, f.dotted) not in _GLOBAL_FIELDS]
    random.Random(f"{b.seed}/{b.kind.label}/{under}").shuffle(found)
    return found


