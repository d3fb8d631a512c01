"""The format checks every kind's validation calls, with upstream's messages: names, label keys and
values, ports, keys, percents.

Ports staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go (names: lengths in
"characters") and .../pkg/api/validate/content (label keys and values: lengths in "bytes"). Each check
returns the messages upstream's returns, in its order; the patterns are compiled once, at import, and
the answers for the strings a write repeats most (label keys and values, names) are remembered.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Callable

from apiserver.errors import FieldError
from apiserver.registry.field import go_value

_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FMT = _LABEL_FMT + r"(\." + _LABEL_FMT + ")*"
_DNS1035_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_QUALIFIED_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _QUALIFIED_FMT + ")?"
_PERCENT_FMT = "[0-9]+%"
_CONFIG_KEY_FMT = "[-._a-zA-Z0-9]+"

_LABEL_RE = re.compile(_LABEL_FMT)
_SUBDOMAIN_RE = re.compile(_SUBDOMAIN_FMT)
_DNS1035_RE = re.compile(_DNS1035_FMT)
_QUALIFIED_RE = re.compile(_QUALIFIED_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)
_PERCENT_RE = re.compile(_PERCENT_FMT)
_CONFIG_KEY_RE = re.compile(_CONFIG_KEY_FMT)
_PORT_NAME_RE = re.compile("[-a-z0-9]+")
_A_LETTER_RE = re.compile("[a-z]")

TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024

_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
              "and end with an alphanumeric character")
_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                  "and must start and end with an alphanumeric character")
_DNS1035_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
                "character, and end with an alphanumeric character")
_LABEL_KEY_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                  "alphanumeric character")
_LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                    "and must start and end with an alphanumeric character")


def regex_error(message: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{message} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{fmt}')"


def max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def _max_bytes_error(length: int) -> str:
    return f"must be no more than {length} bytes"


def inclusive_range_error(low: int, high: int) -> str:
    return f"must be between {low} and {high}, inclusive"


@functools.lru_cache(maxsize=4096)
def dns1123_label(value: str) -> tuple[str, ...]:
    errors = [max_len_error(63)] if len(value) > 63 else []
    if not _LABEL_RE.fullmatch(value):
        errors.append("must not contain dots" if _SUBDOMAIN_RE.fullmatch(value)
                      else regex_error(_LABEL_MSG, _LABEL_FMT, "my-name", "123-abc"))
    return tuple(errors)


@functools.lru_cache(maxsize=4096)
def dns1123_subdomain(value: str) -> tuple[str, ...]:
    return tuple(_subdomain(value, max_len_error))


@functools.lru_cache(maxsize=4096)
def long_name(value: str) -> tuple[str, ...]:
    """validate/content's IsDNS1123Subdomain (validate.LongName): as dns1123_subdomain, its length in bytes."""
    return tuple(_subdomain(value, _max_bytes_error))


def _subdomain(value: str, too_long: Callable[[int], str]) -> list[str]:
    errors = [too_long(253)] if len(value.encode()) > 253 else []
    if not _SUBDOMAIN_RE.fullmatch(value):
        errors.append(regex_error(_SUBDOMAIN_MSG, _SUBDOMAIN_FMT, "example.com"))
    return errors


@functools.lru_cache(maxsize=4096)
def dns1035_label(value: str) -> tuple[str, ...]:
    errors = [max_len_error(63)] if len(value) > 63 else []
    if not _DNS1035_RE.fullmatch(value):
        errors.append(regex_error(_DNS1035_MSG, _DNS1035_FMT, "my-name", "abc-123"))
    return tuple(errors)


