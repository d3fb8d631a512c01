"""Name, label and annotation rules with kube-apiserver's field paths and message wording."""

from __future__ import annotations

import ipaddress
import json
import re
from typing import Any, Callable

from apiserver.errors import FieldError

_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FMT = _LABEL_FMT + r"(\." + _LABEL_FMT + ")*"
_DNS1035_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_QUALIFIED_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _QUALIFIED_FMT + ")?"

_LABEL_RE = re.compile(_LABEL_FMT)
_SUBDOMAIN_RE = re.compile(_SUBDOMAIN_FMT)
_DNS1035_RE = re.compile(_DNS1035_FMT)
_QUALIFIED_RE = re.compile(_QUALIFIED_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)

TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024


def _regex_error(message: str, fmt: str, *examples: str) -> str:
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{fmt}')"


def _quote(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def invalid_value(path: str, value: Any, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {_quote(value)}: {detail}")


def required(path: str, detail: str) -> FieldError:
    return FieldError("FieldValueRequired", path, f"Required value: {detail}")


def too_long(path: str, limit: int) -> FieldError:
    return FieldError("FieldValueTooLong", path, f"Too long: may not be more than {limit} bytes")


def _pattern_rule(limit: int, pattern: re.Pattern[str], message: str, fmt: str,
                  *examples: str) -> Callable[[str], list[str]]:
    def check(value: str) -> list[str]:
        errors = []
        if len(value) > limit:
            errors.append(f"must be no more than {limit} characters")
        if not pattern.fullmatch(value):
            errors.append(_regex_error(message, fmt, *examples))
        return errors
    return check


dns1123_label = _pattern_rule(
    63, _LABEL_RE, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character", _LABEL_FMT, "my-name", "123-abc")
dns1123_subdomain = _pattern_rule(
    253, _SUBDOMAIN_RE, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character", _SUBDOMAIN_FMT, "example.com")
dns1035_label = _pattern_rule(
    63, _DNS1035_RE, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character", _DNS1035_FMT, "my-name", "abc-123")
label_value = _pattern_rule(
    63, _LABEL_VALUE_RE, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character", _LABEL_VALUE_FMT, "MyValue", "my_value",
    "12345")


def path_segment_name(value: str) -> list[str]:
    """Names of kinds without a stricter rule must still be usable in a URL path."""
    if value in (".", ".."):
        return [f'may not be \'{value}\'']
    for bad in ("/", "%"):
        if bad in value:
            return [f"may not contain '{bad}'"]
    return []


def ip_address_name(value: str) -> list[str]:
    """An IPAddress is named by the address it holds, written canonically."""
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]
    if str(address) != value:
        return [f'must be in canonical form ("{address}")']
    return []


NameRule = Callable[[str], list[str]]

# Kinds whose names upstream checks with a rule other than a DNS-1123 subdomain.
NAME_RULES: dict[str, NameRule] = {
    "Namespace": dns1123_label,
    "Service": dns1035_label,
    "APIService": path_segment_name,
    "CustomResourceDefinition": path_segment_name,
    "Role": path_segment_name, "ClusterRole": path_segment_name,
    "RoleBinding": path_segment_name, "ClusterRoleBinding": path_segment_name,
    "FlowSchema": path_segment_name, "PriorityLevelConfiguration": path_segment_name,
    "IPAddress": ip_address_name,
}


def qualified_name(value: str) -> list[str]:
    errors: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors.extend("prefix part " + msg for msg in dns1123_subdomain(prefix))
    else:
        return [_regex_error("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must "
                             "start and end with an alphanumeric character", _QUALIFIED_FMT,
                             "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > 63:
        errors.append("name part must be no more than 63 characters")
    if name and not _QUALIFIED_RE.fullmatch(name):
        errors.append("name part " + _regex_error("must consist of alphanumeric characters, '-', '_' or '.', and "
                                                  "must start and end with an alphanumeric character",
                                                  _QUALIFIED_FMT, "MyName", "my.name", "123-abc"))
    return errors


def validate_metadata(kind: str, meta: dict[str, Any], namespaced: bool) -> list[FieldError]:
    """The ObjectMeta rules every kind shares: name, namespace, labels, annotations."""
    errors: list[FieldError] = []
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        errors.append(required("metadata.name", "name or generateName is required"))
    else:
        for detail in NAME_RULES.get(kind, dns1123_subdomain)(name):
            errors.append(invalid_value("metadata.name", name, detail))
    namespace = meta.get("namespace")
    if namespaced:
        if not namespace:
            errors.append(required("metadata.namespace", ""))
    elif namespace:
        errors.append(FieldError("FieldValueForbidden", "metadata.namespace",
                                 "Forbidden: not allowed on this type"))
    labels = meta.get("labels")
    if labels is not None:
        if not isinstance(labels, dict):
            errors.append(invalid_value("metadata.labels", labels, "must be a map of strings"))
        else:
            for key, value in labels.items():
                for detail in qualified_name(key):
                    errors.append(invalid_value("metadata.labels", key, detail))
                if not isinstance(value, str):
                    errors.append(invalid_value("metadata.labels", value, "must be a string"))
                    continue
                for detail in label_value(value):
                    errors.append(invalid_value("metadata.labels", value, detail))
    annotations = meta.get("annotations")
    if annotations is not None:
        if not isinstance(annotations, dict):
            errors.append(invalid_value("metadata.annotations", annotations, "must be a map of strings"))
        else:
            total = 0
            for key, value in annotations.items():
                for detail in qualified_name(key.lower()):
                    errors.append(invalid_value("metadata.annotations", key, detail))
                if not isinstance(value, str):
                    errors.append(invalid_value("metadata.annotations", value, "must be a string"))
                    continue
                total += len(key) + len(value)
            if total > TOTAL_ANNOTATION_SIZE_LIMIT:
                errors.append(too_long("metadata.annotations", TOTAL_ANNOTATION_SIZE_LIMIT))
    return errors
