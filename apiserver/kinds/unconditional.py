"""Which kinds take an update that names no resourceVersion (its strategy's AllowUnconditionalUpdate),
and what a resourceVersion a write names must be.

An update whose resourceVersion is unset or "0" replaces whatever is stored for most kinds; for these
(and every custom resource) upstream's store refuses either with "must be specified for an update".
"""

from __future__ import annotations

from apiserver import errors
from apiserver.kinds.resources import ResourceType
from apiserver.registry.field import go_quote

CONDITIONAL_ONLY = frozenset({
    "PodCertificateRequest", "ClusterTrustBundle", "RuntimeClass", "StorageVersionMigration",
    "PodDisruptionBudget", "ResourcePoolStatusRequest", "StorageVersion", "CSIDriver", "CSIStorageCapacity",
    "VolumeAttachment", "CSINode", "Lease", "LeaseCandidate", "ValidatingAdmissionPolicy",
    "MutatingAdmissionPolicy", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
    "MutatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding", "CustomResourceDefinition",
    "APIService",
})


def parsed_version(given: str) -> int:
    """A resourceVersion as upstream's storage versioner reads one (strconv.ParseUint); what it cannot
    read fails the write with Go's error, answered 500."""
    if not given.isascii() or not given.isdigit():
        raise errors.unknown(f"strconv.ParseUint: parsing {go_quote(given)}: invalid syntax")
    if int(given) >= 1 << 64:
        raise errors.unknown(f"strconv.ParseUint: parsing {go_quote(given)}: value out of range")
    return int(given)


def set_on_create(given: object) -> bool:
    """Whether a created object names a resourceVersion storage refuses: a number other than 0 (one
    that is not a number storage reads as none)."""
    return isinstance(given, str) and given.isascii() and given.isdigit() and int(given) != 0 \
        and int(given) < 1 << 64


def precondition(rt: ResourceType, name: str, given: str | None) -> str | None:
    """The resourceVersion an update must match, None for an unconditional one; 422 for none (or "0",
    which parses the same) where the kind allows no unconditional update; 500 for one that is not a number."""
    if given:
        parsed_version(given)
    if given and given != "0":
        return given
    if rt.custom is not None or rt.kind in CONDITIONAL_ONLY:
        raise errors.invalid(rt.plural, rt.group, name, [errors.FieldError(
            "FieldValueInvalid", "metadata.resourceVersion", "Invalid value: 0: must be specified for an update")])
    return None
