"""Which kinds take an update that names no resourceVersion (its strategy's AllowUnconditionalUpdate).

An update whose resourceVersion is unset or "0" replaces whatever is stored for most kinds; for these
(and every custom resource) upstream's store refuses either with "must be specified for an update".
"""

from __future__ import annotations

from apiserver import errors
from apiserver.kinds.resources import ResourceType

CONDITIONAL_ONLY = frozenset({
    "PodCertificateRequest", "ClusterTrustBundle", "RuntimeClass", "StorageVersionMigration",
    "PodDisruptionBudget", "ResourcePoolStatusRequest", "StorageVersion", "CSIDriver", "CSIStorageCapacity",
    "VolumeAttachment", "CSINode", "Lease", "LeaseCandidate", "ValidatingAdmissionPolicy",
    "MutatingAdmissionPolicy", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
    "MutatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding", "CustomResourceDefinition",
    "APIService",
})


def precondition(rt: ResourceType, name: str, given: str | None) -> str | None:
    """The resourceVersion an update must match, None for an unconditional one; 422 for none (or "0",
    which parses the same) where the kind allows no unconditional update."""
    if given and given != "0":
        return given
    if rt.custom is not None or rt.kind in CONDITIONAL_ONLY:
        raise errors.invalid(rt.plural, rt.group, name, [errors.FieldError(
            "FieldValueInvalid", "metadata.resourceVersion", "Invalid value: 0: must be specified for an update")])
    return None
