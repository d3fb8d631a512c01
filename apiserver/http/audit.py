"""The audit log: kube-apiserver's audit.k8s.io/v1 Event JSON lines, one per request stage.

`--audit-log-path FILE` (or `-` for stdout) turns it on, at the Metadata level for every request
unless `--audit-policy-file` says otherwise in upstream's Policy format: the first rule that matches a
request (users, userGroups, verbs, resources with group and resourceNames, namespaces,
nonResourceURLs) gives its level (None, Metadata, Request, RequestResponse) and stages to omit. Stages
are RequestReceived and ResponseComplete, with ResponseStarted between them for a watch, whose
ResponseComplete comes when its stream ends.
Credentials never appear: headers are not logged, and the bodies of TokenReviews and TokenRequests,
which carry tokens, are left out at every level.
"""

from __future__ import annotations

import datetime
import sys
import uuid
from dataclasses import dataclass, field
from typing import IO, Any

import orjson
import yaml

from apiserver.auth.reviews import user_info
from apiserver.auth.tokens import User
from apiserver.errors import ApiError
from apiserver.http import requestinfo
from apiserver.wire import bodies

LEVELS = ("None", "Metadata", "Request", "RequestResponse")
_STAGES = frozenset({"RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"})
# Bodies that carry credentials, by (group, resource or resource/subresource).
_SECRET_BODIES = frozenset({("authentication.k8s.io", "tokenreviews"), ("", "serviceaccounts/token")})


class PolicyError(Exception):
    """The audit policy file cannot be read as an audit.k8s.io/v1 Policy."""


@dataclass(frozen=True)
class Rule:
    level: str
    users: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()
    verbs: frozenset[str] = frozenset()
    resources: tuple[tuple[str, frozenset[str], frozenset[str]], ...] = ()  # (group, resources, names)
    namespaces: frozenset[str] = frozenset()
    urls: tuple[str, ...] = ()
    omit_stages: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Request:
    """What the audit policy and the Event need to know of one request."""

    verb: str
    path: str
    group: str = ""
    version: str = ""
    resource: str = ""
    subresource: str | None = None
    namespace: str = ""
    name: str = ""
    is_resource: bool = False


def describe(method: str, path: str, watch: bool) -> Request:
    parsed = requestinfo.parse(path)
    if not isinstance(parsed, requestinfo.ResourcePath):
        return Request(method.lower(), path)
    if method == "GET":
        verb = "watch" if watch else ("get" if parsed.name else "list")
    elif method == "POST":
        verb = "create"
    elif method == "DELETE":
        verb = "delete" if parsed.name else "deletecollection"
    else:
        verb = {"PUT": "update", "PATCH": "patch"}.get(method, method.lower())
    return Request(verb, path, parsed.group, parsed.version, parsed.resource, parsed.subresource,
                   parsed.namespace, parsed.name or "", True)


def _strings(value: Any, where: str) -> frozenset[str]:
    if value is None:
        return frozenset()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PolicyError(f"{where} must be a list of strings")
    return frozenset(value)


def parse_policy(text: str) -> tuple[list[Rule], frozenset[str]]:
    """The rules of a Policy document and the stages it omits everywhere."""
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise PolicyError(f"not YAML: {exc}") from None
    if not isinstance(doc, dict) or doc.get("kind") != "Policy" or not str(doc.get("apiVersion", "")).startswith(
            "audit.k8s.io/"):
        raise PolicyError("expected kind Policy of apiVersion audit.k8s.io/v1")
    rules = []
    for index, raw in enumerate(doc.get("rules") or ()):
        where = f"rules[{index}]"
        if not isinstance(raw, dict) or raw.get("level") not in LEVELS:
            raise PolicyError(f"{where}.level must be one of {', '.join(LEVELS)}")
        resources = []
        for kinds in raw.get("resources") or ():
            if not isinstance(kinds, dict):
                raise PolicyError(f"{where}.resources must be a list of GroupResources")
            resources.append((str(kinds.get("group", "")), _strings(kinds.get("resources"), f"{where}.resources"),
                              _strings(kinds.get("resourceNames"), f"{where}.resources")))
        omit = _strings(raw.get("omitStages"), f"{where}.omitStages")
        if omit - _STAGES:
            raise PolicyError(f"{where}.omitStages: unknown stages {sorted(omit - _STAGES)}")
        rules.append(Rule(raw["level"], _strings(raw.get("users"), f"{where}.users"),
                          _strings(raw.get("userGroups"), f"{where}.userGroups"),
                          _strings(raw.get("verbs"), f"{where}.verbs"), tuple(resources),
                          _strings(raw.get("namespaces"), f"{where}.namespaces"),
                          tuple(_strings(raw.get("nonResourceURLs"), f"{where}.nonResourceURLs")), omit))
    return rules, _strings(doc.get("omitStages"), "omitStages")


def _resource_matches(rule: Rule, request: Request) -> bool:
    combined = f"{request.resource}/{request.subresource}" if request.subresource else request.resource
    for group, resources, names in rule.resources:
        if group != request.group:
            continue
        if resources and not (combined in resources or request.resource + "/*" in resources or "*" in resources
                              or (request.subresource and "*/" + request.subresource in resources)):
            continue
        if names and request.name not in names:
            continue
        return True
    return False


