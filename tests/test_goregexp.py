"""A CRD schema's `pattern` is refused with Go's regexp.Compile error. apiserver/cel/goregexp.py asks RE2
and words its answer as Go does; its answers are held to Go's own, recorded by tools/go_regexp_errors
(2000 generated patterns, most of which do not parse)."""

from __future__ import annotations

import json
import os

import pytest

from apiserver.cel import goregexp

pytestmark = pytest.mark.store_once

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "go_regexp_errors.json")
with open(FIXTURE) as f:
    RECORDED: list[tuple[str, str]] = json.load(f)


def test_refused_as_go_refuses_them() -> None:
    differing = [(pattern, refusal, goregexp.compile_error(pattern)) for pattern, refusal in RECORDED
                 if goregexp.compile_error(pattern) != (refusal or None)]
    assert differing == []


def test_the_patterns_cover_both_answers() -> None:
    refused = sum(1 for _, refusal in RECORDED if refusal)
    assert 0 < refused < len(RECORDED)
