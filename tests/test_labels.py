"""The label selector grammar, table-driven: text in, requirements or kube-apiserver's message out."""

from __future__ import annotations

import pytest

from apiserver.query.labels import SelectorError, parse_label_selector

NAME_RULE = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


@pytest.mark.parametrize("text, labels, expected", [
    ("", {}, True),
    ("a=b", {"a": "b"}, True),
    ("a==b", {"a": "c"}, False),
    ("a!=b", {}, True),
    ("a in (b,c)", {"a": "c"}, True),
    ("a notin (b,c)", {"a": "c"}, False),
    ("a notin (b,c)", {}, True),
    ("a", {"a": ""}, True),
    ("!a", {"a": ""}, False),
    ("a=", {"a": ""}, True),
    ("a in (,x)", {"a": ""}, True),
    ("a>5,a<9", {"a": "7"}, True),
    ("a>5", {"a": "x"}, False),
    ("in in (in, notin)", {"in": "notin"}, True),
    (" x = y , z ", {"x": "y", "z": "1"}, True),
    ("example.com/app=web", {"example.com/app": "web"}, True),
])
def test_matching(text: str, labels: dict[str, str], expected: bool) -> None:
    assert parse_label_selector(text).matches(labels) is expected


@pytest.mark.parametrize("text, message", [
    ("a in (b", "unable to parse requirement: found '', expected: ',' or ')'"),
    ("==bad", "found '==', expected: !, identifier, or 'end of string'"),
    ("a=b,", "found '', expected: identifier after ','"),
    ("a=b c", "found 'c', expected: ',' or 'end of string'"),
    ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ("a in b", "unable to parse requirement: found 'b' expected: '('"),
    ("a (", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"),
    ("a>x", "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value "
            "must be an integer"),
    ("-a=b", f'unable to parse requirement: <nil>: Invalid value: "-a": {NAME_RULE}'),
    ("a=b!", "found '!', expected: ',' or 'end of string'"),
    ("a=(", "unable to parse requirement: found '(', expected: identifier"),
])
def test_errors_carry_upstream_messages(text: str, message: str) -> None:
    with pytest.raises(SelectorError) as caught:
        parse_label_selector(text)
    assert str(caught.value) == message
