"""DeleteOptions as kube-apiserver's delete and deletecollection handlers read them (handlers/delete.go):
from the body when there is one, decoded by the meta internal version codecs with meta.k8s.io/v1
DeleteOptions as the default kind; otherwise from the query by the ParameterCodec (the first of a
repeated parameter, but every dryRun); then ValidateDeleteOptions. Every refusal of the decoding is a
400 in the decoder's own words.

A body names its kind in the meta internal scheme, where DeleteOptions is known in every group and
version; a kind the scheme knows as another type decodes, then cannot be converted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from starlette.datastructures import QueryParams

from apiserver import errors
from apiserver.kinds import fieldvalidation, propagation, schemas, scheme
from apiserver.query import list_options
from apiserver.wire import bodies, gojson

_DELETE_OPTIONS = "v1.DeleteOptions"
_SCHEME = "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27"
_META = "meta.k8s.io"
_INTERNAL = "__internal"
# The scheme's Go types by group/version and kind (internalversion/register.go, metav1's and
# metav1beta1's AddMetaToScheme, metav1.AddToGroupVersion) ...
_OPTIONS = {kind: f"v1.{kind}" for kind in ("ListOptions", "GetOptions", "DeleteOptions", "CreateOptions",
                                            "UpdateOptions", "PatchOptions")}
_META_TYPES = {kind: f"v1.{kind}" for kind in ("Table", "TableOptions", "PartialObjectMetadata")}
_KINDS: dict[str, dict[str, str]] = {
    f"{_META}/{_INTERNAL}": {**_OPTIONS, "ListOptions": "internalversion.ListOptions", "WatchEvent": "v1.InternalEvent",
                             **_META_TYPES, "PartialObjectMetadataList": "v1beta1.PartialObjectMetadataList"},
    f"{_META}/v1": {**_OPTIONS, "WatchEvent": "v1.WatchEvent", **_META_TYPES,
                    "PartialObjectMetadataList": "v1.PartialObjectMetadataList"},
    f"{_META}/v1beta1": {**_META_TYPES, "PartialObjectMetadataList": "v1beta1.PartialObjectMetadataList"},
}
# ... and the unversioned ones, known by kind in every group and version.
_UNVERSIONED = {kind: f"v1.{kind}" for kind in ("Status", "APIVersions", "APIGroupList", "APIGroup",
                                                "APIResourceList", "DeleteOptions", "CreateOptions",
                                                "UpdateOptions")}


def read(raw: bytes, content_type: str | None, query: Mapping[str, str], raw_query: bytes) -> dict[str, Any]:
    """The request's DeleteOptions, validated; the body's alone when there is one."""
    options = from_body(raw, content_type) if raw else from_query(query, raw_query)
    propagation.check_options(options)
    return options


def from_query(query: Mapping[str, str], raw_query: bytes) -> dict[str, Any]:
    """metav1's Convert_url_Values_To_v1_DeleteOptions. ignoreStoreReadErrorWithClusterBreakingPotential
    is read and dropped: the AllowUnsafeMalformedObjectDeletion feature is off."""
    options: dict[str, Any] = {}
    if "gracePeriodSeconds" in query:
        options["gracePeriodSeconds"] = list_options.parse_int64(query["gracePeriodSeconds"])
    if "orphanDependents" in query:
        options["orphanDependents"] = list_options.go_bool(query["orphanDependents"])
    if "propagationPolicy" in query:
        options["propagationPolicy"] = query["propagationPolicy"]
    if "dryRun" in query:
        options["dryRun"] = QueryParams(raw_query).getlist("dryRun")
    # A uid or resourceVersion parameter is a precondition (a deletecollection's resourceVersion is its list's too).
    preconditions = {field: query[field] for field in ("uid", "resourceVersion") if query.get(field)}
    if preconditions:
        options["preconditions"] = preconditions
    return options


def from_body(raw: bytes, content_type: str | None) -> dict[str, Any]:
    """The body decoded as the JSON (or YAML) serializer decodes it into a DeleteOptions."""
    if bodies.is_json(content_type):
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise _unreadable(f"json parse error: {gojson.syntax_error(raw)}") from None
    else:
        body = bodies.decode_object(raw, content_type)
    if body is None:
        return {}  # json.Unmarshal of null leaves the options empty
    api_version, kind = _type_meta(body)
    go_type = _go_type(kind or "DeleteOptions", api_version, raw)
    if go_type != _DELETE_OPTIONS:
        raise errors.bad_request(f"converting ({go_type}) to ({_DELETE_OPTIONS}): unknown conversion")
    ref = schemas.kind_ref("", "v1", "DeleteOptions")
    problem = fieldvalidation.type_error(body, ref)
    if problem is not None:
        if bodies.is_json(content_type):
            problem = fieldvalidation.spelled_type_error(problem, raw, ref)
        raise errors.bad_request(problem)
    return body


def _unreadable(problem: str) -> errors.ApiError:
    return errors.bad_request(f"couldn't get version/kind; {problem}")


def _type_meta(body: Any) -> tuple[str, str]:
    """The serializer's first read of the body (json.Unmarshal into two strings, whose keys it matches
    in any case, the last one standing): its apiVersion and kind."""
    if not isinstance(body, dict):
        raise _unreadable(f"json parse error: json: cannot unmarshal {scheme.json_type(body)} into Go value of "
                          f"type {scheme.TYPE_META_STRUCT}")
    found = {"apiversion": "", "kind": ""}
    for key, value in body.items():
        name = key.lower()
        if name not in found or value is None:
            continue
        if not isinstance(value, str):
            raise _unreadable(f"json parse error: json: cannot unmarshal {scheme.json_type(value)} into Go struct "
                              f"field .{'apiVersion' if name == 'apiversion' else 'kind'} of type string")
        found[name] = value
    if found["apiversion"].count("/") > 1:
        raise errors.bad_request(f"unexpected GroupVersion string: {found['apiversion']}")
    return found["apiversion"], found["kind"]


def _go_type(kind: str, api_version: str, raw: bytes) -> str:
    """The Go type the scheme makes for the body's kind and apiVersion, defaulted as gvkWithDefaults
    defaults them from meta.k8s.io/v1; a kind it does not know is refused."""
    group, _, version = api_version.rpartition("/")
    if not group and not version:
        group, version = _META, "v1"
    elif not version and group == _META:
        version = "v1"
    elif not version:
        raise errors.bad_request(f"Object 'apiVersion' is missing in '{raw.decode('utf-8', 'replace')}'")
    group_version = f"{group}/{version}" if group else version
    go_type = _KINDS.get(group_version, {}).get(kind) or _UNVERSIONED.get(kind)
    if go_type is not None:
        return go_type
    if version == _INTERNAL:
        raise errors.bad_request(f'no kind "{kind}" is registered for the internal version of group "{group}" in '
                                 f'scheme "{_SCHEME}"')
    raise errors.bad_request(f'no kind "{kind}" is registered for version "{group_version}" in scheme "{_SCHEME}"')
