"""The trend: values in time order, pairing only on equal definitions, McNemar as compare
computes it, and the rule that flags a change beyond noise."""

from __future__ import annotations

import pytest
from tests.trend_stores import V1, V2, dataset

from assay.compare import RunSide, compare_runs
from assay.errors import AssayConfigError
from assay.render.trend import render_json, render_markdown, render_text, sparkline
from assay.trend import Metric, build_trend, p95, paired_test

from .helpers import suite_run

SERIES = [
    suite_run("a1", 1, V1, range(30)),
    suite_run("a2", 2, V1, range(31)),
    suite_run("a3", 3, V1, range(30)),
    suite_run("b1", 4, V1, range(38), config="c2"),
    suite_run("b2", 5, V2, range(38), config="c2"),
    suite_run("b3", 6, V2, range(30), config="c2"),
]


def test_runs_in_time_order_with_rates_and_intervals() -> None:
    trend = build_trend("nightly", list(reversed(SERIES)))
    assert [p.run_id for p in trend.points] == ["a1", "a2", "a3", "b1", "b2", "b3"]
    first = trend.points[0]
    assert first.rate is not None and (first.rate.numerator, first.rate.denominator) == (30, 40)
    assert first.value == 0.75 and first.low == first.rate.ci[0]  # type: ignore[index]
    assert first.rate.denominator_name == "cases in the dataset"
    assert first.change is None and first.replicates == 3
    assert trend.denominator_name == "cases in the dataset"


def test_pairs_only_consecutive_runs_on_the_same_dataset_version() -> None:
    changes = [p.change for p in build_trend("nightly", SERIES).points[1:]]
    assert [c.paired for c in changes if c] == [True, True, True, False, True]
    b2 = changes[3]
    assert b2 is not None and b2.break_reason == "dataset version changed"
    assert b2.dataset_change is not None
    assert b2.dataset_change.model_dump() == {
        "added": 0,
        "removed": 0,
        "changed": 1,
        "unchanged": 39,
    }
    assert b2.fixed is None and b2.p_value is None and not b2.flagged
    b1 = changes[2]
    assert b1 is not None and b1.config_changed and (b1.fixed, b1.broken) == (8, 0)


def test_a_claimed_version_with_other_definitions_is_not_paired() -> None:
    runs = [
        suite_run("x1", 1, V1, range(30)),
        suite_run("x2", 2, V2, range(30), version=V1.version),
    ]
    change = build_trend("s", runs).points[1].change
    assert change is not None and not change.paired
    assert change.break_reason is not None
    assert change.break_reason.startswith("not pairable: C00: case definition differs: question")


def test_a_dataset_with_other_cases_is_summarised() -> None:
    runs = [suite_run("x1", 1, dataset(40), range(30)), suite_run("x2", 2, dataset(44), range(30))]
    change = build_trend("s", runs).points[1].change
    assert change is not None and change.dataset_change is not None
    assert (change.dataset_change.added, change.dataset_change.removed) == (4, 0)


@pytest.mark.parametrize("trials", [1, 3])
def test_mcnemar_is_the_one_compare_computes(trials: int) -> None:
    before = suite_run("p", 1, V1, range(30), trials=trials)
    after = suite_run("q", 2, V1, [*range(25), 31, 32], trials=trials)
    comparison = compare_runs(
        RunSide.from_report(before.report, "p"), RunSide.from_report(after.report, "q")
    )
    pairs = tuple(
        zip(before.report.cases, after.report.cases, strict=True)
    )  # same dataset: row for row
    fixed, broken, p, unit, count = paired_test(pairs, Metric.parse("task_success"))
    assert (fixed, broken, p, unit) == (
        comparison.mcnemar.fixed,
        comparison.mcnemar.broken,
        comparison.mcnemar.p_value,
        comparison.mcnemar.unit,
    )
    assert (fixed, broken) == (2, 5) and count == 40 * trials


def test_flagged_only_beyond_both_the_test_and_the_spread() -> None:
    runs = [
        suite_run("r1", 1, V1, range(20)),
        suite_run("r2", 2, V1, range(32)),  # the same configuration: spread 12 cases
        suite_run("r3", 3, V1, range(20)),  # 12 broken, p < 0.001, but within that spread
        suite_run("r4", 4, V1, range(20), config="c2"),
        suite_run("r5", 5, V1, range(34), config="c2"),  # 14 fixed; c2's spread is unknown
    ]
    trend = build_trend("s", runs)
    r3, r5 = trend.points[2].change, trend.points[4].change
    assert r3 is not None and r3.p_value is not None and r3.p_value < 0.001
    assert r3.spread == pytest.approx(0.3) and r3.spread_runs == 2
    assert not r3.flagged and "within the run-to-run spread" in r3.verdict
    assert r5 is not None and r5.flagged and r5.spread is None
    assert r5.verdict.endswith("better beyond noise")
    assert trend.groups[0].runs == ["r1", "r2", "r3"] and trend.groups[0].spread == pytest.approx(
        0.3
    )
    assert trend.summary.startswith("latest run r5 vs r4: +35.0 pts; 14 fixed, 0 broken")


