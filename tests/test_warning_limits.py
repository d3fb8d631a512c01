"""Warnings past kube-apiserver's limits (4 KiB of text in all, then 256 characters each) are written as
its recorder writes them, read through the kubernetes client's own transport: before, a hundred
unknown fields under fieldValidation=Warn answered a hundred lines, which that client cannot read."""

from __future__ import annotations

import json
import os
import sys

import pytest
from kubernetes import config
from support import ServerProcess

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))

import capture_warning_limits

pytestmark = pytest.mark.store_once

with open(capture_warning_limits.FIXTURE) as f:
    RECORDED: dict[str, list[str]] = json.load(f)


@pytest.mark.parametrize(("count", "padding"), capture_warning_limits.SCENARIOS)
def test_warning_lines_are_kube_apiservers(shared_server: ServerProcess, count: int, padding: int) -> None:
    api = config.new_client_from_config(config_file=shared_server.kubeconfig)
    assert capture_warning_limits.warnings(api, count, padding) == RECORDED[f"{count}x{padding}"]


def test_the_recorded_answers_show_each_limit() -> None:
    """The fixture covers every branch: all written, the replay cut short, later warnings dropped."""
    assert len(RECORDED["3x10"]) == 3 and len(RECORDED["57x40"]) == 57
    assert len(RECORDED["120x40"]) == len(RECORDED["58x40"]) == 58
    assert max(len(line) for line in RECORDED["200x400"]) < 256 + len('299 - ""') + 20
