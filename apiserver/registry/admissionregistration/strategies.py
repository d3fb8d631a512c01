"""admissionregistration.k8s.io/v1's strategies: pkg/registry/admissionregistration/<kind>/strategy.go."""

from __future__ import annotations

from apiserver.kinds import policyvalidation
from apiserver.registry.admissionregistration import defaults, validation
from apiserver.registry.strategy import KindStrategy, Strategy

STRATEGIES: dict[str, Strategy] = {
    "ValidatingWebhookConfiguration": KindStrategy(kube_finalizers=False, default=defaults.validating_webhook_configuration,
                                                   validate=validation.webhook_configuration,
                                                   validate_update=validation.webhook_configuration_update,
                                                   generation_field="webhooks"),
    "MutatingWebhookConfiguration": KindStrategy(kube_finalizers=False, default=defaults.mutating_webhook_configuration,
                                                 validate=validation.webhook_configuration,
                                                 validate_update=validation.webhook_configuration_update,
                                                 generation_field="webhooks"),
    # The policies' expressions are compiled by kinds/policyvalidation.py, with the CEL package.
    "ValidatingAdmissionPolicy": KindStrategy(kube_finalizers=False, 
        default=defaults.admission_policy,
        validate=lambda obj: policyvalidation.validating_admission_policy(obj, None),
        validate_update=policyvalidation.validating_admission_policy),
    "MutatingAdmissionPolicy": KindStrategy(kube_finalizers=False, 
        default=defaults.mutating_admission_policy,
        validate=lambda obj: policyvalidation.mutating_admission_policy(obj, None),
        validate_update=policyvalidation.mutating_admission_policy),
    "ValidatingAdmissionPolicyBinding": KindStrategy(kube_finalizers=False, default=defaults.policy_binding),
    "MutatingAdmissionPolicyBinding": KindStrategy(kube_finalizers=False, default=defaults.policy_binding),
}
