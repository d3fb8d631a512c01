"""The differential harness in CI: kube-apiserver 1.36.2's recorded answers replayed against our server.

tests/differential/answers.jsonl.gz holds thousands of generated cases (tools/differential/generate.py)
with the reference's answers (tools/differential/record.py). Every case is sent to one fresh server;
a case that matched before and no longer does is a regression, and a case listed in
expected_differences.txt that now matches must be taken off the list, so the list only shrinks.
"""

from __future__ import annotations

import gzip
import json
import os
from typing import Iterator

import pytest
from support import ServerProcess

from tools.differential import compare, custom
from tools.differential.client import Client
from tools.differential.generate import all_cases
from tools.differential.kinds import served_kinds
from tools.differential.record import FIXTURE
from tools.differential.runner import read_fixture

pytestmark = pytest.mark.store_once  # the expected differences are the embedded store's


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[compare.Report]:
    server = ServerProcess(str(tmp_path_factory.mktemp("differential")))
    server.start()
    try:
        yield compare.replay(Client(server.url, server.token), workers=8, quiet=True)
    finally:
        server.stop_all()


def test_fixture_covers_every_kind_with_thousands_of_cases(report: compare.Report) -> None:
    assert len(report.categories) >= 5000
    assert {k.label for k in served_kinds()} | {custom.LABEL} == set(report.kinds.values())


def test_fixture_was_recorded_from_the_generator_as_it_is() -> None:
    """A change to the generator must be recorded again (tools/differential/record.py), or the replay
    would judge our server by cases nobody sent to the reference."""
    recorded = {line["case"]["id"]: line["case"] for line in read_fixture(FIXTURE)}
    generated = {case["id"]: case for case in all_cases()}
    with gzip.open(FIXTURE, "rt") as f:
        left_out = json.loads(f.readline())["meta"]["left_out_unstable"]
    assert set(recorded) <= set(generated)
    assert len(generated) - len(recorded) == left_out
    assert [i for i in recorded if recorded[i] != generated[i]] == []


def test_no_case_that_matched_kube_apiserver_stops_matching(report: compare.Report) -> None:
    regressions, _ = compare.judge(report, compare.read_expected())
    print(compare.summary(report))
    assert not regressions, "answers that matched kube-apiserver 1.36.2 no longer do:\n" + "\n".join(
        compare.explain(report, case_id) for case_id in regressions[:20])


def test_expected_differences_only_shrink(report: compare.Report) -> None:
    _, fixed = compare.judge(report, compare.read_expected())
    listed = os.path.relpath(compare.EXPECTED, os.getcwd())
    assert not fixed, (f"{len(fixed)} listed cases now answer as kube-apiserver does: remove them from "
                       f"{listed} (python -m tools.differential.compare --kubeconfig OURS --update-expected "
                       "rewrites it):\n"
                       + "\n".join(fixed[:50]))

