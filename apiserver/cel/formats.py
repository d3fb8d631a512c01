"""Kubernetes' CEL format library (`k8s.io/apiserver/pkg/cel/library/format.go`).

`format.dns1123Label()` and the other named formats are `kubernetes.NamedFormat` values;
`format.named(name)` answers `optional.of` one, or `optional.none()` for a name it does not know;
`<format>.validate(s)` answers `optional.none()` when `s` is valid, else `optional.of` upstream's
error strings. cel-expr-python can neither return an optional from Python nor declare one as a result
type, so those two answer carrier messages (`kubernetes.FormatErrors`, `kubernetes.FormatLookup`)
whose one field is set only when there is a value, and apiserver/cel/optionals.py follows each call
with a presence-testing select of that field, which CEL makes the optional. The checks are
apimachinery's name validations and kube-openapi's strfmt ones, with their messages.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from cel_expr_python import cel
from google.protobuf import descriptor_pb2, message_factory

from apiserver.cel import opaque, requesturi
from apiserver.cel.opaque import NamedFormat
from apiserver.kinds import validation as names

# The carriers apiserver/cel/optionals.py selects from: a validation's errors (set only when there are some),
# a looked-up format (set only when the name is known).
_carriers = descriptor_pb2.FileDescriptorProto(name="k8s_format_carriers.proto", package="kubernetes",
                                               syntax="proto3", dependency=["k8s_kubernetes_opaque.proto"])
_errors = _carriers.message_type.add(name="FormatErrors")
_errors.field.add(name="errors", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                  label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED)
_lookup = _carriers.message_type.add(name="FormatLookup")
_lookup.field.add(name="format", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
                  type_name=".kubernetes.NamedFormat", label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
opaque.add_file(_carriers)
FormatErrors = message_factory.GetMessageClass(opaque.POOL.FindMessageTypeByName("kubernetes.FormatErrors"))
FormatLookup = message_factory.GetMessageClass(opaque.POOL.FindMessageTypeByName("kubernetes.FormatLookup"))

T = cel.Type
FORMAT = T("kubernetes.NamedFormat")

def _mask_trailing_dash(name: str) -> str:
    """apimachinery's maskTrailingDash, as it is (it drops two characters for one dash)."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def _prefix(check: Callable[[str], tuple[str, ...]]) -> Callable[[str], list[str]]:
    return lambda text: list(check(_mask_trailing_dash(text)))


_UUID = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}", re.IGNORECASE | re.ASCII)
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})")
_FULL_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))")
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def is_date(text: str) -> bool:
    """strfmt's IsDate: Go's time.Parse("2006-01-02"), whose years run from 0000 (a leap year)."""
    found = _FULL_DATE.fullmatch(text)
    if found is None:
        return False
    year, month, day = (int(part) for part in found.groups())
    if not 1 <= month <= 12:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 1 <= day <= _DAYS[month - 1] + (1 if month == 2 and leap else 0)


def is_date_time(text: str) -> bool:
    """strfmt's IsDateTime: a date, a 't', then a time its pattern accepts, the time's parts in range."""
    if len(text) < 4:
        return False
    parts = text.lower().split("t")
    if len(parts) < 2 or not is_date(parts[0]):
        return False
    found = _TIME.fullmatch(parts[1])
    return found is not None and found.group(1) <= "23" and found.group(2) <= "59" and found.group(3) <= "59"


def _uri(text: str) -> list[str]:
    problem = requesturi.error(text)
    return [] if problem is None else [problem]


def _strfmt(valid: Callable[[str], bool], message: str) -> Callable[[str], list[str]]:
    return lambda text: [] if valid(text) else [message]


# The library's formats by the name CEL calls them, each with its check (ConstantFormats upstream).
CHECKS: dict[str, Callable[[str], list[str]]] = {
    "dns1123Label": lambda text: list(names.dns1123_label(text)),
    "dns1123Subdomain": lambda text: list(names.dns1123_subdomain(text)),
    "dns1035Label": lambda text: list(names.dns1035_label(text)),
    "qualifiedName": lambda text: list(names.qualified_name(text)),
    "dns1123LabelPrefix": _prefix(names.dns1123_label),
    "dns1123SubdomainPrefix": _prefix(names.dns1123_subdomain),
    "dns1035LabelPrefix": _prefix(names.dns1035_label),
    "labelValue": lambda text: list(names.label_value(text)),
    "uri": _uri,
    "uuid": _strfmt(lambda text: _UUID.fullmatch(text) is not None, "does not match the UUID format"),
    "byte": _strfmt(lambda text: _BASE64.fullmatch(text) is not None, "invalid base64"),
    "date": _strfmt(is_date, "invalid date"),
    "datetime": _strfmt(is_date_time, "invalid datetime"),
}
_FORMATS = {name: NamedFormat(value=name) for name in CHECKS}


def validate(named: Any, text: str) -> Any:
    return FormatErrors(errors=CHECKS[named.value](text))


def named(name: str) -> Any:
    found = _FORMATS.get(name)
    return FormatLookup() if found is None else FormatLookup(format=found)


def _constant(name: str) -> Any:
    value = _FORMATS[name]
    return cel.FunctionDecl(f"format.{name}", [cel.Overload(f"format.{name}", FORMAT, [], impl=lambda: value)])


def declarations(as_written: bool) -> list[Any]:
    """The library's functions. `as_written` declares them as upstream does, for checking an expression's
    text as written (cel-expr-python takes their optional results as dyn); otherwise they answer the
    carriers, for the text apiserver/cel/optionals.py rewrote, which is type-checked for its types and run."""
    returns = (T.AbstractType("optional_type", [T.List(T.STRING)]), T.AbstractType("optional_type", [FORMAT])) \
        if as_written else (T("kubernetes.FormatErrors"), T("kubernetes.FormatLookup"))
    return [*(_constant(name) for name in CHECKS),
            cel.FunctionDecl("validate", [cel.Overload("format-validate", returns[0], [FORMAT, T.STRING],
                                                       is_member=True, impl=validate)]),
            cel.FunctionDecl("format.named", [cel.Overload("format-named", returns[1], [T.STRING], impl=named)])]
