"""The format library's optional results as CEL expressions see them, and the text rewrite that carries
them (apiserver/cel/optionals.py), on the compiled programs a CRD rule or policy runs.

The expected values are upstream's own (format_test.go); tests/test_cel_library.py holds the same
library to kube-apiserver's recorded answers through a real server.
"""

from __future__ import annotations

from typing import Any

import pytest
from cel_expr_python import cel

from apiserver.cel.environment import CompileError, compile_checked

pytestmark = pytest.mark.store_once

LABEL_ERROR = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
               "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
               "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


def evaluate(source: str, **values: Any) -> Any:
    program = compile_checked(source, {name: cel.Type.DYN for name in values} or {"self": cel.Type.DYN})
    outcome = program.evaluate(values or {"self": None})
    assert outcome.error is None, outcome.error
    return outcome.value


@pytest.mark.parametrize(("source", "expected"), [
    ("format.dns1123Label().validate('my-label-name') == optional.none()", True),
    ("format.dns1123Label().validate('contains a space') == optional.of([" + repr(LABEL_ERROR) + "])", True),
    ("format.named('unknown').hasValue()", False),
    ("format.named('uuid').value() == format.uuid()", True),
    ("format.uuid() == format.byte()", False),
    ("format.byte().validate('aGVsbG8').value()", ["invalid base64"]),
    ("format.date().validate('2020-01-32').orValue([])", ["invalid date"]),
    ("format.datetime().validate('2020-01-01T00:00:00Z').orValue(['none'])", ["none"]),
    ("format.dns1123LabelPrefix().validate('my-label-prefix-').hasValue()", False),
    ("format.named('labelValue').value().validate('my-cool-label-Value').hasValue()", False),
])
def test_upstreams_cases(source: str, expected: Any) -> None:
    assert evaluate(source) == expected


def test_calls_are_found_past_strings_comments_and_nesting() -> None:
    # Parentheses inside string literals (quoted, raw, triple) and comments must not end a call early.
    source = """format.named(')' + r'\\)' + '''(''' + "\\")").hasValue() // )
        || [format.dns1123Label().validate(x + ')')].exists(o, o.hasValue())"""
    assert evaluate(source, x="bad name") is True
    assert evaluate("format.named(format.named('uuid').hasValue() ? 'date' : 'x').value() == format.date()") is True


def test_the_text_as_written_is_what_errors_quote() -> None:
    with pytest.raises(CompileError) as refused:
        compile_checked("format.dns1123Label().validate(1).hasValue()", {"self": cel.Type.DYN})
    assert str(refused.value).startswith("ERROR: <input>:1:31: found no matching overload for 'validate' applied to "
                                         "'kubernetes.NamedFormat.(int)'")
    assert "?errors" not in str(refused.value)


def test_the_output_type_is_the_optional_upstream_infers() -> None:
    assert compile_checked("format.dns1123Label().validate(self)", {"self": cel.Type.STRING}).output \
        == "optional_type(list(string))"
    assert compile_checked("format.dns1123Label().validate(self).value()[0]", {"self": cel.Type.STRING}).output \
        == "string"
