"""The ValidatingAdmissionPolicy admission plugin: policies and bindings followed from the store.

Upstream: `admission/plugin/policy/validating/{dispatcher,plugin}.go`. Policies are compiled when they
change (apiserver/admission/policy/compiled.py) and kept with their bindings; the resources each
policy's rules can select are indexed, so a write that no policy can match costs one dictionary
look-up. For a matching request, each binding that also matches is evaluated once per param (a
ConfigMap or custom resource named by `paramRef`, or found by its selector), and its failures are
dealt with by the binding's `validationActions`: Deny refuses the write with the first failure
(`ValidatingAdmissionPolicy 'p' with binding 'b' denied request: ...`, code from the rule's reason,
422 by default), Warn adds a Warning header, Audit an audit annotation.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import orjson

from apiserver.admission.attributes import Attributes
from apiserver.admission.chain import ALLOWED, Verdict
from apiserver.admission.plugins import PluginContext, register
from apiserver.admission.policy import matching
from apiserver.admission.policy.compiled import CompiledPolicy, Decision
from apiserver.controllers.selectors import label_selector_matches
from apiserver.errors import ApiError
from apiserver.storage.interface import Change

log = logging.getLogger(__name__)

GROUP = "admissionregistration.k8s.io"
_CODES = {"Forbidden": 403, "Unauthorized": 401, "RequestEntityTooLarge": 413, "Invalid": 422}
_FAILURE_KEY = "validation.policy.admission.k8s.io/validation_failure"
_NAMESPACE_META = ("name", "generateName", "namespace", "uid", "resourceVersion", "generation",
                   "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
                   "annotations", "finalizers")
Hook = tuple[CompiledPolicy, list[dict[str, Any]]]


class ValidatingAdmissionPolicyPlugin:
    name = "ValidatingAdmissionPolicy"

    def __init__(self, context: PluginContext) -> None:
        self._store = context.store
        self._registry = context.registry
        self._policies: dict[str, CompiledPolicy] = {}
        self._bindings: dict[str, dict[str, Any]] = {}
        self._hooks: list[Hook] = []
        self._by_resource: dict[tuple[str, str], list[Hook]] = {}
        self._unsubscribe: list[Any] = []

    def _storage_key(self, plural: str) -> str:
        rt = self._registry.lookup(GROUP, "v1", plural)
        if rt is None:
            raise LookupError(f"{GROUP}/v1 {plural} is not served")
        return str(rt.storage_key)

    async def start(self) -> None:
        for plural, follow in (("validatingadmissionpolicies", self._policy_changed),
                               ("validatingadmissionpolicybindings", self._binding_changed)):
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

    async def validate(self, attributes: Attributes) -> Verdict:
        namespaced = self._namespaced(attributes)
        denied: list[tuple[CompiledPolicy, dict[str, Any] | None, Decision]] = []
        warnings: list[str] = []
        annotations: dict[str, str] = {}
        data: dict[str, Any] | None = None
        for policy, bindings in self._candidates(attributes):
            if not matching.matches(policy.spec.get("matchConstraints"), attributes, namespaced,
                                    self._namespace_labels):
                continue
            for binding in bindings:
                spec = binding.get("spec") or {}
                if not matching.matches(spec.get("matchResources"), attributes, namespaced, self._namespace_labels):
                    continue
                try:
                    params = self._params(policy, spec.get("paramRef"), attributes.namespace)
                except ValueError as error:
                    if policy.failure_policy == "Fail":
                        denied.append((policy, binding, Decision("deny", f"failed to configure binding: {error}")))
                    continue
                if data is None:
                    data = self._activation(attributes)
                for param in params:
                    self._evaluate(policy, binding, {**data, "params": param}, denied, warnings, annotations)
        if denied:
            raise self._denial(attributes, *denied[0])
        if not warnings and not annotations:
            return ALLOWED
        return Verdict(tuple(warnings), tuple(annotations.items()))

    def _evaluate(self, policy: CompiledPolicy, binding: dict[str, Any], data: dict[str, Any],
                  denied: list[Any], warnings: list[str], annotations: dict[str, str]) -> None:
        matched = policy.conditions_match(data)
        if matched is False:
            return
        if isinstance(matched, Decision):
            if matched.action == "deny":
                denied.append((policy, binding, matched))
            return
        policy.bind_variables(data)
        actions = (binding.get("spec") or {}).get("validationActions") or []
        binding_name = binding["metadata"]["name"]
        for index, decision in enumerate(policy.decide(data)):
            if decision.action != "deny":
                continue
            if "Deny" in actions:
                denied.append((policy, binding, decision))
            if "Warn" in actions:
                warnings.append(f"Validation failed for ValidatingAdmissionPolicy '{policy.name}' with binding "
                                f"'{binding_name}': {decision.message}")
            if "Audit" in actions:
                annotations[_FAILURE_KEY] = json.dumps([{
                    "expressionIndex": index, "message": decision.message, "validationActions": actions,
                    "binding": binding_name, "policy": policy.name}], separators=(",", ":"))
        published, failures = policy.annotate(data)
        annotations.update(published)
        denied.extend((policy, binding, failure) for failure in failures if failure.action == "deny")

    def _params(self, policy: CompiledPolicy, ref: Any, namespace: str) -> list[Any]:
        """The params a binding evaluates with: [None] when the policy or binding names none."""
        kind = policy.spec.get("paramKind")
        if not kind or not isinstance(ref, dict):
            return [None]
        group, _, version = str(kind.get("apiVersion") or "").rpartition("/")
        rt = next((t for t in self._registry.in_group_version(group, version) if t.kind == kind.get("kind")), None)
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

    def _activation(self, attributes: Attributes) -> dict[str, Any]:
        kind = {"group": attributes.kind.group, "version": attributes.kind.version, "kind": attributes.kind.kind}
        resource = {"group": attributes.resource.group, "version": attributes.resource.version,
                    "resource": attributes.resource.resource}
        user = attributes.user
        user_info: dict[str, Any] = {"username": user.name}
        if user.uid:
            user_info["uid"] = user.uid
        if user.groups:
            user_info["groups"] = list(user.groups)
        if user.extra:
            user_info["extra"] = user.extra_json()
        request: dict[str, Any] = {
            "uid": "", "kind": kind, "resource": resource, "requestKind": kind, "requestResource": resource,
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
        return {"object": attributes.object, "oldObject": attributes.old_object, "request": request,
                "namespaceObject": namespace}

    @staticmethod
    def _denial(attributes: Attributes, policy: CompiledPolicy, binding: dict[str, Any] | None,
                decision: Decision) -> ApiError:
        if binding is not None:
            message = (f"ValidatingAdmissionPolicy '{policy.name}' with binding '{binding['metadata']['name']}' "
                       f"denied request: {decision.message}")
        else:
            message = f"ValidatingAdmissionPolicy '{policy.name}' denied request: {decision.message}"
        group, resource, name = attributes.resource.group, attributes.resource.resource, attributes.name
        qualified = f"{resource}.{group}" if group else resource
        text = f'{qualified} "{name}" is forbidden: {message}' if name else f"{qualified} is forbidden: {message}"
        details: dict[str, Any] = {"name": name, "group": group, "kind": resource, "causes": [{"message": message}]}
        if not name:
            del details["name"]
        if not group:
            del details["group"]
        reason = decision.reason or "Invalid"
        return ApiError(_CODES.get(reason, 422), reason, text, details)


register("ValidatingAdmissionPolicy", ValidatingAdmissionPolicyPlugin)
