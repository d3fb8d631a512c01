"""admissionregistration.k8s.io/v1's strategies: pkg/registry/admissionregistration/<kind>/strategy.go."""

from __future__ import annotations

from apiserver.registry.admissionregistration import defaults, param_access, policies, validation
from apiserver.registry.strategy import KindStrategy, Strategy

STRATEGIES: dict[str, Strategy] = {
    "ValidatingWebhookConfiguration": KindStrategy(
        kube_finalizers=False,
        default=defaults.validating_webhook_configuration,
        validate=validation.validating_webhook_configuration,
        validate_update=validation.validating_webhook_configuration_update,
        generation_field="webhooks",
    ),
    "MutatingWebhookConfiguration": KindStrategy(
        kube_finalizers=False,
        default=defaults.mutating_webhook_configuration,
        validate=validation.mutating_webhook_configuration,
        validate_update=validation.mutating_webhook_configuration_update,
        generation_field="webhooks",
    ),
    "ValidatingAdmissionPolicy": KindStrategy(
        kube_finalizers=False,
        authorize_valid=param_access.policy_param_kind,
        default=defaults.admission_policy,
        validate=policies.validating_admission_policy,
        validate_update=policies.validating_admission_policy,
    ),
    "MutatingAdmissionPolicy": KindStrategy(
        kube_finalizers=False,
        authorize_valid=param_access.policy_param_kind,
        default=defaults.mutating_admission_policy,
        validate=policies.mutating_admission_policy,
        validate_update=policies.mutating_admission_policy,
    ),
    "ValidatingAdmissionPolicyBinding": KindStrategy(
        kube_finalizers=False,
        authorize_valid=param_access.validating_binding_param_ref,
        default=defaults.policy_binding,
        validate=policies.validating_admission_policy_binding,
    ),
    "MutatingAdmissionPolicyBinding": KindStrategy(
        kube_finalizers=False,
        authorize_valid=param_access.mutating_binding_param_ref,
        default=defaults.policy_binding,
        validate=policies.mutating_admission_policy_binding,
    ),
}
