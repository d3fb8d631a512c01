"""The differential harness in CI: kube-apiserver 1.36.2's recorded answers replayed against our server.

tests/differential/answers.jsonl.gz holds thousands of generated cases (tools/differential/generate.py)
with the reference's answers (tools/differential/record.py), and answers-seed<N>.jsonl.gz what each
other seed adds (other fields and values sampled). Every case of a recording is sent to one fresh server;
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
from tools.differential.cases import MORE_SEEDS, SEED
from tools.differential.client import Client
from tools.differential.generate import all_cases, seeded_cases
from tools.differential.kinds import served_kinds
from tools.differential.record import fixture_for
from tools.differential.runner import read_fixture

pytestmark = pytest.mark.store_once  # the expected differences are the embedded store's


@pytest.fixture(scope="module", params=(SEED, *MORE_SEEDS), ids=lambda seed: f"seed{seed}")
def seed(request: pytest.FixtureRequest) -> int:
    """The main seed's recording, then what each other seed adds to it, each against a fresh server
    (the same case id names the same objects in every seed)."""
    return int(request.param)


@pytest.fixture(scope="module")
def report(seed: int, tmp_path_factory: pytest.TempPathFactory) -> Iterator[compare.Report]:
    server = ServerProcess(str(tmp_path_factory.mktemp("differential")))
    server.start()
    try:
        yield compare.replay(Client(server.url, server.token), fixture_for(seed), workers=8, quiet=True)
    finally:
        server.stop_all()


def test_fixture_covers_every_kind_with_thousands_of_cases(seed: int, report: compare.Report) -> None:
    if seed == SEED:
        assert len(report.categories) >= 5000
        assert {k.label for k in served_kinds()} | {custom.LABEL} == set(report.kinds.values())
    else:  # a kind with few fields has them all sampled by the main seed already
        assert len(report.categories) >= 2000


def test_fixture_was_recorded_from_the_generator_as_it_is(seed: int) -> None:
    """A change to the generator must be recorded again (tools/differential/record.py), or the replay
    would judge our server by cases nobody sent to the reference."""
    fixture = fixture_for(seed)
    recorded = {line["case"]["id"]: line["case"] for line in read_fixture(fixture)}
    generated = {case["id"]: case for case in (all_cases() if seed == SEED else seeded_cases(seed))}
    with gzip.open(fixture, "rt") as f:
        meta = json.loads(f.readline())["meta"]
    assert meta["seed"] == seed
    assert set(recorded) <= set(generated)
    assert len(generated) - len(recorded) == meta["left_out_unstable"]
    assert [i for i in recorded if recorded[i] != generated[i]] == []


def test_no_case_that_matched_kube_apiserver_stops_matching(seed: int, report: compare.Report) -> None:
    regressions, _ = compare.judge(report, compare.read_expected(compare.expected_for(seed)))
    print(compare.summary(report))
    assert not regressions, "answers that matched kube-apiserver 1.36.2 no longer do:\n" + "\n".join(
        compare.explain(report, case_id) for case_id in regressions[:20])


def test_expected_differences_only_shrink(seed: int, report: compare.Report) -> None:
    _, fixed = compare.judge(report, compare.read_expected(compare.expected_for(seed)))
    listed = os.path.relpath(compare.expected_for(seed), os.getcwd())
    assert not fixed, (f"{len(fixed)} listed cases now answer as kube-apiserver does: remove them from "
                       f"{listed} (python -m tools.differential.compare --kubeconfig OURS --seed {seed} "
                       "--update-expected rewrites it):\n"
                       + "\n".join(fixed[:50]))