@functools.lru_cache(maxsize=4096)
def label_value(value: str) -> tuple[str, ...]:
    errors = [_max_bytes_error(63)] if len(value) > 63 else []
    if not _LABEL_VALUE_RE.fullmatch(value):
        errors.append(regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return tuple(errors)


@functools.lru_cache(maxsize=4096)
def qualified_name(value: str) -> tuple[str, ...]:
    """IsQualifiedName (content.IsLabelKey): an optional DNS subdomain prefix and '/', then a name."""
    errors: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors.extend("prefix part " + msg for msg in _subdomain(prefix, _max_bytes_error))
    else:
        return ("a valid label key " + regex_error(_LABEL_KEY_MSG, _QUALIFIED_FMT, "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",)
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > 63:
        errors.append("name part " + _max_bytes_error(63))
    if not _QUALIFIED_RE.fullmatch(name):
        errors.append("name part " + regex_error(_LABEL_KEY_MSG, _QUALIFIED_FMT, "MyName", "my.name", "123-abc"))
    return tuple(errors)


def path_segment_name(value: str) -> list[str]:
    """Names of kinds without a stricter rule must still be usable in a URL path."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{bad}'" for bad in ("/", "%") if bad in value]


def port_number(value: int) -> list[str]:
    return [] if 1 <= value <= 65535 else [inclusive_range_error(1, 65535)]


@functools.lru_cache(maxsize=4096)
def port_name(value: str) -> tuple[str, ...]:
    errors = [max_len_error(15)] if len(value) > 15 else []
    if not _PORT_NAME_RE.fullmatch(value):
        errors.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _A_LETTER_RE.search(value):
        errors.append("must contain at least one letter (a-z)")
    if "--" in value:
        errors.append("must not contain consecutive hyphens")
    if value and (value[0] == "-" or value[-1] == "-"):
        errors.append("must not begin or end with a hyphen")
    return tuple(errors)


def percent(value: str) -> list[str]:
    if _PERCENT_RE.fullmatch(value):
        return []
    return [regex_error("a valid percent string must be a numeric string followed by an ending '%'", _PERCENT_FMT,
                        "1%", "93%")]


def _ch_dir_prefix(value: str) -> list[str]:
    if value == ".":
        return ["must not be '.'"]
    if value == "..":
        return ["must not be '..'"]
    return ["must not start with '..'"] if value.startswith("..") else []


@functools.lru_cache(maxsize=4096)
def config_map_key(value: str) -> tuple[str, ...]:
    errors = [max_len_error(253)] if len(value) > 253 else []
    if not _CONFIG_KEY_RE.fullmatch(value):
        errors.append(regex_error("a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
                                  _CONFIG_KEY_FMT, "key.name", "KEY_NAME", "key-name"))
    return tuple(errors + _ch_dir_prefix(value))


@functools.lru_cache(maxsize=4096)
def relaxed_env_var_name(value: str) -> tuple[str, ...]:
    errors = [] if value else ["environment variable name must be non-empty"]
    if any(not " " <= ch <= "~" or ch == "=" for ch in value):
        errors.append("a valid environment variable name must consist only of printable ASCII characters other "
                      "than '='")
    return tuple(errors)


def invalid_value(path: str, value: Any, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {go_value(value)}: {detail}")


_WILDCARD_SUBDOMAIN_FMT = r"\*\." + _SUBDOMAIN_FMT
_WILDCARD_SUBDOMAIN_RE = re.compile(_WILDCARD_SUBDOMAIN_FMT)
_HTTP_PATH_FMT = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"
_HTTP_PATH_RE = re.compile(_HTTP_PATH_FMT)


def wildcard_dns1123_subdomain(value: str) -> list[str]:
    """IsWildcardDNS1123Subdomain: '*.' and then a subdomain."""
    errors = [max_len_error(253)] if len(value) > 253 else []
    if not _WILDCARD_SUBDOMAIN_RE.fullmatch(value):
        errors.append(regex_error("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS "
                                  "subdomain, which must consist of lower case alphanumeric characters, '-' or '.' "
                                  "and end with an alphanumeric character", _WILDCARD_SUBDOMAIN_FMT, "*.example.com"))
    return errors


def domain_prefixed_path(path: str, value: str) -> list[FieldError]:
    """IsDomainPrefixedPath: a subdomain, '/', then the characters RFC 3986 allows in an HTTP path."""
    if not value:
        return [FieldError("FieldValueRequired", path, "Required value")]
    host, slash, rest = value.partition("/")
    if not slash or not host or not rest:
        return [invalid_value(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    found = [invalid_value(path, host, msg) for msg in dns1123_subdomain(host)]
    if not _HTTP_PATH_RE.fullmatch(rest):
        found.append(invalid_value(path, rest, regex_error("Invalid path", _HTTP_PATH_FMT)))
    return found


def fully_qualified_domain_name(path: str, value: str) -> list[FieldError]:
    """IsFullyQualifiedDomainName: a subdomain of at least two labels; a trailing dot is allowed."""
    if not value:
        return [FieldError("FieldValueRequired", path, "Required value")]
    name = value.removesuffix(".")
    errors = dns1123_subdomain(name)
    if errors:
        return [invalid_value(path, name, ",".join(errors))]
    if len(name.split(".")) < 2:
        return [invalid_value(path, name, "should be a domain with at least two segments separated by dots")]
    for label in name.split("."):
        if dns1123_label(label):
            return [invalid_value(path, label, ",".join(dns1123_label(label)))]
    return []