def _url_matches(urls: tuple[str, ...], path: str) -> bool:
    return any(u == "*" or u == path or (u.endswith("*") and path.startswith(u[:-1])) for u in urls)


def rule_matches(rule: Rule, user: User | None, request: Request) -> bool:
    if rule.users and (user is None or user.name not in rule.users):
        return False
    if rule.groups and (user is None or not rule.groups.intersection(user.groups)):
        return False
    if rule.verbs and request.verb not in rule.verbs:
        return False
    if request.is_resource:
        if rule.urls:
            return False
        if rule.resources and not _resource_matches(rule, request):
            return False
        return not rule.namespaces or request.namespace in rule.namespaces
    if rule.resources or rule.namespaces:
        return False
    return not rule.urls or _url_matches(rule.urls, request.path)


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass
class Event:
    """One request's audit record, written once per stage."""

    level: str
    omit: frozenset[str]
    fields: dict[str, Any] = field(default_factory=dict)


class AuditLog:
    def __init__(self, path: str, policy_text: str | None) -> None:
        self._rules, self._omit = parse_policy(policy_text) if policy_text is not None else (
            [Rule("Metadata")], frozenset())
        self._out: IO[bytes] = sys.stdout.buffer if path == "-" else open(path, "ab")

    def close(self) -> None:
        if self._out is not sys.stdout.buffer:
            self._out.close()

    def _level(self, user: User | None, request: Request) -> tuple[str, frozenset[str]]:
        for rule in self._rules:
            if rule_matches(rule, user, request):
                return rule.level, self._omit | rule.omit_stages
        return "None", self._omit

    def begin(self, request: Request, uri: str, user: User | None, impersonated: User | None, source_ip: str,
              user_agent: str) -> Event | None:
        """The event of a request, RequestReceived written; None when the policy does not log it."""
        level, omit = self._level(impersonated or user, request)
        if level == "None":
            return None
        now = _now()
        fields: dict[str, Any] = {"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": level,
                                  "auditID": str(uuid.uuid4()), "stage": "", "requestURI": uri,
                                  "verb": request.verb,
                                  "user": {} if user is None else user_info(user)}
        if impersonated is not None:
            fields["impersonatedUser"] = user_info(impersonated)
        fields["sourceIPs"] = [source_ip] if source_ip else []
        if user_agent:
            fields["userAgent"] = user_agent
        if request.is_resource:
            ref = {"resource": request.resource, "namespace": request.namespace, "name": request.name,
                   "apiGroup": request.group, "apiVersion": request.version, "subresource": request.subresource}
            fields["objectRef"] = {k: v for k, v in ref.items() if v}
        fields["requestReceivedTimestamp"] = now
        event = Event(level, omit, fields)
        self._write(event, "RequestReceived", now)
        return event

    def finish(self, event: Event, request: Request, stage: str, code: int, status: dict[str, Any] | None,
               request_body: bytes | None, content_type: str | None, response_body: bytes | None,
               annotations: dict[str, str] | None = None) -> None:
        """`annotations` are what admission added to the record (webhooks' auditAnnotations, failed-open
        and mutation notes)."""
        if annotations:
            event.fields["annotations"] = dict(sorted(annotations.items()))
        response: dict[str, Any] = {"metadata": {}}
        if status is not None:
            response.update({k: status[k] for k in ("status", "message", "reason") if k in status})
        response["code"] = code
        event.fields["responseStatus"] = response
        ref = event.fields.get("objectRef")
        if ref is not None and "name" not in ref and request.verb == "create" and code < 300 and response_body:
            # As upstream, a create's record names what it created.
            created = _json_or_none(response_body)
            name = (created.get("metadata") or {}).get("name") if isinstance(created, dict) else None
            if isinstance(name, str):
                event.fields["objectRef"] = _with_name(ref, name)
        combined = f"{request.resource}/{request.subresource}" if request.subresource else request.resource
        secret = (request.group, combined) in _SECRET_BODIES
        if event.level in ("Request", "RequestResponse") and request_body and not secret:
            event.fields["requestObject"] = _decoded(request_body, content_type)
        if event.level == "RequestResponse" and response_body and not secret:
            event.fields["responseObject"] = _json_or_none(response_body)
        self._write(event, stage, _now())

    def _write(self, event: Event, stage: str, now: str) -> None:
        if stage in event.omit:
            return
        event.fields["stage"] = stage
        line = dict(event.fields)
        # requestReceivedTimestamp, stageTimestamp and annotations close the record, in Go's order.
        received = line.pop("requestReceivedTimestamp")
        line["requestReceivedTimestamp"] = received
        line["stageTimestamp"] = now
        if "annotations" in line:
            line["annotations"] = line.pop("annotations")
        self._out.write(orjson.dumps(line) + b"\n")
        self._out.flush()


def _with_name(ref: dict[str, Any], name: str) -> dict[str, Any]:
    """The reference with its name in Go's field order (after namespace)."""
    out: dict[str, Any] = {}
    for key, value in ref.items():
        if key in ("apiGroup", "apiVersion", "subresource") and "name" not in out:
            out["name"] = name
        out[key] = value
    out.setdefault("name", name)
    return out


def _decoded(body: bytes, content_type: str | None) -> Any:
    """A request body as JSON whatever it came as (kubectl sends protobuf), as upstream logs it."""
    try:
        return bodies.decode_object(body, content_type)
    except ApiError:
        return None


def _json_or_none(body: bytes) -> Any:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
