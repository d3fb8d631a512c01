"""ObjectMeta validation on create and update, as every kind's Validate and ValidateUpdate start.

Ports staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go (ValidateObjectMetaAccessor,
ValidateObjectMetaAccessorUpdate) and pkg/apis/core/validation's wrappers of them, which add the
finalizer-name check for built-in kinds. Errors come in upstream's order; a map's entries in the order
the body gave them (Go's map order is random, so upstream has none).
"""

from __future__ import annotations

import time
from typing import Any, Callable

from apiserver.errors import FieldError
from apiserver.kinds.validation import (
    TOTAL_ANNOTATION_SIZE_LIMIT,
    dns1123_label,
    dns1123_subdomain,
    label_value,
    long_name as content_long_name,
    path_segment_name,
    qualified_name,
)
from apiserver.registry import field

# (name, is a generateName prefix) -> messages: upstream's ValidateNameFunc.
NameRule = Callable[[str, bool], list[str]]
_STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})
_BANNED_OWNERS = frozenset({("", "v1", "Event")})


def _mask_trailing_dash(name: str) -> str:
    # Upstream drops the last two characters, not one, before adding its stand-in.
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def subdomain_name(name: str, prefix: bool) -> list[str]:
    """NameIsDNSSubdomain: most kinds' names."""
    return list(dns1123_subdomain(_mask_trailing_dash(name) if prefix else name))


def long_name(name: str, prefix: bool) -> list[str]:
    """validate.LongName: ReplicationControllers' and DeviceClasses' names (declarative validation's)."""
    return list(content_long_name(_mask_trailing_dash(name) if prefix else name))


def label_name(name: str, prefix: bool) -> list[str]:
    """NameIsDNSLabel: namespaces' (and, in 1.36, services') names."""
    return list(dns1123_label(_mask_trailing_dash(name) if prefix else name))


def path_segment(name: str, prefix: bool) -> list[str]:
    """ValidatePathSegmentName: RBAC's, API priority and fairness', APIServices' and CRDs' names."""
    if prefix:
        return [f"may not contain '{bad}'" for bad in ("/", "%") if bad in name]
    return path_segment_name(name)


def labels(values: Any, path: str) -> list[FieldError]:
    """ValidateLabels: each key a qualified name, each value a label value."""
    found: list[FieldError] = []
    for key, value in (values or {}).items():
        found += [field.invalid(path, key, msg) for msg in qualified_name(key)]
        found += [field.invalid(path, value, msg) for msg in label_value(value)]
    return found


def label_selector(selector: Any, path: str, allow_invalid_label_value: bool = False,
                   allow_unknown_operator: bool = False) -> list[FieldError]:
    """metav1validation.ValidateLabelSelector with its LabelSelectorValidationOptions: every kind's
    selectors (a Deployment's, a webhook's namespaceSelector, a ClusterRole's aggregation rule)."""
    if not isinstance(selector, dict):
        return []
    found = labels(selector.get("matchLabels"), f"{path}.matchLabels")
    for i, expression in enumerate(selector.get("matchExpressions") or ()):
        found += label_selector_requirement(expression, f"{path}.matchExpressions[{i}]", allow_invalid_label_value,
                                            allow_unknown_operator)
    return found


