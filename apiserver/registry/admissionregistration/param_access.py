"""Who may point an admission policy at its params (pkg/registry/admissionregistration/*/authz.go).

A policy's paramKind and a binding's paramRef let the policy read objects when it runs, so whoever writes
one must be able to read them: `get` on every object of the paramKind for a policy; `get` on the object
a binding's paramRef names, or `list` when it names none, for a binding. System:masters is never asked,
nor is a write that keeps what the old object had. Each strategy asks only of an object otherwise valid,
and a refusal is a Forbidden at `spec.paramKind` or `spec.paramRef` in the same 422.
"""

from __future__ import annotations

from typing import Any

from apiserver.auth.access import ADMIN_GROUP, Attributes
from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.hooks import Cluster, Request, Requester

Obj = dict[str, Any]


def policy_param_kind(new: Obj, old: Obj | None, request: Request, cluster: Cluster) -> list[FieldError]:
    """authorizeCreate and authorizeUpdate of the Validating- and MutatingAdmissionPolicy strategies."""
    kind = _spec(new).get("paramKind")
    if not isinstance(kind, dict):
        return []
    old_kind = _spec(old).get("paramKind") if old is not None else None
    if isinstance(old_kind, dict) and _param_kind(old_kind) == _param_kind(kind):
        return []
    requester = _asked(request)
    if requester is None or request.ask is None:
        return []
    api_version, kind_name = _param_kind(kind)
    if request.ask(Attributes("get", *_resolved(cluster, api_version, kind_name), None, "*", "*")) is None:
        return []
    return [field.forbidden("spec.paramKind", f'user {_go_user(requester)} must have "get" permission on all '
                                              f"objects of the referenced paramKind (kind={kind_name}, "
                                              f"apiVersion={api_version})")]


def validating_binding_param_ref(new: Obj, old: Obj | None, request: Request,
                                 cluster: Cluster) -> list[FieldError]:
    return _binding_param_ref(new, old, request, cluster, "validatingadmissionpolicies", swapped=False)


def mutating_binding_param_ref(new: Obj, old: Obj | None, request: Request,
                               cluster: Cluster) -> list[FieldError]:
    # The mutating binding's message names the verb where the user goes and the user where the verb
    # goes: its authz.go passes them to Errorf the other way round.
    return _binding_param_ref(new, old, request, cluster, "mutatingadmissionpolicies", swapped=True)


def _binding_param_ref(new: Obj, old: Obj | None, request: Request, cluster: Cluster, policies: str,
                       swapped: bool) -> list[FieldError]:
    """The bindings' authorizeCreate and authorizeUpdate."""
    spec = _spec(new)
    ref = spec.get("paramRef")
    if not isinstance(ref, dict):
        return []
    if old is not None and _same_param_ref(_spec(old), spec):
        return []
    requester = _asked(request)
    if requester is None or request.ask is None:
        return []
    policy_name = str(spec.get("policyName") or "")
    group, resource = "*", "*"
    missing_policy = unparsed = unresolved = False
    policy = cluster.get(f"admissionregistration.k8s.io/{policies}", "", policy_name)
    param_kind = _spec(policy).get("paramKind") if policy is not None else None
    if policy is None:
        missing_policy = True
    elif isinstance(param_kind, dict):
        api_version, kind_name = _param_kind(param_kind)
        parsed = _group_version(api_version)
        if parsed is None:
            unparsed = True
        else:
            group = parsed[0]
            plural = cluster.resource_of(api_version, kind_name)
            if plural is None:
                unresolved = True
            else:
                resource = plural
    name = str(ref.get("name") or "")
    verb = "get" if name else "list"
    if request.ask(Attributes(verb, group, resource, None, str(ref.get("namespace") or ""), name)) is None:
        return []
    user = _go_user(requester)
    if missing_policy:
        why = (f"unable to get policy {policy_name} to determine minimum required permissions and user {user} "
               f'does not have "{verb}" permission for all groups, versions and resources')
    elif unparsed or unresolved:
        how = "parse" if unparsed else "resolve"
        api_version, kind_name = _param_kind(param_kind or {})
        why = (f"unable to {how} paramKind &{{{api_version} {kind_name}}} to determine minimum required "
               f'permissions and user {user} does not have "{verb}" permission for all groups, versions and '
               "resources")
    elif swapped:
        why = f'user {verb} does not have "{user}" permission on the object referenced by paramRef'
    else:
        why = f'user {user} does not have "{verb}" permission on the object referenced by paramRef'
    return [field.forbidden("spec.paramRef", why)]


def _same_param_ref(old_spec: Obj, spec: Obj) -> bool:
    """`*old.ParamRef == *new.ParamRef` and the same policy: Go compares the selector and the
    parameterNotFoundAction as pointers, which two decoded objects never share unless both are unset."""
    old_ref, ref = old_spec.get("paramRef"), spec.get("paramRef")
    if not isinstance(old_ref, dict) or not isinstance(ref, dict):
        return False
    if any(r.get(key) is not None for r in (old_ref, ref) for key in ("selector", "parameterNotFoundAction")):
        return False
    return (str(old_ref.get("name") or ""), str(old_ref.get("namespace") or "")) == \
        (str(ref.get("name") or ""), str(ref.get("namespace") or "")) and \
        old_spec.get("policyName") == spec.get("policyName")


def _asked(request: Request) -> Requester | None:
    """Who must be authorized: nobody for the server's own writes, nor for system:masters
    (rbacregistry.EscalationAllowed)."""
    requester = request.requester
    if requester is None or ADMIN_GROUP in requester.groups:
        return None
    return requester


def _resolved(cluster: Cluster, api_version: str, kind: str) -> tuple[str, str]:
    """The group and resource to authorize: every one ("*") as far as the paramKind does not say."""
    parsed = _group_version(api_version)
    if parsed is None:
        return "*", "*"
    return parsed[0], cluster.resource_of(api_version, kind) or "*"


def _group_version(api_version: str) -> tuple[str, str] | None:
    """schema.ParseGroupVersion: "" is the empty group version, "v1" the core group, "g/v" a group;
    more than one slash is an error."""
    if not api_version:
        return "", ""
    if api_version.count("/") > 1:
        return None
    group, _, version = api_version.rpartition("/")
    return group, version


def _param_kind(kind: Obj) -> tuple[str, str]:
    return str(kind.get("apiVersion") or ""), str(kind.get("kind") or "")


def _spec(obj: Obj | None) -> Obj:
    spec = (obj or {}).get("spec")
    return spec if isinstance(spec, dict) else {}


def _go_user(requester: Requester) -> str:
    """The user as Go's %v prints a *user.DefaultInfo: &{name uid [groups] map[key:[values]]}."""
    extra = " ".join(f"{key}:[{' '.join(values)}]" for key, values in sorted(requester.extra.items()))
    return f"&{{{requester.name} {requester.uid} [{' '.join(requester.groups)}] map[{extra}]}}"
