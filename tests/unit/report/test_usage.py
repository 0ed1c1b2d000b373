"""The usage section: totals over the case-trials that reported, never unknown as 0;
latency percentiles; cost from a price table; gates on cost, latency and tokens."""

from __future__ import annotations

import pytest

from assay.gates import evaluate_gates
from assay.outcomes import Abstain, Record, Usage
from assay.render import render
from assay.report import Price, Report, summarize_usage
from assay.report._usage import percentile

PRICES = {"m": Price(input=1.0, output=4.0)}


def _record(i: int, usage: Usage | None, latency_ms: float | None = 100.0) -> Record:
    return Record(case_id=f"C{i}", outcome=Abstain(), usage=usage, latency_ms=latency_ms)


def test_partial_usage_is_summed_over_those_that_reported_it() -> None:
    records = [
        _record(1, Usage(input_tokens=100, output_tokens=10)),
        _record(2, Usage(input_tokens=200, output_tokens=None)),
        _record(3, None),
    ]
    usage = summarize_usage(records)
    assert (usage.case_trials, usage.usage_reported) == (3, 2)
    assert (usage.input_tokens, usage.input_reported) == (300, 2)
    assert (usage.output_tokens, usage.output_reported) == (10, 1)
    assert usage.cost_usd is None and usage.cost_note is not None


def test_no_usage_at_all_is_null_never_zero() -> None:
    usage = summarize_usage([_record(1, None), _record(2, None)])
    assert usage.input_tokens is None and usage.output_tokens is None
    assert usage.usage_reported == 0


def test_cost_counts_only_case_trials_with_both_token_counts() -> None:
    records = [
        _record(1, Usage(input_tokens=1_000_000, output_tokens=500_000)),
        _record(2, Usage(input_tokens=10, output_tokens=None)),
    ]
    usage = summarize_usage(records, PRICES, "m", "prices.yaml", "sha256:abc")
    assert usage.cost_usd == pytest.approx(1.0 + 2.0)
    assert usage.cost_reported == 1
    assert usage.prices is not None and usage.prices.price == PRICES["m"]


def test_a_model_missing_from_the_table_has_no_cost_and_says_why() -> None:
    usage = summarize_usage([_record(1, Usage(input_tokens=1, output_tokens=1))], PRICES, "x")
    assert usage.cost_usd is None
    assert usage.cost_note == "the price table has no price for model 'x'"


def test_latency_percentiles_interpolate_between_ranks() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.95) == pytest.approx(4.8)
    records = [_record(i, None, latency_ms=float(ms)) for i, ms in enumerate([100, 200, 300])]
    latency = summarize_usage([*records, _record(9, None, latency_ms=None)]).latency
    assert latency is not None
    assert (latency.count, latency.p50_s, latency.max_s) == (3, 0.2, 0.3)


def _report(report: Report, **usage: object) -> Report:
    records = [
        _record(1, Usage(input_tokens=1_000_000, output_tokens=1_000_000), 500.0),
        _record(2, Usage(input_tokens=1_000_000, output_tokens=1_000_000), 3000.0),
    ]
    return report.model_copy(update={"usage": summarize_usage(records, PRICES, "m", **usage)})


def test_gates_take_cost_latency_and_tokens(report: Report) -> None:
    report = _report(report)
    results = evaluate_gates(
        report, ["cost_usd<=5", "latency_p95_s<=2", "output_tokens<=3000000", "input_tokens<1"]
    )
    assert [r.passed for r in results] == [False, False, True, False]
    assert results[0].message == "usage.cost_usd = 10, needs <= 5: over by 5"
    assert results[1].actual == pytest.approx(2.875)


def test_a_gate_on_cost_without_a_price_table_is_na(report: Report) -> None:
    report = report.model_copy(update={"usage": summarize_usage([_record(1, None)])})
    failed, allowed = evaluate_gates(report, ["cost_usd<=5", "cost_usd<=5 allow_na"])
    assert not failed.passed and failed.message.startswith("n/a")
    assert allowed.passed


def test_every_format_shows_the_usage_section(report: Report) -> None:
    report = _report(report)
    for fmt in ("text", "markdown"):
        shown = render(report, fmt)
        assert "usage reported by 2 of 2 case-trials" in shown
        assert "Cost: $10 over 2 of 2 case-trials" in shown
        assert "p95 2.88 s" in shown
    assert '"cost_usd": 10.0' in render(report, "json")


