"""What ``assay trace`` and ``assay diagnose`` say when a case or its spans are not there."""

from __future__ import annotations

import pytest

from assay.cases import Case, Dataset
from assay.diagnose import Finding, Stage
from assay.errors import AssayInputError, did_you_mean
from assay.outcomes import Answer, Record
from assay.render.diagnosis import render_finding, render_groups
from assay.runs import StoredRun

CASE = Case(id="E2", slice="exception", question="q", expected_behavior="abstain")
RECORDED = {("E2", 1): Record(case_id="E2", trial=1, outcome=Answer(fact="f"))}


def stored(records: dict[tuple[str, int], Record]) -> StoredRun:
    return StoredRun("run-1", 2, Dataset("d", (CASE,)), records, {})


def test_an_untraced_run_says_tracing_was_off() -> None:
    message = stored(RECORDED).no_spans(CASE, 1, run_traced=False)
    assert "recorded no spans at all" in message and "--no-trace" in message


def test_a_traced_run_without_this_case_trials_spans_says_so() -> None:
    message = stored(RECORDED).no_spans(CASE, 1, run_traced=True)
    assert message == "run run-1 recorded spans for other case-trials, but none for E2 (trial 1)"


def test_a_case_trial_never_recorded_points_at_resume() -> None:
    message = stored(RECORDED).no_spans(CASE, 2, run_traced=True)
    assert "no recorded outcome for E2 (trial 2)" in message
    assert "assay run --resume run-1" in message


def test_an_unknown_case_suggests_the_closest_id_even_in_another_letter_case() -> None:
    with pytest.raises(AssayInputError, match="has no case 'e2' \\(did you mean \"E2\"\\?\\)"):
        stored(RECORDED).case("e2")
    assert did_you_mean("E22", ["E2", "X1"]) == ' (did you mean "E2"?)'
    assert did_you_mean("zzz", ["E2", "X1"]) == ""


def finding(stage: Stage | None, rule: str, status: str, evidence: tuple[str, ...]) -> Finding:
    return Finding(
        case="A3", status=status, stage=stage, evidence=evidence, next_step="n", rule=rule
    )


def test_a_passed_case_implicates_no_stage_and_an_unexplained_one_is_undetermined() -> None:
    assert "stage: none  (rule: passed)" in render_finding(
        finding(None, "passed", "passed", ("p",))
    )
    unexplained = finding(None, "undetermined", "failed", ("r", "no rule matched"))
    assert "stage: undetermined  (rule: undetermined)" in render_finding(unexplained)


def test_the_grouped_view_shows_the_observation_that_names_the_stage() -> None:
    leak = finding(
        "access_boundary",
        "access-boundary",
        "failed",
        ("outcome: answer restocking_fee_15", "the answer cites globex/restocking-fee", "filter"),
    )
    shown = render_groups("run-1", [leak])
    assert "access_boundary (1)" in shown
    assert "A3       failed   the answer cites globex/restocking-fee" in shown
