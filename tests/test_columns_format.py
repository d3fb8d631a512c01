"""The shared formatting rules, case by case (upstream's HumanDuration, selectors, quantities...)."""

from __future__ import annotations

import pytest

from columns.format import (
    LabelSelector,
    Requirement,
    access_modes,
    canonical_quantity,
    format_label_selector,
    format_labels,
    human_duration,
    join_more,
    selector_string,
)

MINUTE, HOUR, DAY, YEAR = 60, 3600, 86400, 365 * 86400


@pytest.mark.parametrize(("seconds", "text"), [
    (-3, "<invalid>"), (-1.5, "0s"), (-0.5, "0s"), (0, "0s"), (0.9, "0s"), (59, "59s"), (119.9, "119s"),
    (120, "2m"), (5 * MINUTE + 7, "5m7s"), (9 * MINUTE + 59, "9m59s"), (10 * MINUTE + 30, "10m"),
    (179 * MINUTE, "179m"), (3 * HOUR, "3h"), (3 * HOUR + 20 * MINUTE, "3h20m"), (7 * HOUR + 59 * MINUTE, "7h59m"),
    (8 * HOUR + 30 * MINUTE, "8h"), (47 * HOUR, "47h"), (2 * DAY, "2d"), (2 * DAY + 4 * HOUR, "2d4h"),
    (7 * DAY + 23 * HOUR, "7d23h"), (8 * DAY + 5 * HOUR, "8d"), (729 * DAY, "729d"), (2 * YEAR, "2y"),
    (3 * YEAR + 10 * DAY, "3y10d"), (8 * YEAR + 100 * DAY, "8y"),
])
def test_human_duration(seconds: float, text: str) -> None:
    assert human_duration(seconds) == text


@pytest.mark.parametrize(("given", "canonical"), [
    ("10Gi", "10Gi"), ("10240Mi", "10Gi"), ("1536Mi", "1536Mi"), ("1.5Gi", "1536Mi"), ("512", "512"),
    ("1024", "1024"), ("1000", "1k"), ("1500", "1500"), ("1500000", "1500k"), ("0.5", "500m"), ("100m", "100m"),
    ("1G", "1G"), ("1000M", "1G"), ("0", "0"), ("0Gi", "0"), ("2Ki", "2Ki"), ("1e3", "1e3"), ("1E", "1E"),
    ("0.1Ki", "102400m"),
])
def test_canonical_quantity(given: str, canonical: str) -> None:
    assert canonical_quantity(given) == canonical


def test_labels_are_sorted_and_none_is_a_placeholder() -> None:
    assert format_labels({"b": "2", "a": "1"}) == "a=1,b=2"
    assert format_labels({}) == "<none>"


def test_selectors_sort_requirements_by_key() -> None:
    selector = LabelSelector(matchLabels={"tier": "gold", "app": "web"}, matchExpressions=[
        Requirement("env", "In", ["prod", "dev"]), Requirement("zone", "NotIn", ["b"]),
        Requirement("canary", "DoesNotExist"), Requirement("owner", "Exists")])
    assert selector_string(selector) == "app=web,!canary,env in (dev,prod),owner,tier=gold,zone notin (b)"


def test_empty_nil_and_invalid_selectors() -> None:
    assert format_label_selector(None) == "<none>"
    assert format_label_selector(LabelSelector()) == "<none>"
    assert format_label_selector(LabelSelector(matchExpressions=[Requirement("a", "Bogus", ["x"])])) == "<error>"
    assert format_label_selector(LabelSelector(matchExpressions=[Requirement("a", "In")])) == "<error>"
    assert format_label_selector(LabelSelector(matchLabels={"bad key!": "x"})) == "<error>"
    assert format_label_selector(LabelSelector(matchLabels={"example.com/app": ""})) == "example.com/app="


def test_lists_name_how_many_were_left_out() -> None:
    assert join_more(["a", "b", "c"], 5) == "a,b,c + 2 more..."
    assert join_more(["a", "b"], 2) == "a,b"


def test_access_modes_in_fixed_order_once() -> None:
    assert access_modes(["ReadWriteMany", "ReadWriteOnce", "ReadWriteOnce", "ReadWriteOncePod"]) == "RWO,RWX,RWOP"
