"""The ValidatingAdmissionPolicy admission plugin (upstream: `admission/plugin/policy/validating`).

For a matching request (apiserver/admission/policy/source.py), each binding that also matches is
evaluated once per param (a ConfigMap or custom resource named by `paramRef`, or found by its
selector), and its failures are dealt with by the binding's `validationActions`: Deny refuses the
write with the first failure (`ValidatingAdmissionPolicy 'p' with binding 'b' denied request: ...`,
code from the rule's reason, 422 by default), Warn adds a Warning header, Audit an audit annotation.
"""

from __future__ import annotations

import json
from typing import Any

from apiserver.admission.attributes import Attributes
from apiserver.admission.chain import ALLOWED, Verdict, forbidden, with_warnings
from apiserver.admission.plugins import register
from apiserver.admission.policy.compiled import CompiledPolicy, Decision
from apiserver.admission.policy.source import PolicySource
from apiserver.cel.environment import activation
from apiserver.errors import ApiError

_CODES = {"Forbidden": 403, "Unauthorized": 401, "RequestEntityTooLarge": 413, "Invalid": 422}
_FAILURE_KEY = "validation.policy.admission.k8s.io/validation_failure"


class ValidatingAdmissionPolicyPlugin(PolicySource):
    name = "ValidatingAdmissionPolicy"
    policies = "validatingadmissionpolicies"
    bindings = "validatingadmissionpolicybindings"

    async def validate(self, attributes: Attributes) -> Verdict:
        denied: list[tuple[CompiledPolicy, dict[str, Any] | None, Decision]] = []
        warnings: list[str] = []
        annotations: dict[str, str] = {}
        activations: dict[Any, dict[str, Any]] = {}  # by the resource and kind a policy matched as
        for policy, bindings, matched in self.matching_bindings(attributes):
            configuration = self.configuration_error(policy)
            if configuration is not None and policy.failure_policy == "Fail":
                denied.append((policy, None, Decision("deny", configuration)))
            for binding in bindings:
                spec = binding.get("spec") or {}
                try:
                    params = self._params(policy, spec.get("paramRef"), self.params_namespace(attributes))
                except ValueError as error:
                    if policy.failure_policy == "Fail":
                        denied.append((policy, binding, Decision("deny", f"failed to configure binding: {error}")))
                    continue
                data = activations.get(matched)
                if data is None:
                    data = activations[matched] = self._activation(attributes, matched)
                for param in params:
                    self._evaluate(policy, binding, {**data, "params": param}, denied, warnings, annotations)
        if denied:
            # the warnings of the bindings that only warn are written with the refusal, as upstream's are
            raise with_warnings(self._denial(attributes, *denied[0]), warnings)
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
        failed = policy.bind_variables(data)
        bound = activation(data)  # the validations, their messages and the annotations share it
        actions = (binding.get("spec") or {}).get("validationActions") or []
        binding_name = binding["metadata"]["name"]
        for index, decision in enumerate(policy.decide(bound, data, failed)):
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
        published, failures = policy.annotate(bound, failed)
        annotations.update(published)
        denied.extend((policy, binding, failure) for failure in failures if failure.action == "deny")

    @staticmethod
    def _denial(attributes: Attributes, policy: CompiledPolicy, binding: dict[str, Any] | None,
                decision: Decision) -> ApiError:
        if binding is not None:
            message = (f"ValidatingAdmissionPolicy '{policy.name}' with binding '{binding['metadata']['name']}' "
                       f"denied request: {decision.message}")
        else:
            message = f"ValidatingAdmissionPolicy '{policy.name}' denied request: {decision.message}"
        refusal = forbidden(attributes, message, [message])
        reason = decision.reason or "Invalid"
        return ApiError(_CODES.get(reason, 422), reason, refusal.message, refusal.details)


register("ValidatingAdmissionPolicy", ValidatingAdmissionPolicyPlugin)
