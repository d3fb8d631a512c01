"""Which kind a write's body may name: upstream decodes it with a runtime.Scheme, and refuses a body
whose kind and apiVersion that scheme cannot turn into the URL's kind.

The schemes' registered kinds come from apiserver/data/scheme.json (tools/scheme_facts.py): the legacy
scheme holds every built-in group, apiextensions-apiserver's and kube-aggregator's their one group
each. Custom resources decode as unstructured objects and are not judged here.
"""

from __future__ import annotations

import importlib.resources
import json
from typing import Any

from apiserver import errors
from apiserver.kinds.resources import ResourceType
from apiserver.wire import gojson

_FACTS: dict[str, Any] = json.loads((importlib.resources.files("apiserver") / "data" / "scheme.json").read_bytes())
# metav1.AddToGroupVersion: unversioned kinds, known in every group and version of every scheme ...
_UNVERSIONED = frozenset({"Status", "APIVersions", "APIGroupList", "APIGroup", "APIResourceList"})
# ... and the kinds it adds to each group/version a scheme registers.
_PER_VERSION = frozenset({"WatchEvent", "ListOptions", "GetOptions", "DeleteOptions", "CreateOptions",
                          "UpdateOptions", "PatchOptions"})
TYPE_META_STRUCT = ('struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
                     'Kind string "json:\\"kind,omitempty\\"" }')


def _scheme_of(group: str) -> dict[str, Any]:
    found: dict[str, Any] = _FACTS.get(group) or _FACTS["legacy"]
    return found


def unrecognized(kind: str, problem: str, raw: bytes) -> errors.ApiError:
    """transformDecodeError when the body's kind could not be read."""
    return errors.bad_request(f"the object provided is unrecognized (must be of type {kind}): {problem} "
                              f"({gojson.summary(raw)})")


def unreadable_type_meta(kind: str, body: Any, raw: bytes) -> errors.ApiError | None:
    """The body is not an object, or its kind or apiVersion not strings: the JSON serializer cannot
    read its type meta (json.Unmarshal into a struct of the two strings)."""
    if not isinstance(body, dict):
        found = json_type(body)
        return unrecognized(kind, "couldn't get version/kind; json parse error: json: cannot unmarshal "
                                   f"{found} into Go value of type {TYPE_META_STRUCT}", raw)
    for field_name in ("apiVersion", "kind"):
        value = body.get(field_name)
        if value is not None and not isinstance(value, str):
            return unrecognized(kind, "couldn't get version/kind; json parse error: json: cannot unmarshal "
                                       f"{json_type(value)} into Go struct field .{field_name} of type string", raw)
    if body.get("apiVersion") and body["apiVersion"].count("/") > 1:
        return unrecognized(kind, f"unexpected GroupVersion string: {body['apiVersion']}", raw)
    return None


def json_type(value: Any) -> str:
    """The JSON type Go's decoder names in an unmarshal error."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object" if isinstance(value, dict) else "null"


def _with_defaults(rt: ResourceType, kind: str, api_version: str) -> tuple[str, str, str, str]:
    """(kind, group, version, group/version) of a body, each defaulted from rt's when absent, as
    upstream's gvkWithDefaults does."""
    group, _, version = api_version.rpartition("/")
    if not kind:
        kind = rt.kind
    if not version and not group:
        group, version = rt.group, rt.version
    elif not version and group == rt.group:
        version = rt.version
    return kind, group, version, f"{group}/{version}" if group else version


def decoding_problem(rt: ResourceType, kind: str, api_version: str) -> str | None:
    """What the decoder says of JSON naming this kind and apiVersion decoded into rt's Go type: its kind is
    not registered for its version, or is another Go type that does not convert. None: it decodes, in
    whichever version of rt's kind."""
    if rt.custom is not None:
        return None
    kind, group, version, group_version = _with_defaults(rt, kind, api_version)
    scheme = _scheme_of(rt.group)
    kinds = scheme["kinds"]
    target = kinds.get(rt.group_version, {}).get(rt.kind)
    if kind in _UNVERSIONED or (kind in _PER_VERSION and group_version in kinds):
        return f"converting (v1.{kind}) to ({target}): unknown conversion"
    if kind not in kinds.get(group_version, ()):
        if version == "__internal":
            return (f'no kind "{kind}" is registered for the internal version of group "{group}" in scheme '
                    f'"{scheme["name"]}"')
        return f'no kind "{kind}" is registered for version "{group_version}" in scheme "{scheme["name"]}"'
    if kinds[group_version][kind] != target:
        return f"converting ({version}.{kind}) to ({target}): unknown conversion"
    return None


def decoding_error(rt: ResourceType, kind: str, api_version: str) -> errors.ApiError | None:
    """Why a body naming this kind and apiVersion cannot be decoded as rt's kind (decoding_problem), or,
    decoded, its version is not rt's, as a create or update handler answers. None: it can."""
    if rt.custom is not None:
        return None
    problem = decoding_problem(rt, kind, api_version)
    kind, _, version, group_version = _with_defaults(rt, kind, api_version)
    if problem is not None:
        return errors.bad_request(f'{kind} in version "{version}" cannot be handled as a {rt.kind}: {problem}')
    if group_version != rt.group_version:
        return errors.bad_request(f"the API version in the data ({group_version}) does not match the expected "
                                  f"API version ({rt.group_version})")
    return None
