"""Which kinds take an update that names no resourceVersion (its strategy's AllowUnconditionalUpdate),
and which create the object an update names when it is missing (AllowCreateOnUpdate).

An update whose resourceVersion is unset or "0" replaces whatever is stored for most kinds; for these
(and every custom resource) upstream's store refuses it with "must be specified for an update".
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


# Kinds whose update of a missing object creates it (the strategy's AllowCreateOnUpdate); for the rest
# it is answered 404. events.k8s.io Events share core's strategy.
CREATES_ON_UPDATE = frozenset({"RuntimeClass", "RoleBinding", "ClusterRoleBinding", "Role", "ClusterRole", "Lease",
                               "LeaseCandidate", "LimitRange", "Event", "Service", "Endpoints"})


def creates_on_update(rt: ResourceType) -> bool:
    return rt.custom is None and rt.kind in CREATES_ON_UPDATE


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
    """The resourceVersion an update must match, None for an unconditional one; 422 for none (or "0")
    where the kind allows no unconditional update; 500 for one that is not a number."""
    if given:
        parsed_version(given)
    if given and given != "0":
        return given
    if rt.custom is not None or rt.kind in CONDITIONAL_ONLY:
        raise errors.invalid(rt.plural, rt.group, name, [errors.FieldError(
            "FieldValueInvalid", "metadata.resourceVersion", "Invalid value: 0: must be specified for an update")])
    return None
