"""What both admission-policy plugins share: policies and bindings followed from the store, and a
request's context (which policies may match it, its namespace, its params, its CEL variables).

Upstream: `admission/plugin/policy/generic` (the policy source and dispatcher) and
`admission/plugin/cel` (the activation). A policy is compiled when its spec changes
(apiserver/admission/policy/compiled.py), so once per generation; the resources each policy's rules
can select are indexed, so a write that no policy can match costs one dictionary look-up (0.27 µs
with ten bound policies, benches/micro/test_policy_bench.py).
"""

from __future__ import annotations

import logging
from typing import Any

import orjson

from apiserver.admission import authorization
from apiserver.admission.attributes import Attributes
from apiserver.admission.plugins import PluginContext
from apiserver.admission.policy import matching
from apiserver.admission.policy.compiled import CompiledPolicy
from apiserver.admission.webhook import equivalents_in
from apiserver.controllers.selectors import label_selector_matches
from apiserver.kinds.conversion import codec_for
from apiserver.storage.interface import Change

log = logging.getLogger(__name__)

GROUP = "admissionregistration.k8s.io"
_NAMESPACE_META = ("name", "generateName", "namespace", "uid", "resourceVersion", "generation",
                   "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
                   "annotations", "finalizers")
Hook = tuple[CompiledPolicy, list[dict[str, Any]]]


