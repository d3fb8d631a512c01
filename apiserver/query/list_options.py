"""The ListOptions of a list, a watch or a deletecollection, read from the query as kube-apiserver reads
them (handlers/get.go listOpts, handlers/delete.go DeleteCollection): the ParameterCodec's conversion of
the query (a 400 naming the strconv parse that failed), SetListOptionsDefaults with the WatchList
feature on, then metainternalversion validation's ValidateListOptions (a 422 ListOptions Invalid).

The conversion (metav1's Convert_url_Values_To_v1_ListOptions) reads the first of a repeated
parameter, fields in the struct's order, so the first field that fails is the one named. Selectors
are parsed where they are used (apiserver/query/selection.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from apiserver import errors
from apiserver.query.fields import FieldSelectorError, parse_field_terms
from apiserver.query.labels import SelectorError, parse_label_selector
from apiserver.registry import field

_NOT_OLDER_THAN = "NotOlderThan"
_EXACT = "Exact"
_INT64 = range(-(2**63), 2**63)


@dataclass(frozen=True)
class ListOptions:
    watch: bool
    allow_watch_bookmarks: bool
    resource_version: str
    resource_version_match: str
    timeout_seconds: int | None
    limit: int
    continue_token: str
    send_initial_events: bool | None


def read(query: Mapping[str, str]) -> ListOptions:
    """The options as the handler judges them: converted, defaulted and validated."""
    options = decoded(query)
    _parse_selectors(query)
    problems = validate(with_defaults(options))
    if problems:
        raise errors.invalid("ListOptions", "meta.k8s.io", "", problems)
    return options


def decoded(query: Mapping[str, str]) -> ListOptions:
    """The conversion of the query alone, before defaults and validation."""
    timeout = query.get("timeoutSeconds")
    limit = query.get("limit")
    initial = query.get("sendInitialEvents")
    return ListOptions(
        watch=go_bool(query.get("watch")),
        allow_watch_bookmarks=go_bool(query.get("allowWatchBookmarks")),
        resource_version=query.get("resourceVersion", ""),
        resource_version_match=query.get("resourceVersionMatch", ""),
        timeout_seconds=None if timeout is None else parse_int64(timeout),
        limit=0 if limit is None else parse_int64(limit),
        continue_token=query.get("continue", ""),
        send_initial_events=None if initial is None else go_bool(initial),
    )


def _parse_selectors(query: Mapping[str, str]) -> None:
    """The conversion into the internal ListOptions parses both selectors; which fields a kind may be
    selected by is judged only after validation (apiserver/query/selection.py)."""
    label_text, field_text = query.get("labelSelector", ""), query.get("fieldSelector", "")
    try:
        if label_text:
            parse_label_selector(label_text)
        if field_text:
            parse_field_terms(field_text)
    except (SelectorError, FieldSelectorError) as exc:
        raise errors.bad_request(str(exc)) from None


def go_bool(text: str | None) -> bool:
    """runtime.Convert_Slice_string_To_bool: only absence, "0" and "false" in any case are false;
    anything else, the empty value too, is true."""
    return text is not None and text != "0" and text.lower() != "false"


def parse_int64(text: str) -> int:
    """strconv.ParseInt(text, 10, 64), refused in its words."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not (digits.isascii() and digits.isdigit()):
        raise errors.bad_request(f"strconv.ParseInt: parsing {field.go_quote(text)}: invalid syntax")
    value = int(text)
    if value not in _INT64:
        raise errors.bad_request(f"strconv.ParseInt: parsing {field.go_quote(text)}: value out of range")
    return value


def with_defaults(options: ListOptions) -> ListOptions:
    """SetListOptionsDefaults: a watch from no resourceVersion (or "0") that names neither
    sendInitialEvents nor resourceVersionMatch is a watch-list, its initial state sent as events."""
    if options.send_initial_events is not None or options.resource_version_match:
        return options
    if options.watch and options.resource_version in ("", "0"):
        return dataclasses.replace(options, send_initial_events=True, resource_version_match=_NOT_OLDER_THAN)
    return options


def validate(options: ListOptions) -> list[errors.FieldError]:
    """ValidateListOptions, with the WatchList feature on."""
    if options.watch:
        return _validate_watch(options)
    problems: list[errors.FieldError] = []
    match = options.resource_version_match
    if match:
        if not options.resource_version:
            problems.append(field.forbidden("resourceVersionMatch",
                                            "resourceVersionMatch is forbidden unless resourceVersion is provided"))
        if options.continue_token:
            problems.append(field.forbidden("resourceVersionMatch",
                                            "resourceVersionMatch is forbidden when continue is provided"))
        if match not in (_EXACT, _NOT_OLDER_THAN):
            problems.append(field.not_supported("resourceVersionMatch", match, (_EXACT, _NOT_OLDER_THAN, "")))
        if match == _EXACT and options.resource_version == "0":
            problems.append(field.forbidden("resourceVersionMatch",
                                            'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'))
    if options.send_initial_events is not None:
        problems.append(field.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
    return problems


def _validate_watch(options: ListOptions) -> list[errors.FieldError]:
    problems: list[errors.FieldError] = []
    match = options.resource_version_match
    if options.send_initial_events is not None and match != _NOT_OLDER_THAN:
        problems.append(field.forbidden("resourceVersionMatch",
                                        f"sendInitialEvents requires setting resourceVersionMatch to {_NOT_OLDER_THAN}"))
    if match:
        if options.send_initial_events is None:
            problems.append(field.forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch "
                                                                    "unless sendInitialEvents is provided"))
        if match != _NOT_OLDER_THAN:
            problems.append(field.not_supported("resourceVersionMatch", match, (_NOT_OLDER_THAN,)))
        if options.continue_token:
            problems.append(field.forbidden("resourceVersionMatch",
                                            "resourceVersionMatch is forbidden when continue is provided"))
    return problems
