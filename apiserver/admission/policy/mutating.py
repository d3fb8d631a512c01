"""The MutatingAdmissionPolicy admission plugin (upstream: `admission/plugin/policy/mutating`).

For a matching request (apiserver/admission/policy/source.py), each binding that also matches runs the
policy's mutations in order, once per param, each on the object as the previous one left it. A
`JSONPatch` mutation's expression builds `JSONPatch{op, path, from, value}` values, applied as RFC 6902
(a failed `test` leaves the object as it was, as upstream's patcher does). `ApplyConfiguration`
mutations build `Object{spec: Object.spec{...}}` configurations merged by the kind's schema
(`applyconfiguration`). Failures are upstream's:
`policy 'p' with binding 'b' denied request: ...`, 403. A policy with `reinvocationPolicy: IfNeeded`
runs once more when a later mutating plugin changed the object after it.
"""

from __future__ import annotations

import copy
from typing import Any

from google.protobuf.json_format import MessageToDict

from apiserver import errors
from apiserver.admission.attributes import Attributes
from apiserver.admission.chain import ALLOWED, Verdict, forbidden
from apiserver.admission.plugins import register
from apiserver.admission.policy import applyconfiguration
from apiserver.admission.policy.compiled import CompiledPolicy, Expression
from apiserver.admission.policy.matching import Matched
from apiserver.admission.policy.source import PolicySource
from apiserver.errors import ApiError
from apiserver.kinds import fieldvalidation, ownership
from apiserver.patching import gojsonpatch
from apiserver.registry.lookup import strategy_for


class PatchError(Exception):
    pass


_MUTATED = "MutatingAdmissionPolicy mutated"  # attributes.state: a policy changed the object


def _json(value: Any) -> Any:
    """A patch value as JSON: protobuf's Value holds every number as a double, Go writes 3.0 as 3."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    return value


def _operations(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise PatchError("type mismatch: JSONPatchType.expression should evaluate to array")
    operations = []
    for item in value:
        if not hasattr(item, "DESCRIPTOR") or item.DESCRIPTOR.full_name != "JSONPatch":
            raise PatchError("type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch, "
                             f"got element of {type(item).__name__}")
        operation = MessageToDict(item, preserving_proto_field_name=True)
        operation.setdefault("op", "")
        operation.setdefault("path", "")
        if "value" in operation:
            operation["value"] = _json(operation["value"])
        operations.append(operation)
    return operations


def apply_patch(obj: dict[str, Any], expression: Expression, data: dict[str, Any], failed: dict[str, str],
                policy: CompiledPolicy) -> dict[str, Any]:
    """The JSON Patch `policy`'s mutation `expression` answers on `data`, applied to `obj`."""
    value, error = policy.run_alone(expression, data, failed)
    if error is not None:
        raise PatchError(error)
    try:
        return dict(gojsonpatch.apply(obj, _operations(value)))
    except gojsonpatch.TestFailed:
        return obj  # a failed test leaves the object as it was
    except gojsonpatch.PatchError as failure:
        raise PatchError(f"JSON Patch: {failure}") from None