class PolicySource:
    """A plugin's policies and bindings (`policies`/`bindings` name their resources), kept current."""

    name: str
    policies: str
    bindings: str

    def __init__(self, context: PluginContext) -> None:
        self._store = context.store
        self._registry = context.registry
        self._policies: dict[str, CompiledPolicy] = {}
        self._bindings: dict[str, dict[str, Any]] = {}
        self._hooks: list[Hook] = []
        self._by_resource: dict[tuple[str, str], list[Hook]] = {}
        self._unsubscribe: list[Any] = []
        self._decider = authorization.register(context.authorizer)
        self._equivalents = equivalents_in(context.registry)

    def _storage_key(self, plural: str) -> str:
        rt = self._registry.lookup(GROUP, "v1", plural)
        if rt is None:
            raise LookupError(f"{GROUP}/v1 {plural} is not served")
        return str(rt.storage_key)

    async def start(self) -> None:
        for plural, follow in ((self.policies, self._policy_changed), (self.bindings, self._binding_changed)):
            key = self._storage_key(plural)
            _, items = self._store.list(key, None)
            for _, stored in items:
                follow(orjson.loads(stored.data), deleted=False)
            self._unsubscribe.append(self._store.subscribe(key, lambda c, f=follow: self._changed(c, f),
                                                           lambda k=key, f=follow: self._reload(k, f)))
        self._rebuild()  # what was stored before the server started is enforced from its first write

    async def stop(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()

    def _reload(self, key: str, follow: Any) -> None:
        target = self._policies if follow == self._policy_changed else self._bindings
        target.clear()
        _, items = self._store.list(key, None)
        for _, stored in items:
            follow(orjson.loads(stored.data), deleted=False)
        self._rebuild()

    def _changed(self, change: Change, follow: Any) -> None:
        try:
            follow(orjson.loads(change.data), deleted=change.type == "DELETED")
        except Exception:
            log.exception("could not follow the change of %s", change.key)
        self._rebuild()

    def _policy_changed(self, policy: dict[str, Any], deleted: bool) -> None:
        name = policy["metadata"]["name"]
        if deleted:
            self._policies.pop(name, None)
        elif name not in self._policies or self._policies[name].spec != policy.get("spec"):
            self._policies[name] = CompiledPolicy.of(policy)  # once per generation: the spec changed

    def _binding_changed(self, binding: dict[str, Any], deleted: bool) -> None:
        name = binding["metadata"]["name"]
        if deleted:
            self._bindings.pop(name, None)
        else:
            self._bindings[name] = binding

    def _rebuild(self) -> None:
        bound: dict[str, list[dict[str, Any]]] = {}
        for binding in sorted(self._bindings.values(), key=lambda b: b["metadata"]["name"]):
            bound.setdefault(str((binding.get("spec") or {}).get("policyName") or ""), []).append(binding)
        self._hooks = [(policy, bound[name]) for name, policy in sorted(self._policies.items()) if name in bound]
        self._by_resource = {}

    def _candidates(self, attributes: Attributes) -> list[Hook]:
        key = (attributes.resource.group, attributes.resource.resource)
        found = self._by_resource.get(key)
        if found is None:
            found = [hook for hook in self._hooks
                     if matching.may_match(hook[0].spec.get("matchConstraints"), *key)]
            self._by_resource[key] = found
        return found

    def handles(self, attributes: Attributes) -> bool:
        return bool(self._hooks) and bool(self._candidates(attributes))

    def _namespaced(self, attributes: Attributes) -> bool:
        rt = self._registry.lookup(attributes.resource.group, attributes.resource.version,
                                   attributes.resource.resource)
        return bool(rt.namespaced) if rt is not None else bool(attributes.namespace)

    def _namespace(self, name: str) -> dict[str, Any] | None:
        rt = self._registry.lookup("", "v1", "namespaces")
        stored = self._store.get((rt.storage_key, "", name)) if rt is not None and name else None
        return orjson.loads(stored.data) if stored is not None else None

    def _namespace_labels(self, name: str) -> dict[str, str] | None:
        namespace = self._namespace(name)
        return None if namespace is None else (namespace.get("metadata") or {}).get("labels") or {}

    def _param_type(self, policy: CompiledPolicy) -> Any:
        kind = policy.spec.get("paramKind") or {}
        group, _, version = str(kind.get("apiVersion") or "").rpartition("/")
        return next((t for t in self._registry.in_group_version(group, version) if t.kind == kind.get("kind")), None)

    def configuration_error(self, policy: CompiledPolicy) -> str | None:
        """Why the policy cannot run at all (upstream's hook ConfigurationError): a paramKind not served."""
        kind = policy.spec.get("paramKind")
        if not kind or self._param_type(policy) is not None:
            return None
        group, _, version = str(kind.get("apiVersion") or "").rpartition("/")
        return (f"failed to configure policy: failed to find resource referenced by paramKind: "
                f"'{group}/{version}, Kind={kind.get('kind')}'")

    @staticmethod
    def params_namespace(attributes: Attributes) -> str:
        """The namespace a binding's params are looked up in: a Namespace's request carries its own name
        as its namespace upstream."""
        if not attributes.namespace and attributes.kind == ("", "v1", "Namespace"):
            return attributes.name
        return attributes.namespace

    def _params(self, policy: CompiledPolicy, ref: Any, namespace: str) -> list[Any]:
        """The params a binding evaluates with: [None] when the policy or binding names none."""
        kind = policy.spec.get("paramKind")
        if not kind or not isinstance(ref, dict):
            return [None]
        rt = self._param_type(policy)
        if rt is None:
            raise ValueError(f"paramKind kind `{kind.get('apiVersion')}, Kind={kind.get('kind')}` not known")
        where: str | None = None
        if rt.namespaced:
            where = ref.get("namespace") or namespace
            if not where:
                raise ValueError("cannot use namespaced paramRef in policy binding that matches cluster-scoped "
                                 "resources")
        elif ref.get("namespace"):
            raise ValueError("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
        if ref.get("name"):
            if ref.get("selector") is not None:
                raise ValueError("paramRef.name and paramRef.selector are mutually exclusive")
            stored = self._store.get((rt.storage_key, where or "", ref["name"]))
            found = [orjson.loads(stored.data)] if stored is not None else []
        elif ref.get("selector") is not None:
            _, items = self._store.list(rt.storage_key, where)
            found = [obj for obj in (orjson.loads(s.data) for _, s in items)
                     if label_selector_matches(ref["selector"], (obj.get("metadata") or {}).get("labels") or {})]
        else:
            raise ValueError("one of name or selector must be provided")
        if not found and ref.get("parameterNotFoundAction") == "Deny":
            raise ValueError("no params found for policy binding with `Deny` parameterNotFoundAction")
        return found

    def _versioned(self, obj: dict[str, Any] | None, matched: matching.Matched) -> dict[str, Any] | None:
        """`obj` (stored form) in the version of the resource a policy matched the request as."""
        rt = self._registry.lookup(*matched[0])
        if obj is None or rt is None or rt.kind != obj.get("kind") or obj.get("apiVersion") == rt.api_version:
            return obj
        return dict(codec_for(rt).served(orjson.loads(orjson.dumps(obj))))

    def _unversioned(self, obj: dict[str, Any], matched: matching.Matched) -> dict[str, Any]:
        """`obj`, in the version of the resource a policy matched the request as, back in stored form."""
        rt = self._registry.lookup(*matched[0])
        if rt is None or rt.kind != obj.get("kind"):
            return obj
        return dict(codec_for(rt).stored(obj))

    def _activation(self, attributes: Attributes, matched: matching.Matched | None = None) -> dict[str, Any]:
        asked_kind = {"group": attributes.kind.group, "version": attributes.kind.version,
                      "kind": attributes.kind.kind}
        asked_resource = {"group": attributes.resource.group, "version": attributes.resource.version,
                          "resource": attributes.resource.resource}
        matched = matched or (attributes.resource, attributes.kind)
        kind = {"group": matched[1].group, "version": matched[1].version, "kind": matched[1].kind}
        resource = {"group": matched[0].group, "version": matched[0].version, "resource": matched[0].resource}
        user = attributes.user
        user_info: dict[str, Any] = {"username": user.name}
        if user.uid:
            user_info["uid"] = user.uid
        if user.groups:
            user_info["groups"] = list(user.groups)
        if user.extra:
            user_info["extra"] = user.extra_json()
        request: dict[str, Any] = {
            "uid": "", "kind": kind, "resource": resource, "requestKind": asked_kind,
            "requestResource": asked_resource,
            "name": attributes.name, "namespace": attributes.namespace, "operation": attributes.operation,
            "userInfo": user_info, "dryRun": attributes.dry_run}
        if attributes.subresource:
            request["subResource"] = request["requestSubResource"] = attributes.subresource
        if attributes.options is not None:
            request["options"] = attributes.options
        namespace = None
        is_namespace = attributes.kind == ("", "v1", "Namespace")
        if attributes.namespace and not is_namespace:
            found = self._namespace(attributes.namespace)
            if found is not None:
                meta = found.get("metadata") or {}
                namespace = {"metadata": {k: meta[k] for k in _NAMESPACE_META if k in meta},
                             "spec": found.get("spec") or {}, "status": found.get("status") or {}}
        data = {"object": self._versioned(attributes.object, matched),
                "oldObject": self._versioned(attributes.old_object, matched), "request": request,
                "namespaceObject": namespace}
        if self._decider is not None:
            data["authorizer"] = authorization.request_authorizer(self._decider, attributes)
        return data


    def matching_bindings(self, attributes: Attributes) -> list[tuple[CompiledPolicy, list[dict[str, Any]],
                                                                      matching.Matched]]:
        """The policies whose constraints select the request, each with its bindings that select it too
        (none for a policy that cannot run: its configuration_error) and the resource and kind it
        matched as."""
        namespaced = self._namespaced(attributes)
        found: list[tuple[CompiledPolicy, list[dict[str, Any]], matching.Matched]] = []
        for policy, bindings in self._candidates(attributes):
            matched = matching.matched(policy.spec.get("matchConstraints"), attributes, namespaced,
                                       self._namespace_labels, self._equivalents)
            if matched is None:
                continue
            if self.configuration_error(policy) is not None:
                found.append((policy, [], matched))  # refused (or ignored) whichever bindings select it
                continue
            selected = [b for b in bindings if matching.matched(
                (b.get("spec") or {}).get("matchResources"), attributes, namespaced, self._namespace_labels,
                self._equivalents) is not None]
            if selected:
                found.append((policy, selected, matched))
        return found
