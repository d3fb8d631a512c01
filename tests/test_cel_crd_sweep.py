"""CRD `x-kubernetes-validations` as kube-apiserver 1.36.2 runs them, request by request: the sweep of
tests/cel_crd_sweep.py (CRDs in the image of Gateway API, cert-manager, cluster-api, Karpenter and
Crossplane; CRDs refused for their rules; custom resources created, patched, applied, dry-run and
written through status and scale) replayed through the official Python client and compared, answer by
answer (code, message, causes, warnings, the kept parts of objects), with the reference's answers that
tools/capture_cel_crd_sweep.py recorded in tests/fixtures/cel_crd_sweep.json.
"""

from __future__ import annotations

import json
from typing import Any

import cel_crd_sweep as sweep
import pytest
from admission_replay import api_client
from support import ServerProcess

# Once, on the embedded store: rules are decided before the store.
pytestmark = pytest.mark.store_once

# Steps whose answers still differ from kube-apiserver 1.36.2's, and why (this list only shrinks).
KNOWN_DIFFERENCES: dict[str, str] = {
    'crd clusters.infra.sweep.example.io': 'the semver library (isSemver, semver) is not ported',
    'refused draft certificates.certs.sweep.example.io': 'cost estimate: string() of an int, duration or timestamp',
    'refused draft clusters.infra.sweep.example.io': 'the semver library is not ported',
    'refused draft nodepools.karpenter.sweep.example.io': 'cost estimate: quantity(string(dyn)), join of a filter',
    'refused draft probes.lab.sweep.example.io': 'cost estimate of string() conversions; quantity sign() is declared here',
    'refused double-equals-int': "cel-cpp's checker lets double == int compile",
    'refused has-on-scalar': 'cel-cpp words a select on int differently',
    'refused preserved-unknown-field': 'a preserve-unknown-fields object is declared dyn here, so unknown fields compile',
    'refused int-or-string-ends-with': 'cost estimate of string(dyn).endsWith',
    'refused several-levels': 'cel-cpp words a select on int differently',
    # the Cluster CRD is refused for its semver rules, so none of its objects is written
    'cluster good': "the Cluster CRD needs the semver library",
    'cluster pod cidrs': "the Cluster CRD needs the semver library",
    'cluster overlapping cidrs': "the Cluster CRD needs the semver library",
    'cluster endpoint without port': "the Cluster CRD needs the semver library",
    'cluster versions': "the Cluster CRD needs the semver library",
    'cluster version not semver': "the Cluster CRD needs the semver library",
    'cluster short version': "the Cluster CRD needs the semver library",
    'cluster max surge': "the Cluster CRD needs the semver library",
    'cluster infrastructure ref': "the Cluster CRD needs the semver library",
    'cluster infrastructure ref without kind': "the Cluster CRD needs the semver library",
    'cluster labels': "the Cluster CRD needs the semver library",
    'cluster paused with topology': "the Cluster CRD needs the semver library",
    'cluster name starts with digit': "the Cluster CRD needs the semver library",
    'cluster missing topology version': "the Cluster CRD needs the semver library",
    'cluster downgrade': "the Cluster CRD needs the semver library",
    'cluster upgrade': "the Cluster CRD needs the semver library",
    'cluster endpoint change': "the Cluster CRD needs the semver library",
    'cluster machine deployment class change': "the Cluster CRD needs the semver library",
    'cluster status provisioned': "the Cluster CRD needs the semver library",
    'cluster status back to pending': "the Cluster CRD needs the semver library",
    'cluster status without control plane domain': "the Cluster CRD needs the semver library",
    'cluster scale': "the Cluster CRD needs the semver library",
    'cluster dry-run status': "the Cluster CRD needs the semver library",
}


@pytest.fixture(scope="module")
def answers(shared_server: ServerProcess) -> dict[str, list[dict[str, Any]]]:
    api = api_client(shared_server.kubeconfig)
    setup = sweep.run(api, sweep.setup_steps())
    sweep.wait_served(api, setup)
    return {"setup": setup, "broken": sweep.run(api, sweep.broken_steps()), "steps": sweep.run(api, sweep.STEPS)}


def recorded(part: str) -> list[dict[str, Any]]:
    assert sweep.FIXTURE.exists(), "record the reference's answers: tools/capture_cel_crd_sweep.py"
    return sweep.answers(json.loads(sweep.FIXTURE.read_text())[part])


@pytest.mark.parametrize("part", ["setup", "broken", "steps"])
def test_ours_equal_the_recorded_reference(answers: dict[str, list[dict[str, Any]]], part: str) -> None:
    wanted = recorded(part)
    assert [a["step"] for a in answers[part]] == [w["step"] for w in wanted]
    differing = [(got["step"], got, want) for got, want in zip(answers[part], wanted)
                 if got != want and got["step"] not in KNOWN_DIFFERENCES]
    assert not differing, json.dumps(differing, indent=1)[:20000]
    now_equal = [got["step"] for got, want in zip(answers[part], wanted)
                 if got == want and got["step"] in KNOWN_DIFFERENCES]
    assert not now_equal, f"agree now, take them off KNOWN_DIFFERENCES: {now_equal}"
