"""A container's imagePullPolicy is defaulted from its image as kube-apiserver 1.36.2 defaults it, at the
edges of parsers.ParseImageName (the normalized repository path's length, domains, upper case,
identifiers, tags and digests). Answers recorded by tools/capture_image_pull_policy.py."""

from __future__ import annotations

import pytest
from recorded import prepared_sender, tool
from support import ServerProcess

capture, RECORDED = tool("capture_image_pull_policy")

pytestmark = pytest.mark.store_once


def test_every_image_was_recorded() -> None:
    assert sorted(RECORDED["policies"]) == sorted(capture.IMAGES)
    assert set(RECORDED["policies"].values()) == {"Always", "IfNotPresent"}


def test_pull_policies_are_defaulted_as_kube_apiserver_defaults_them(shared_server: ServerProcess) -> None:
    assert capture.answer(prepared_sender(shared_server, capture)) == RECORDED