def _operator_and_values(operator: str, values: list[Any], path: str, allow_unknown_operator: bool
                         ) -> list[FieldError]:
    """What label and field selector requirements share: In and NotIn need values, Exists and
    DoesNotExist take none, and any other operator is refused unless the caller allows it."""
    if operator in ("In", "NotIn"):
        if not values:
            return [field.required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'")]
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            return [field.forbidden(f"{path}.values", "may not be specified when `operator` is 'Exists' or "
                                                     "'DoesNotExist'")]
    elif not allow_unknown_operator:
        return [field.invalid(f"{path}.operator", operator, "not a valid selector operator")]
    return []


def label_selector_requirement(requirement: Any, path: str, allow_invalid_label_value: bool = False,
                               allow_unknown_operator: bool = False) -> list[FieldError]:
    """metav1validation.ValidateLabelSelectorRequirement."""
    requirement = requirement if isinstance(requirement, dict) else {}
    operator, values = requirement.get("operator") or "", requirement.get("values") or []
    found = _operator_and_values(operator, values, path, allow_unknown_operator)
    key = str(requirement.get("key") or "")
    found += [field.invalid(f"{path}.key", key, msg) for msg in qualified_name(key)]
    if not allow_invalid_label_value:
        for i, value in enumerate(values):
            found += [field.invalid(f"{path}.values[{i}]", value, msg) for msg in label_value(str(value))]
    return found


def field_selector_requirement(requirement: Any, path: str, allow_unknown_operator: bool = False
                               ) -> list[FieldError]:
    """metav1validation.ValidateFieldSelectorRequirement."""
    requirement = requirement if isinstance(requirement, dict) else {}
    operator, values = requirement.get("operator") or "", requirement.get("values") or []
    found: list[FieldError] = []
    if not requirement.get("key"):
        found.append(field.required(f"{path}.key", "must be specified"))
    found += _operator_and_values(operator, values, path, allow_unknown_operator)
    return found


def annotations(values: Any, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    for key in values or {}:
        found += [field.invalid(path, key, msg) for msg in qualified_name(key.lower())]
    if sum(len(k) + len(v) for k, v in (values or {}).items()) > TOTAL_ANNOTATION_SIZE_LIMIT:
        found.append(field.too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return found



# ObjectMeta's fields in Go order, but labels and annotations, each with the name upstream shows: the Go
# field's with its first letter lowered (so UID shows as uID).
_TEMPLATE_FORBIDDEN = (
    ("name", "name"), ("generateName", "generateName"), ("namespace", "namespace"), ("selfLink", "selfLink"),
    ("uid", "uID"), ("resourceVersion", "resourceVersion"), ("generation", "generation"),
    ("creationTimestamp", "creationTimestamp"), ("deletionTimestamp", "deletionTimestamp"),
    ("deletionGracePeriodSeconds", "deletionGracePeriodSeconds"), ("ownerReferences", "ownerReferences"),
    ("finalizers", "finalizers"), ("managedFields", "managedFields"),
)


def template_object_meta(meta: Any, path: str) -> list[FieldError]:
    """core's ValidateTemplateObjectMeta: an embedded template's annotations and labels; every other field
    set is Forbidden (validateFieldAllowList)."""
    meta = meta if isinstance(meta, dict) else {}
    found = annotations(meta.get("annotations"), f"{path}.annotations") + labels(meta.get("labels"), f"{path}.labels")
    return found + [field.forbidden(f"{path}.{shown}", "cannot be set")
                    for key, shown in _TEMPLATE_FORBIDDEN if meta.get(key) not in (None, "", 0, [], {})]


_OWNER_REFERENCE_ORDER = ("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion")


def _owner_reference_json(ref: dict[str, Any]) -> dict[str, Any]:
    # Go's struct order; controller and blockOwnerDeletion are pointers, omitted when unset.
    return {k: ref.get(k, "") for k in _OWNER_REFERENCE_ORDER if k in ref or k in ("apiVersion", "kind", "name", "uid")}


def owner_references(refs: Any, path: str) -> list[FieldError]:
    found: list[FieldError] = []
    first_controller = ""
    for ref in refs or ():
        ref = ref if isinstance(ref, dict) else {}
        api_version, kind = str(ref.get("apiVersion") or ""), str(ref.get("kind") or "")
        group, _, version = api_version.rpartition("/") if "/" in api_version else ("", "", api_version)
        if not version:
            found.append(field.invalid(f"{path}.apiVersion", api_version, "version must not be empty"))
        if not kind:
            found.append(field.invalid(f"{path}.kind", kind, "must not be empty"))
        if not ref.get("name"):
            found.append(field.invalid(f"{path}.name", str(ref.get("name") or ""), "must not be empty"))
        if not ref.get("uid"):
            found.append(field.invalid(f"{path}.uid", str(ref.get("uid") or ""), "must not be empty"))
        if (group, version, kind) in _BANNED_OWNERS:
            found.append(field.invalid_shown(path, field.go_json(_owner_reference_json(ref)),
                                             f"{group}/{version}, Kind={kind} is disallowed from being an owner"))
        if ref.get("controller") is True:
            current = f"{kind}/{ref.get('name') or ''}"
            if first_controller:
                shown = field.go_json([_owner_reference_json(r) for r in refs if isinstance(r, dict)])
                found.append(field.invalid_shown(
                    path, shown, 'Only one reference can have Controller set to true. Found "true" in references '
                                 f"for {first_controller} and {current}"))
            else:
                first_controller = current
    return found


def finalizers(values: Any, path: str, kube: bool) -> list[FieldError]:
    """ValidateFinalizers, then (built-in kinds) core's check that a bare name is a standard one."""
    found: list[FieldError] = []
    for value in values or ():
        found += [field.invalid(path, value, msg) for msg in qualified_name(value)]
    if "orphan" in (values or ()) and "foregroundDeletion" in (values or ()):
        found.append(field.invalid(path, list(values), "finalizer orphan and foregroundDeletion cannot be both set"))
    return found + (_kube_finalizers(values, path) if kube else [])


def _kube_finalizers(values: Any, path: str) -> list[FieldError]:
    return [field.invalid(f"{path}[{i}]", value, "name is neither a standard finalizer name nor is it fully qualified")
            for i, value in enumerate(values or ()) if "/" not in value and value not in _STANDARD_FINALIZERS]


def validate(meta: dict[str, Any], namespaced: bool, name_rule: NameRule, kube: bool = True,
             generate_name_checked: bool = True) -> list[FieldError]:
    """ValidateObjectMeta of an object being created (WithOpts: without judging generateName)."""
    found: list[FieldError] = []
    generate_name = meta.get("generateName")
    if generate_name and generate_name_checked:
        found += [field.invalid("metadata.generateName", generate_name, msg) for msg in name_rule(generate_name, True)]
    name = meta.get("name")
    if not name:
        found.append(field.required("metadata.name", "name or generateName is required"))
    else:
        found += [field.invalid("metadata.name", name, msg) for msg in name_rule(name, False)]
    found += _common(meta, namespaced)
    found += finalizers(meta.get("finalizers"), "metadata.finalizers", False)
    return found + (_kube_finalizers(meta.get("finalizers"), "metadata.finalizers") if kube else [])


def _common(meta: dict[str, Any], namespaced: bool) -> list[FieldError]:
    found: list[FieldError] = []
    namespace = meta.get("namespace")
    if namespaced:
        if not namespace:
            found.append(FieldError("FieldValueRequired", "metadata.namespace", "Required value"))
        else:
            found += [field.invalid("metadata.namespace", namespace, msg) for msg in label_name(namespace, False)]
    elif namespace:
        found.append(field.forbidden("metadata.namespace", "not allowed on this type"))
    found += field.nonnegative("metadata.generation", meta.get("generation"))
    found += labels(meta.get("labels"), "metadata.labels")
    found += annotations(meta.get("annotations"), "metadata.annotations")
    return found + owner_references(meta.get("ownerReferences"), "metadata.ownerReferences")


def validate_update(meta: dict[str, Any], old: dict[str, Any], kube: bool = True) -> list[FieldError]:
    """ValidateObjectMetaUpdate: what an update may not change, and the new labels and annotations."""
    found: list[FieldError] = []
    if old.get("deletionTimestamp"):
        added = sorted(set(meta.get("finalizers") or ()) - set(old.get("finalizers") or ()))
        if added:
            found.append(field.forbidden("metadata.finalizers", "no new finalizers can be added if the object is "
                                         "being deleted, found new finalizers []string{"
                                         + ", ".join(field.go_quote(f) for f in added) + "}"))
    new_generation, old_generation = meta.get("generation") or 0, old.get("generation") or 0
    if isinstance(new_generation, int) and isinstance(old_generation, int) and new_generation < old_generation:
        found.append(field.invalid("metadata.generation", new_generation, "must not be decremented"))
    for name in ("name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"):
        if meta.get(name) != old.get(name):
            found.append(field.invalid(f"metadata.{name}", meta.get(name), "field is immutable"))
    found += labels(meta.get("labels"), "metadata.labels")
    found += annotations(meta.get("annotations"), "metadata.annotations")
    found += owner_references(meta.get("ownerReferences"), "metadata.ownerReferences")
    return found + (_kube_finalizers(meta.get("finalizers"), "metadata.finalizers") if kube else [])


def now() -> str:
    """The time a strategy writes into an object it prepares (a condition's, a taint's), to the second
    in UTC, as metav1.Time marshals it."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