def _cached(i: int, usage: Usage | None) -> Record:
    note = {"hit": True, "key_version": 1, "created_at": "2026-11-30T12:00:00", "run_id": "R0"}
    return Record(
        case_id=f"C{i}", outcome=Abstain(), usage=usage, latency_ms=100.0, extra={"cache": note}
    )


def test_a_cached_reply_is_cost_avoided_never_cost_paid() -> None:
    records = [
        _record(1, Usage(input_tokens=1_000_000, output_tokens=0)),
        _cached(2, Usage(input_tokens=1_000_000, output_tokens=1_000_000)),
        _cached(3, None),
    ]
    usage = summarize_usage(records, PRICES, "m")
    assert (usage.case_trials, usage.cached, usage.called) == (3, 2, 1)
    assert (usage.usage_reported, usage.input_tokens, usage.output_tokens) == (1, 1_000_000, 0)
    assert (usage.cost_usd, usage.cost_reported) == (1.0, 1)
    assert (usage.cost_avoided_usd, usage.cost_avoided_reported) == (5.0, 1)
    assert usage.latency is not None and usage.latency.count == 3  # original latencies kept


def test_a_fully_cached_run_paid_nothing_and_says_what_it_avoided() -> None:
    records = [_cached(1, Usage(input_tokens=1_000_000, output_tokens=1_000_000))]
    usage = summarize_usage(records, PRICES, "m")
    assert (usage.cost_usd, usage.cost_avoided_usd, usage.usage_reported) == (0.0, 5.0, 0)
    assert usage.input_tokens is None  # no call made, no tokens paid
    unpriced = summarize_usage(records)
    assert unpriced.cost_usd is None and unpriced.cost_avoided_usd is None


def test_every_format_shows_cost_paid_and_cost_avoided_apart(report: Report) -> None:
    records = [
        _record(1, Usage(input_tokens=1_000_000, output_tokens=1_000_000)),
        _cached(2, Usage(input_tokens=1_000_000, output_tokens=0)),
    ]
    report = report.model_copy(update={"usage": summarize_usage(records, PRICES, "m")})
    for fmt in ("text", "markdown", "html"):
        shown = " ".join(render(report, fmt).split())
        assert "usage reported by 1 of 1 case-trials that called" in shown, fmt
        assert "Served from the cache: 1 of 2 case-trials" in shown, fmt
        assert "Cost paid: $5 over 1 of 1 case-trials that called" in shown, fmt
        assert "Cost avoided by the cache: $1 over 1 of 1 cached case-trials" in shown, fmt
    data = render(report, "json")
    assert '"cost_avoided_usd": 1.0' in data and '"cost_usd": 5.0' in data


def test_text_and_markdown_rows_of_cached_case_trials_are_marked(report: Report) -> None:
    rows = [
        row.model_copy(update={"cached_from": "R0"}) if row.status == "failed" else row
        for row in report.cases
    ]
    report = report.model_copy(update={"cases": rows})
    failed = next(r.id for r in rows if r.status == "failed")
    assert f"{failed} (cached)" in render(report, "text")
    assert f"| {failed} (cached) |" in render(report, "markdown")


def test_the_judges_usage_is_counted_from_its_judgments_apart_from_the_target() -> None:
    from assay.render._format import judge_usage_lines
    from assay.report._usage import judge_usage

    asked = ("judge_model=m", "prompt_version=p", "rubric_version=r")
    labels = [
        (*asked, "judge_input_tokens=600", "judge_output_tokens=90", "judge_score=2"),
        (*asked, "judge_input_tokens=500", "judge_output_tokens=40", "rejected=invalid_json"),
        (*asked, "judge_attempts=3"),  # the call failed after every retry: no usage
        (*asked, "judge_input_tokens=700", "judge_score=0", "judge_cache=hit"),  # not paid
        ("judge_model=m", "prompt_version=p", "judge_score=2"),  # an abstention: no call
        ("composite=1",),  # another grader
    ]
    found = judge_usage(labels, "judge_cache=hit")
    assert found is not None
    assert (found.asked, found.cached, found.sent, found.failed) == (4, 1, 3, 1)
    assert found.attempts == 1 + 1 + 3
    assert (found.input_tokens, found.input_reported) == (1100, 2)
    assert (found.output_tokens, found.output_reported) == (130, 2)
    assert judge_usage([("composite=1",)], "judge_cache=hit") is None
    (line,) = judge_usage_lines(found)
    assert line.startswith("Judge (apart from the target's usage): calls 3 of 4 case-trials")
    assert "(1 served from the cache)" in line and "failed 1" in line
    assert "input 1,100 (2 reported)" in line
