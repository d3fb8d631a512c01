"""A CRD stored with what a create could not have can still be updated while it keeps it: rules over the
per-expression cost limit in a version whose schema stays as it was (upstream's
suppressExpressionCostForUnchangedSchema), more selectable fields than the limit while they stay the same
(findTooManySelectableFieldsAllowed); a change, and the schema's total cost, are held to the limits. The
reference's answers are tests/fixtures/crd_update_ratchet.json, recorded by
tools/capture_crd_update_ratchet.py; ours, over the embedded store rewritten while the server is stopped,
must equal them.
"""

from __future__ import annotations

import json
import os
from typing import Any

import crd_update_ratchet_cases as cases
import pytest
import stored_crds
from support import ServerProcess

pytestmark = pytest.mark.store_once


def _set_versions(crd: dict[str, Any], versions: list[dict[str, Any]]) -> None:
    crd["spec"]["versions"] = versions


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    with ServerProcess(str(tmp_path_factory.mktemp("ratchet"))) as server:
        def send(method: str, path: str, body: Any, content_type: str) -> tuple[int, Any]:
            headers = {"Content-Type": content_type} if content_type else {}
            return server.json(method, path, body, headers=headers, content_type=content_type or "application/json")
        return cases.run(send, stored_crds.rewriter(server, _set_versions))


def test_ours_equal_the_recorded_reference(answers: dict[str, dict[str, Any]]) -> None:
    with open(os.path.join(os.path.dirname(__file__), "fixtures", cases.FIXTURE)) as f:
        recorded = json.load(f)
    assert answers == recorded


def test_an_unchanged_over_budget_schema_takes_a_label(answers: dict[str, dict[str, Any]]) -> None:
    assert answers["over-rule-limit/label"] == {"code": 200}
    assert answers["per-version/other-version-changed"] == {"code": 200}
    assert answers["shared/version-added"] == {"code": 200}


def test_a_changed_schema_and_the_total_are_checked(answers: dict[str, dict[str, Any]]) -> None:
    assert answers["over-rule-limit/schema-changed"]["code"] == 422
    assert answers["per-version/over-version-changed"]["code"] == 422
    causes = answers["over-total-limit/label"]["causes"]
    assert [c["field"] for c in causes][-1] == "spec.validation.openAPIV3Schema"


def test_kept_selectable_fields_past_the_limit_stay_allowed(answers: dict[str, dict[str, Any]]) -> None:
    assert answers["too-many-selectable/label"] == {"code": 200}
    assert answers["too-many-selectable/schema-changed"] == {"code": 200}
    assert answers["shared-selectable/label"] == {"code": 200}
    causes = answers["too-many-selectable/one-version-changed"]["causes"]
    assert [c["field"] for c in causes] == ["spec.versions[0].selectableFields"]
