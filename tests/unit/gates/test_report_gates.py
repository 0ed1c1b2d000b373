"""Gate rules: parsing, resolving any report field, n/a and NaN handling, clear errors."""

from __future__ import annotations

import math

import pytest

from assay.errors import AssayConfigError
from assay.gates import check_rule, evaluate_gates, gates_passed, parse_rule
from assay.report import Report


def test_parse_rule_reads_path_operator_threshold_and_flag() -> None:
    rule = parse_rule(" answered_accuracy.low >= 60% allow_na ")
    assert (rule.path, rule.op, rule.threshold, rule.allow_na) == (
        "answered_accuracy.low",
        ">=",
        0.6,
        True,
    )


@pytest.mark.parametrize(
    ("text", "passed"),
    [
        ("task_success>=0.3", True),
        ("task_success>=0.8", False),
        ("task_success>0.3333333333333333", False),
        ("task_success<0.34", True),
        ("task_success<=0.2", False),
        ("errors==1", True),
        ("errors!=1", False),
        ("errors==0", False),
        ("statuses.failed<=3", True),
        ("answered_accuracy.low>=0.6", False),
        ("answered_accuracy.high>0.9", True),
        ("slice[exception].task_success>=0.5", False),
        ("slices[standard].task_success.numerator==1", True),
        ("slices.missing.total==2", True),
    ],
)
def test_rules_compare_the_named_figure(report: Report, text: str, passed: bool) -> None:
    assert check_rule(report, parse_rule(text)).passed is passed


def test_failure_says_by_how_much(report: Report) -> None:
    result = check_rule(report, parse_rule("task_success>=0.8"))
    assert result.actual == pytest.approx(1 / 3)
    assert result.margin == pytest.approx(1 / 3 - 0.8)
    assert "2/6" in result.message and "short by 0.4667" in result.message


def test_interval_bound_is_the_rate_interval(report: Report) -> None:
    low = check_rule(report, parse_rule("answered_accuracy.low>=0")).actual
    assert report.answered_accuracy.ci is not None
    assert low == report.answered_accuracy.ci[0]


def test_na_rate_fails_unless_allowed(abstain_only: Report) -> None:
    assert abstain_only.answered_accuracy.value is None
    failed = check_rule(abstain_only, parse_rule("answered_accuracy>=0.6"))
    assert not failed.passed
    assert failed.message == "n/a: no substantive answers"
    bound = check_rule(abstain_only, parse_rule("answered_accuracy.low>=0.6"))
    assert not bound.passed and bound.message.startswith("n/a")
    allowed = check_rule(abstain_only, parse_rule("answered_accuracy>=0.6 allow_na"))
    assert allowed.passed and "allowed" in allowed.message


def test_nan_never_passes(report: Report) -> None:
    nan_rate = report.task_success.model_copy(update={"value": math.nan})
    broken = report.model_copy(update={"task_success": nan_rate})
    for op in (">=", "<=", "!=", "<", ">"):
        result = check_rule(broken, parse_rule(f"task_success{op}0.5 allow_na"))
        assert not result.passed, op


def test_missing_section_is_na(report: Report) -> None:
    assert report.synthetic is None
    assert not check_rule(report, parse_rule("synthetic.task_success>=0.5")).passed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("task_sucess>=0.8", 'did you mean "task_success"'),
        ("slice[exceptoin].task_success>=0.5", 'did you mean "exception"'),
        ("task_success.lwo>=0.5", 'did you mean "low"'),
        ("dataset.name>=1", "is not a number"),
        ("task_success>=abc", "is not a number"),
        ("task_success>=0.5 allow-na", 'did you mean "allow_na"'),
        ("task_success=>0.5", "expected FIELD OP NUMBER"),
        ("task_success>=nan", "not NaN"),
    ],
)
def test_bad_rules_are_config_errors(report: Report, text: str, expected: str) -> None:
    with pytest.raises(AssayConfigError, match=expected.replace("[", r"\[")):
        evaluate_gates(report, [text])


def test_evaluate_gates_checks_every_rule_before_evaluating(report: Report) -> None:
    with pytest.raises(AssayConfigError):
        evaluate_gates(report, ["task_success>=0.1", "nope>=1"])
    results = evaluate_gates(report, ["task_success>=0.1", "errors==0"])
    assert [r.passed for r in results] == [True, False]
    assert not gates_passed(results)
    assert gates_passed([])


@pytest.mark.parametrize(
    "text",
    ["task_sucess>=1", "slice[x].task_sucess>=1", "answered_accuracy.lwo>=0", "statuses.pased>0"],
)
def test_field_names_are_checked_before_any_report_exists(text: str) -> None:
    with pytest.raises(AssayConfigError, match="did you mean"):
        parse_rule(text)


def test_data_keys_wait_for_the_report() -> None:
    assert parse_rule("slice[anything].task_success>=0.5").path.startswith("slice[")
    assert parse_rule("slices.anything.total>=1").op == ">="
    assert parse_rule("metadata.run.x>=1").threshold == 1


def test_rules_reach_the_trial_policy_rate_and_its_bounds() -> None:
    from assay.cases import Case, Dataset
    from assay.grading import grade_all
    from assay.outcomes import Answer, Record
    from assay.report import build_report

    cases = tuple(
        Case(id=f"T{i}", slice="s", question="q", expected_behavior="answer", expected_fact="f")
        for i in range(4)
    )
    data = Dataset(name="trials", cases=cases)
    records = [
        Record(case_id=c.id, trial=t, outcome=Answer(fact="f" if t < 3 or c.id == "T0" else "g"))
        for c in cases
        for t in (1, 2, 3)
    ]
    report = build_report(data, grade_all(data, records))
    summary = report.trial_summary
    assert summary is not None and summary.task_success.ci is not None
    low = summary.task_success.ci[0]
    value = check_rule(report, parse_rule("trial_summary.task_success>=0.9"))
    assert not value.passed and value.actual == summary.task_success.value
    fraction = f"({summary.task_success.score_sum:g}/{summary.task_success.cases} cases, "
    assert fraction in value.message
    high = check_rule(report, parse_rule("trial_summary.task_success.high<=1"))
    assert high.passed and high.actual == summary.task_success.ci[1]
    bound = check_rule(report, parse_rule(f"trial_summary.task_success.low>={low + 0.01}"))
    assert not bound.passed and bound.actual == low
    with pytest.raises(AssayConfigError, match="unknown field 'lo'"):
        parse_rule("trial_summary.task_success.lo>=0.1")


def test_a_figure_near_a_certainty_or_the_threshold_is_never_rounded_onto_it() -> None:
    from assay.gates._report import _fmt

    assert _fmt(0.99999) == "0.99999"  # not "1"
    assert _fmt(0.79999, 0.8) == "0.79999"  # not "0.8" beside a failing >= 0.8
    assert _fmt(1 / 3) == "0.3333"
    assert _fmt(1.0, 1.0) == "1"
