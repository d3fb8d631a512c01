"""Validating and mutating webhook configurations as admission reads them: each webhook of each
`admissionregistration.k8s.io/v1` configuration, parsed once per change of the configurations.

`WebhookSource` subscribes to the store's changes of one configuration resource and parses the
configurations again on the first request after a change, so a configuration written is applied to
the next request (upstream's informer-backed source applies it a moment later). Webhooks are ordered
as upstream's are: configurations by name, then each configuration's webhooks in order.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from apiserver.admission.policy.compiled import Expression, compile_expression
from apiserver.query.labels import LabelSelector, from_label_selector
from apiserver.storage.interface import Store

GROUP = "admissionregistration.k8s.io"
VALIDATING = f"{GROUP}/validatingwebhookconfigurations"
MUTATING = f"{GROUP}/mutatingwebhookconfigurations"
_DEFAULT_TIMEOUT_SECONDS = 10


@dataclass(frozen=True)
class Rule:
    """A RuleWithOperations; `resources` are (resource, subresource) pairs, "*" a wildcard."""

    operations: frozenset[str]
    groups: frozenset[str]
    versions: frozenset[str]
    resources: tuple[tuple[str, str], ...]
    scope: str


@dataclass(frozen=True)
class ServiceReference:
    namespace: str
    name: str
    path: str
    port: int


@dataclass(frozen=True)
class ClientConfig:
    url: str | None
    service: ServiceReference | None
    ca_bundle: bytes


@dataclass(frozen=True)
class MatchCondition:
    name: str
    # Compiled once per configuration change, on the engine admission policies use.
    expression: Expression


@dataclass(frozen=True)
class Webhook:
    name: str
    configuration: str
    # Unique among all webhooks of one kind (a webhook's name may repeat across configurations).
    uid: str
    rules: tuple[Rule, ...]
    match_policy: str
    # None: the selector cannot be read (upstream fails the request with an internal error).
    namespace_selector: LabelSelector | None
    object_selector: LabelSelector | None
    failure_policy: str
    side_effects: str | None
    timeout_seconds: int
    review_versions: tuple[str, ...]
    client: ClientConfig
    reinvocation_policy: str
    match_conditions: tuple[MatchCondition, ...]

    @property
    def fails_open(self) -> bool:
        return self.failure_policy == "Ignore"


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _rule(raw: dict[str, Any]) -> Rule:
    resources = []
    for text in _strings(raw.get("resources")):
        resource, _, sub = text.partition("/")
        resources.append((resource, sub))
    return Rule(frozenset(_strings(raw.get("operations"))), frozenset(_strings(raw.get("apiGroups"))),
                frozenset(_strings(raw.get("apiVersions"))), tuple(resources), str(raw.get("scope") or "*"))


def client_config(raw: dict[str, Any]) -> ClientConfig:
    try:
        ca_bundle = base64.b64decode(str(raw.get("caBundle") or ""), validate=True)
    except (binascii.Error, ValueError):
        ca_bundle = b""
    service = raw.get("service")
    reference = None
    if isinstance(service, dict):
        reference = ServiceReference(str(service.get("namespace") or ""), str(service.get("name") or ""),
                                     str(service.get("path") or ""), int(service.get("port") or 443))
    url = raw.get("url")
    return ClientConfig(str(url) if url else None, reference, ca_bundle)


def _selector(raw: Any) -> LabelSelector | None:
    # An absent selector is the defaulted empty one, which matches everything.
    return from_label_selector(raw if raw is not None else {})


def parse(configuration: dict[str, Any], mutating: bool) -> list[Webhook]:
    name = str(configuration["metadata"].get("name") or "")
    found = []
    for index, raw in enumerate(configuration.get("webhooks") or ()):
        if not isinstance(raw, dict):
            continue
        conditions = tuple(MatchCondition(str(c.get("name") or ""),
                                          compile_expression(str(c.get("expression") or ""), ("bool",)))
                           for c in raw.get("matchConditions") or () if isinstance(c, dict))
        found.append(Webhook(
            name=str(raw.get("name") or ""), configuration=name, uid=f"{name}/{raw.get('name')}/{index}",
            rules=tuple(_rule(r) for r in raw.get("rules") or () if isinstance(r, dict)),
            match_policy=str(raw.get("matchPolicy") or "Equivalent"),
            namespace_selector=_selector(raw.get("namespaceSelector")),
            object_selector=_selector(raw.get("objectSelector")),
            failure_policy=str(raw.get("failurePolicy") or "Fail"),
            side_effects=raw.get("sideEffects"),
            timeout_seconds=int(raw.get("timeoutSeconds") or _DEFAULT_TIMEOUT_SECONDS),
            review_versions=_strings(raw.get("admissionReviewVersions")),
            client=client_config(raw.get("clientConfig") or {}),
            reinvocation_policy=str(raw.get("reinvocationPolicy") or "Never") if mutating else "Never",
            match_conditions=conditions))
    return found


class WebhookSource:
    """The webhooks of one configuration resource, current as of the last change the store reported."""

    def __init__(self, store: Store, storage_key: str, mutating: bool,
                 on_change: Callable[[], None] | None = None) -> None:
        self._store = store
        self._storage_key = storage_key
        self._mutating = mutating
        self._on_change = on_change
        self._webhooks: tuple[Webhook, ...] = ()
        self._stale = True
        self._unsubscribe: Callable[[], None] | None = None

    def start(self) -> None:
        self._unsubscribe = self._store.subscribe(self._storage_key, self._changed, self._changed)
        self._changed()

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _changed(self, *_change: object) -> None:
        self._stale = True
        if self._on_change is not None:
            self._on_change()

    @property
    def webhooks(self) -> tuple[Webhook, ...]:
        if self._stale:
            self._stale = False
            _, items = self._store.list(self._storage_key, None)
            configurations = sorted((orjson.loads(stored.data) for _, stored in items),
                                    key=lambda c: str(c["metadata"].get("name") or ""))
            self._webhooks = tuple(hook for c in configurations for hook in parse(c, self._mutating))
        return self._webhooks