def test_slice_metrics_and_their_pairs() -> None:
    trend = build_trend("nightly", SERIES, "even.task_success")
    b1 = trend.points[3]
    assert b1.rate is not None and (b1.rate.numerator, b1.rate.denominator) == (19, 20)
    assert b1.change is not None and (b1.change.fixed, b1.change.broken, b1.change.pairs) == (
        4,
        0,
        20,
    )
    accuracy = build_trend("nightly", SERIES, "odd.answered_accuracy").points[0]
    assert accuracy.rate is not None and accuracy.rate.denominator_name == "substantive answers"
    coverage = build_trend("nightly", SERIES, "even.answer_coverage").points[0].rate
    assert coverage is not None and coverage.denominator_name == "cases in the slice"
    assert (coverage.numerator, coverage.denominator) == (20, 20)
    repeated = [suite_run("t1", 1, V1, range(30), trials=3)]
    clustered = build_trend("s", repeated, "odd.answered_accuracy").points[0].rate
    assert clustered is not None and (clustered.numerator, clustered.denominator) == (45, 60)
    assert clustered.ci is not None and clustered.ci[0] < 0.75 < clustered.ci[1]
    missing = build_trend("nightly", SERIES, "nosuch.task_success").points[0]
    assert missing.value is None and missing.na_reason == "no slice 'nosuch' in this run"
    assert missing.shown == "n/a (no slice 'nosuch' in this run)"


def test_cost_and_latency_are_shown_never_flagged_and_na_says_why() -> None:
    runs = [
        suite_run("c1", 1, V1, range(30)),
        suite_run("c2", 2, V1, range(30), cost_usd=0.5, latencies_ms=tuple(range(1, 101))),
        suite_run("c3", 3, V1, range(30), cost_usd=0.75, latencies_ms=(1000.0,)),
    ]
    cost = build_trend("s", runs, "cost_usd")
    assert cost.points[0].value is None
    assert cost.points[0].na_reason == "the run recorded no cost (no usage or no prices)"
    assert cost.points[2].change is not None and cost.points[2].change.delta == 0.25
    assert not cost.points[2].change.flagged and cost.points[2].change.p_value is None
    latency = build_trend("s", runs, "latency_p95_s")
    assert [p.value for p in latency.points] == [None, 0.095, 1.0]
    assert latency.points[0].na_reason == "the run recorded no latency"


def test_unknown_metric_names_the_choices() -> None:
    with pytest.raises(AssayConfigError, match=r"unknown metric \(did you mean \"task_success\""):
        Metric.parse("task_succes")
    with pytest.raises(AssayConfigError, match=r"SLICE\.RATE"):
        Metric.parse("exception.latency")


def test_p95_and_sparkline() -> None:
    assert p95([]) is None
    assert p95([3.0]) == 3.0
    assert p95([float(i) for i in range(1, 21)]) == 19.0
    assert sparkline([0.0, 0.5, 1.0, None]) == "▁▅█·"
    assert sparkline([0.4, 0.4]) == "▅▅"
    assert sparkline([None]) == "·"


def test_every_format_says_the_same_figures() -> None:
    trend = build_trend("nightly", SERIES)
    text = render_text(trend)
    assert text.startswith("assay trend · nightly · task_success over cases in the dataset")
    assert "▁▂▁██▁" in text and "30/40 (75.0%) [58.8%, 87.3%]" in text
    assert "not paired: dataset version changed (cases: 0 added, 0 removed, 1 changed" in text
    markdown = render_markdown(trend)
    assert markdown.startswith("## assay trend: nightly")
    assert "| 38/40 (95.0%) \\[83.1%, 99.4%\\] |" in markdown  # data is escaped
    assert "**-20.0 pts; 0 fixed, 8 broken, p = 0.0078: worse beyond noise**" in markdown
    assert '"run_id": "b3"' in render_json(trend)


def test_no_runs_says_so() -> None:
    trend = build_trend("s", [])
    assert trend.points == [] and "no runs" in trend.summary
    assert "no runs of this suite" in render_text(trend)
