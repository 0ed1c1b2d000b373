"""Trend gate rules: parsing, references, margins and what fails when a run is missing."""

from __future__ import annotations

import pytest
from tests.trend_stores import V1, V2
from tests.unit.trend.helpers import suite_run

from assay.errors import AssayConfigError
from assay.gates import parse_trend_rule, trend_gate


def test_references_resolve_to_the_same_figure_or_a_bound() -> None:
    rule = parse_trend_rule("task_success.low>=baseline.low")
    assert (rule.reference, rule.ref_path, rule.margin) == ("baseline", "task_success.low", 0.0)
    rule = parse_trend_rule("task_success>=last-2%")
    assert (rule.reference, rule.ref_path, rule.margin) == ("last", "task_success", -0.02)
    rule = parse_trend_rule("slice[even].task_success.high<=baseline.value+0.1 allow_na")
    assert rule.ref_path == "slice[even].task_success" and rule.allow_na
    assert parse_trend_rule("errors==0").reference is None
    assert parse_trend_rule("no_new_failures_vs_release-1.4").reference == "release-1.4"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("task_success", "expected no_new_failures_vs_last"),
        ("task_succes>=baseline", "unknown field 'task_succes'"),
        ("task_success>=baseline.nosuch", "unknown field 'nosuch'"),
        ("task_success>=base line", "expected no_new_failures_vs_last"),
        ("task_success>=1abc", "neither a number nor a reference"),
    ],
)
def test_bad_rules_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(AssayConfigError, match=message):
        parse_trend_rule(text)


def test_the_latest_run_against_the_last_and_a_tag() -> None:
    runs = [suite_run("r1", 1, V1, range(30)), suite_run("r2", 2, V1, [*range(29), 35])]
    tagged = {"baseline": runs[0]}
    rules = [
        parse_trend_rule(t)
        for t in (
            "no_new_failures_vs_last",
            "task_success>=baseline",
            "task_success.low>=baseline.low-0.01",
            "no_new_failures_vs_gone",
        )
    ]
    latest, results = trend_gate(rules, runs, tagged)
    assert latest is runs[1]
    assert [r.passed for r in results] == [False, True, True, False]
    assert results[0].message == "r2 vs r1: 1 newly failing: C29"
    assert results[3].message == "n/a: no run tagged 'gone' in this suite"
    _, alone = trend_gate(rules[:1], runs[1:], {})
    assert alone[0].message == "n/a: no previous run in this suite" and not alone[0].passed
    _, moved = trend_gate(rules[:1], [runs[0], suite_run("v2", 3, V2, range(30))], {})
    assert "do not pair" in moved[0].message and not moved[0].passed
    _, empty = trend_gate(rules[:1], [], {})
    assert not empty[0].passed


def test_not_worse_than_the_run_tagged_baseline_by_a_margin() -> None:
    base = suite_run("b1", 1, V1, range(30))
    same = suite_run("r2", 2, V1, range(30))
    worse = suite_run("r3", 3, V1, range(10))
    rule = parse_trend_rule("not_worse_than_baseline(0.1)")
    assert (rule.reference, rule.not_worse_by) == ("baseline", 0.1)
    _, (kept,) = trend_gate([rule], [base, same], {"baseline": base})
    assert kept.passed
    assert kept.message.startswith(
        "r2 vs baseline = b1: not worse than the baseline by more than 10.0 points"
    )
    _, (lost,) = trend_gate([rule], [base, worse], {"baseline": base})
    assert not lost.passed and "worse than the baseline by more than 10.0 points" in lost.message
    _, (none,) = trend_gate([rule], [base, same], {})
    assert not none.passed and none.message == "n/a: no run tagged 'baseline' in this suite"
    with pytest.raises(AssayConfigError, match='did you mean "not_worse_than_baseline"'):
        parse_trend_rule("not_worse_than_basline(0.1)")
    with pytest.raises(AssayConfigError, match=r"the margin 1\.5"):
        parse_trend_rule("not_worse_than_baseline(1.5)")