class MutatingAdmissionPolicyPlugin(PolicySource):
    name = "MutatingAdmissionPolicy"
    policies = "mutatingadmissionpolicies"
    bindings = "mutatingadmissionpolicybindings"

    async def admit(self, attributes: Attributes) -> Verdict:
        if attributes.object is None:
            return ALLOWED  # nothing to patch (a delete)
        # The object as each IfNeeded policy left it: one changed since is run again on reinvocation.
        seen: dict[str, Any] = attributes.state.setdefault(self.name, {})
        # Upstream's PolicyErrors: (message, reason); each policy's under its failurePolicy.
        refusals: list[tuple[str, str]] = []
        for policy, bindings, matched in self.matching_bindings(attributes):
            if attributes.reinvoking and (policy.spec.get("reinvocationPolicy") != "IfNeeded"
                                          or seen.get(policy.name) == attributes.object):
                continue
            failing = policy.failure_policy != "Ignore"
            configuration = self.configuration_error(policy)
            if configuration is not None and failing:
                refusals.append((f'policy "{policy.name}" denied request: {configuration}', "Forbidden"))
            for binding in bindings:
                said = f"policy '{policy.name}' with binding '{binding['metadata']['name']}' denied request: "
                try:
                    params = self._params(policy, (binding.get("spec") or {}).get("paramRef"),
                                          self.params_namespace(attributes))
                except ValueError as error:
                    if failing:
                        refusals.append((f"{said}failed to configure binding: {error}", "Forbidden"))
                    continue
                for param in params:
                    for error in self._mutate(policy, attributes, param, matched):
                        if failing:
                            refusals.append((f"{said}{error}", "Invalid"))
            if policy.spec.get("reinvocationPolicy") == "IfNeeded":
                seen[policy.name] = copy.deepcopy(attributes.object)
        if refusals:
            raise self._denial(attributes, refusals)
        self._decodes(attributes)
        if seen and not attributes.reinvoking:
            attributes.reinvoke = True  # the chain runs us again; policies that saw this object skip
        return ALLOWED

    @staticmethod
    def _decodes(attributes: Attributes) -> None:
        """A mutated built-in object must decode into its Go type, as upstream converts the patched object
        back: a value of the wrong type is an internal error in encoding/json's words."""
        obj = attributes.object
        if obj is None or not attributes.state.get(_MUTATED):
            return
        problem = fieldvalidation.decode_problem(obj, (attributes.kind.kind, str(obj.get("apiVersion") or "")),
                                                 unstructured=True)
        if problem is not None:
            raise errors.internal(problem)

    def _mutate(self, policy: CompiledPolicy, attributes: Attributes, param: Any, matched: Matched) -> list[str]:
        """Runs the policy's mutations in order on the object as the resource it matched the request as;
        each failing mutation's error, the others applied (upstream's dispatcher goes on past one)."""
        data = {**self._activation(attributes, matched), "params": param}
        condition = policy.conditions_match(data)
        if condition is False:
            return []
        if not isinstance(condition, bool):
            return [condition.message] if condition.action == "deny" else []
        failed = policy.bind_variables(data)
        unconvertible = self._unconvertible(attributes, matched)
        refusals = []
        for kind, expression in policy.mutations:
            current = attributes.object
            assert current is not None  # admit returns before any mutation when there is no object
            data["object"] = shown = self._versioned(current, matched)
            values = dict(data)  # this mutation's: the next one sees the object it patched
            try:
                if kind == "JSONPatch":
                    patched = apply_patch(copy.deepcopy(shown), expression, values, failed, policy)
                elif kind == "ApplyConfiguration":
                    patched = self._applied(attributes, copy.deepcopy(shown), expression, values, failed, policy)
                else:
                    raise PatchError(f"patchType {kind} is not supported by this server")
            except PatchError as error:
                refusals.append(str(error))
                continue
            if unconvertible is not None:
                refusals.append(unconvertible)
                continue
            if patched != shown:
                attributes.object = self._defaulted(attributes, patched if shown is current
                                                    else self._unversioned(patched, matched))
                attributes.state[_MUTATED] = True
        return refusals

    def _unconvertible(self, attributes: Attributes, matched: Matched) -> str | None:
        """Why a built-in object patched as an equivalent version of the request's cannot be taken back:
        upstream's dispatcher converts the patched typed object straight to the request's version, a
        conversion its scheme does not have (a custom object is converted through its CRD instead)."""
        kind = matched[1]
        rt = self._registry.lookup(attributes.resource.group, attributes.resource.version, attributes.resource.resource)
        if kind == attributes.kind or rt is None or rt.custom is not None:
            return None
        return f"converting ({kind.version}.{kind.kind}) to ({attributes.kind.version}.{attributes.kind.kind}): " \
               "unknown conversion"

    def _defaulted(self, attributes: Attributes, obj: dict[str, Any]) -> dict[str, Any]:
        """What a mutation changed defaulted again, as upstream's dispatcher defaults each patched object."""
        resource = attributes.resource
        rt = self._registry.lookup(resource.group, resource.version, resource.resource)
        if rt is not None and rt.kind == obj.get("kind"):
            if rt.custom is not None:
                rt.custom.prepare(obj)
            else:
                strategy_for(rt).default(obj)
        return obj

    def _applied(self, attributes: Attributes, obj: dict[str, Any], expression: Expression, data: dict[str, Any],
                 failed: dict[str, str], policy: CompiledPolicy) -> dict[str, Any]:
        value, error = policy.run_alone(expression, data, failed)
        if error is not None:
            raise PatchError(error)
        resource = attributes.resource
        rt = self._registry.lookup(resource.group, resource.version, resource.resource)
        schema = None if rt is None else ownership.ownership_schema(rt, obj)[0]
        try:
            return applyconfiguration.merged(obj, applyconfiguration.configuration(_json(value)), schema)
        except applyconfiguration.ApplyConfigurationError as failure:
            raise PatchError(str(failure)) from None

    @staticmethod
    def _denial(attributes: Attributes, refusals: list[tuple[str, str]]) -> ApiError:
        """upstream's policyDispatcher: admission.NewForbidden with the first error as its message (and its
        reason, Forbidden for a configuration error), every error a cause."""
        refusal = forbidden(attributes, "", [message for message, _ in refusals])
        message, reason = refusals[0]
        return ApiError(403, reason, message, refusal.details)


register("MutatingAdmissionPolicy", MutatingAdmissionPolicyPlugin)
