"""Pairing, refusal, classification and the paired statistics of ``compare_runs``."""

from __future__ import annotations

from dataclasses import replace
from html import escape

import pytest

from assay.cases import Case, Dataset, canonical_record
from assay.compare import ComparisonRefusedError, RunSide, classify, compare_runs
from assay.errors import AssayInputError
from assay.grading import grade_all
from assay.metrics import IntervalSetting, mcnemar_exact
from assay.outcomes import Answer, Record
from assay.render import render
from assay.render.comparison import render_comparison
from assay.report import build_report

from .helpers import case, side

CASES = [case(f"E{i}", "even" if i % 2 == 0 else "odd") for i in range(1, 9)]


def _all(status: str) -> dict[str, str]:
    return {c.id: status for c in CASES}


def test_fixed_broken_and_unchanged() -> None:
    base = _all("failed") | {"E1": "passed", "E2": "passed", "E3": "passed"}
    cand = _all("failed") | {"E1": "passed", "E4": "passed", "E5": "passed", "E3": "failed"}
    c = compare_runs(side(CASES, base, "base"), side(CASES, cand, "cand"))
    assert c.paired == 8
    assert c.newly_fixed == ["E4", "E5"]
    assert c.newly_broken == ["E2", "E3"]
    assert c.unchanged == {"passed": 1, "failed": 3}
    assert c.mcnemar.fixed == 2 and c.mcnemar.broken == 2
    assert c.mcnemar.p_value == 1.0
    assert c.task_success_delta.value == pytest.approx(0.0)
    fixed = c.fixed[0]
    assert (fixed.baseline.status, fixed.candidate.status) == ("failed", "passed")
    assert "expected" in fixed.baseline.reason


def test_an_error_that_became_a_failure_is_a_move_not_a_fix() -> None:
    base = _all("passed") | {"E1": "error", "E2": "error", "E3": "passed", "E4": "failed"}
    cand = _all("passed") | {"E1": "failed", "E2": "passed", "E3": "missing", "E4": "error"}
    c = compare_runs(side(CASES, base), side(CASES, cand))
    moves = {(m.id, m.from_, m.to) for m in c.moved}
    assert moves == {
        ("E1", "error", "failed"),
        ("E2", "error", "passed"),
        ("E3", "passed", "missing"),
        ("E4", "failed", "error"),
    }
    assert c.newly_fixed == [] and c.newly_broken == []
    # Task success still counts error -> passed and passed -> missing.
    assert (c.mcnemar.fixed, c.mcnemar.broken) == (1, 1)


@pytest.mark.parametrize(
    ("before", "after", "kind"),
    [
        ("failed", "passed", "fixed"),
        ("passed", "failed", "broken"),
        ("error", "failed", "moved"),
        ("failed", "error", "moved"),
        ("missing", "passed", "moved"),
        ("ungraded", "failed", "moved"),
        ("error", "missing", "moved"),
        ("error", "error", "unchanged"),
        ("passed", "passed", "unchanged"),
    ],
)
def test_classify(before: str, after: str, kind: str) -> None:
    assert classify(before, after) == kind


def test_mcnemar_and_plain_words() -> None:
    base = _all("failed") | {"E8": "passed"}
    cand = _all("passed") | {"E8": "failed"}
    c = compare_runs(side(CASES, base), side(CASES, cand))
    assert (c.mcnemar.fixed, c.mcnemar.broken) == (7, 1)
    assert c.mcnemar.p_value == pytest.approx(mcnemar_exact(7, 1)) == pytest.approx(9 / 128)
    assert c.summary.startswith("7 fixed, 1 broken; p = 0.0703: not distinguishable from noise")
    low, high = c.task_success_delta.ci or (0.0, 0.0)
    assert low <= 6 / 8 <= high


def test_plain_words_say_when_moves_to_passed_count_in_the_test() -> None:
    base = _all("failed") | {"E1": "error", "E8": "passed"}
    cand = _all("failed") | {"E1": "passed", "E2": "passed"}
    c = compare_runs(side(CASES, base), side(CASES, cand))
    assert c.newly_fixed == ["E2"] and c.newly_broken == ["E8"]
    assert (c.mcnemar.fixed, c.mcnemar.broken) == (2, 1)
    assert c.summary.startswith(
        "1 fixed, 1 broken, 1 moved to or from passed (the test counts every move to or "
        "from passed: 2 up, 1 down); "
    )
    text = render_comparison(c, "text")
    assert "Newly fixed (1)" in text and "Newly broken (1)" in text and "Moved (1)" in text


def test_the_sentence_and_the_tables_count_case_trials_alike() -> None:
    base = {c.id: ["failed", "passed"] for c in CASES} | {"E1": ["failed", "failed"]}
    cand = {c.id: ["passed", "failed"] for c in CASES} | {"E1": ["passed", "passed"]}
    c = compare_runs(side(CASES, base), side(CASES, cand))
    assert (len(c.fixed), len(c.broken)) == (9, 7)
    assert (c.mcnemar.fixed, c.mcnemar.broken) == (1, 0)
    assert c.summary.startswith(
        "9 case-trials fixed, 7 broken (the test counts cases: 1 with more passing trials, "
        "0 with fewer); p = 1"
    )
    text = render_comparison(c, "text")
    assert "Newly fixed (9)" in text and "Newly broken (7)" in text


def test_the_text_sentence_breaks_between_clauses_only() -> None:
    base = {c.id: ["failed", "passed"] for c in CASES} | {"E1": ["failed", "failed"]}
    cand = {c.id: ["passed", "failed"] for c in CASES} | {"E1": ["passed", "passed"]}
    lines = render_comparison(compare_runs(side(CASES, base), side(CASES, cand)), "text")
    result = next(line for line in lines.splitlines() if line.startswith("Result: "))
    assert result.endswith("with fewer);")
    follows = lines.splitlines()[lines.splitlines().index(result) + 1]
    assert follows.strip() == "p = 1: not distinguishable from noise at these counts"


def test_the_text_reason_is_the_candidates_as_in_html() -> None:
    base = _all("passed") | {"E1": "failed"}
    cand = _all("passed") | {"E2": "failed"}
    c = compare_runs(side(CASES, base), side(CASES, cand))
    text = render_comparison(c, "text")
    assert "Reason (candidate)" in text
    assert c.fixed[0].candidate.reason in text
    html = render(c, "html")
    assert "Reason (candidate)" in html
    assert escape(c.fixed[0].candidate.reason).replace("&#x27;", "&#39;") in html


def test_a_clear_improvement_is_called_one() -> None:
    many = [case(f"C{i}") for i in range(20)]
    c = compare_runs(
        side(many, {x.id: "failed" for x in many}), side(many, {x.id: "passed" for x in many})
    )
    assert "the candidate is better beyond noise" in c.summary
    assert c.task_success_delta.ci is not None and c.task_success_delta.ci[0] > 0


def test_rates_and_slices_of_both_runs() -> None:
    base = _all("failed") | {"E2": "passed"}
    cand = _all("failed") | {"E2": "passed", "E4": "passed", "E1": "passed"}
    c = compare_runs(side(CASES, base), side(CASES, cand))
    assert c.baseline.task_success.numerator == 1
    assert c.candidate.task_success.numerator == 3
    assert c.baseline.task_success.ci is not None
    slices = {s.slice: s for s in c.slices}
    assert (slices["even"].fixed, slices["odd"].fixed) == (1, 1)
    assert slices["even"].delta.value == pytest.approx(0.25)


def test_refuses_when_a_case_definition_differs() -> None:
    changed = [*CASES[:-1], case("E8", "odd", rationale="edited")]
    with pytest.raises(ComparisonRefusedError) as err:
        compare_runs(side(CASES, _all("passed"), "base"), side(changed, _all("passed"), "cand"))
    message = str(err.value)
    assert "dataset version" in message
    assert "E8: case definition differs: rationale None -> 'edited'" in message
    assert "--matching-only" in message
    assert isinstance(err.value, AssayInputError)


def test_the_refusal_names_each_changed_field_and_both_values() -> None:
    changed = [
        *CASES[:-1],
        CASES[-1].model_copy(update={"expected_fact": "f-other", "question": "new?"}),
    ]
    with pytest.raises(ComparisonRefusedError) as err:
        compare_runs(side(CASES, _all("passed")), side(changed, _all("passed")))
    assert (
        "E8: case definition differs: expected_fact 'f-E8' -> 'f-other'; "
        "question 'question E8?' -> 'new?' [label, wording]"
    ) in str(err.value)


def test_full_definitions_name_fields_a_report_does_not_show() -> None:
    changed = [*CASES[:-1], case("E8", "even", accepted_facts=("f-alt",))]
    base, cand = side(CASES, _all("passed")), side(changed, _all("passed"))
    with pytest.raises(ComparisonRefusedError) as err:
        compare_runs(base, cand)
    assert "E8: case definition differs in fields the report rows do not show" in str(err.value)
    known = [
        replace(s, definitions={c.id: canonical_record(c) for c in cases})
        for s, cases in ((base, CASES), (cand, changed))
    ]
    with pytest.raises(ComparisonRefusedError) as err:
        compare_runs(*known)
    assert "E8: case definition differs: accepted_facts changed" in str(err.value)


def test_refuses_when_a_source_revision_differs_or_a_case_is_added() -> None:
    changed = [*CASES[:-1], case("E8", "odd", revision="r2"), case("E9")]
    statuses = _all("passed") | {"E9": "passed"}
    with pytest.raises(ComparisonRefusedError) as err:
        compare_runs(side(CASES, _all("passed")), side(changed, statuses))
    assert "E8: source revision differs (r1 vs r2)" in str(err.value)
    assert "E9: only in the candidate" in str(err.value)


def test_matching_only_compares_the_rest_and_accounts_for_it() -> None:
    changed = [case("E1", "odd", revision="r2"), *CASES[1:6], case("E9")]
    statuses = {c.id: "passed" for c in changed}
    c = compare_runs(side(CASES, _all("failed")), side(changed, statuses), matching_only=True)
    excluded = {e.id: e.reason for e in c.excluded}
    assert excluded == {
        "E1": "source revision differs (r1 vs r2)",
        "E7": "only in the baseline",
        "E8": "only in the baseline",
        "E9": "only in the candidate",
    }
    assert c.paired == 5
    assert c.newly_fixed == ["E2", "E3", "E4", "E5", "E6"]


def test_synthetic_cases_are_never_paired() -> None:
    cases = [*CASES, case("S1", synthetic=True)]
    statuses = _all("passed") | {"S1": "failed"}
    c = compare_runs(side(cases, statuses), side(cases, _all("passed") | {"S1": "passed"}))
    assert c.paired == 8
    assert c.newly_fixed == []
    assert [e.id for e in c.excluded] == ["S1"]


def _scored(cases: list[Case], records: list[Record], ref: str) -> RunSide:
    """A side as ``assay score`` makes it: the trials counted from the records."""
    data = Dataset(name="tiny", cases=tuple(cases))
    return RunSide.from_report(build_report(data, grade_all(data, records)), ref=ref)


def _records(
    trials: dict[str, int], facts: dict[tuple[str, int], str] | None = None
) -> list[Record]:
    given = facts or {}
    return [
        Record(case_id=cid, trial=t, outcome=Answer(fact=given.get((cid, t), f"f-{cid}")))
        for cid, most in trials.items()
        for t in range(1, most + 1)
    ]


def test_a_synthetic_cases_trials_in_one_run_only_never_refuse() -> None:
    cases = [case("R1"), case("S1", synthetic=True)]
    base = _scored(cases, _records({"R1": 2, "S1": 1}), "b.json")
    cand = _scored(cases, _records({"R1": 2, "S1": 2}, {("R1", 2): "wrong"}), "c.json")
    assert [(r.id, r.trial) for r in base.rows if r.synthetic] == [("S1", 1)]
    c = compare_runs(base, cand)
    assert c.paired == 2
    assert c.newly_broken == ["R1"]
    assert (c.baseline.trials, c.candidate.trials) == (2, 2)
    assert [(e.id, e.trial, e.reason) for e in c.excluded] == [
        ("S1", None, "synthetic case: never counted with real cases (trial 2: trial only in the "
         "candidate)")
    ]  # fmt: skip
    assert compare_runs(cand, base).paired == 2


def test_no_figure_of_a_comparison_depends_on_a_synthetic_row() -> None:
    real = [case(f"E{i}") for i in range(1, 7)]
    base_records = _records(dict.fromkeys((c.id for c in real), 1), {("E1", 1): "x"})
    cand_records = _records(dict.fromkeys((c.id for c in real), 1), {("E2", 1): "x"})
    alone = compare_runs(_scored(real, base_records, "b"), _scored(real, cand_records, "c"))
    cases = [*real, case("S1", synthetic=True)]
    with_synthetic = compare_runs(
        _scored(cases, [*base_records, *_records({"S1": 1})], "b"),
        _scored(cases, [*cand_records, *_records({"S1": 3}, {("S1", 1): "x"})], "c"),
    )
    assert with_synthetic.mcnemar == alone.mcnemar
    assert with_synthetic.mcnemar.unit == "case-trials"
    assert with_synthetic.task_success_delta == alone.task_success_delta
    for ours, theirs in (
        (with_synthetic.baseline, alone.baseline),
        (with_synthetic.candidate, alone.candidate),
    ):
        assert (ours.trials, ours.task_success) == (theirs.trials, theirs.task_success)
    assert with_synthetic.slices == alone.slices
    assert [e.id for e in with_synthetic.excluded] == ["S1"]


def test_a_synthetic_case_only_in_one_dataset_never_refuses() -> None:
    added = [*CASES, case("S1", synthetic=True)]
    c = compare_runs(side(CASES, _all("passed")), side(added, _all("passed") | {"S1": "failed"}))
    assert c.paired == 8
    assert [(e.id, e.reason) for e in c.excluded] == [
        ("S1", "synthetic case: never counted with real cases (only in the candidate)")
    ]


def test_a_case_marked_synthetic_in_one_run_only_is_a_changed_definition() -> None:
    marked = [CASES[0].model_copy(update={"synthetic": True}), *CASES[1:]]
    with pytest.raises(ComparisonRefusedError, match="E1: case definition differs"):
        compare_runs(side(CASES, _all("passed")), side(marked, _all("passed")))


def test_configuration_diff_names_what_changed() -> None:
    base = side(CASES, _all("passed"), metadata={"model": "m-1", "prompt_version": "v1"})
    cand = side(CASES, _all("passed"), metadata={"model": "m-2", "prompt_version": "v1"})
    c = compare_runs(base, cand)
    assert [(d.key, d.baseline, d.candidate) for d in c.config_diff] == [("model", "m-1", "m-2")]


def test_trials_are_paired_by_case_and_trial_and_tested_per_case() -> None:
    base = {c.id: ["failed", "failed", "passed"] for c in CASES}
    cand = {c.id: ["passed", "passed", "passed"] for c in CASES}
    c = compare_runs(side(CASES, base), side(CASES, cand))
    assert c.paired == 24
    assert len(c.fixed) == 16
    assert c.newly_fixed == [x.id for x in CASES]
    assert c.mcnemar.unit == "cases"
    assert (c.mcnemar.fixed, c.mcnemar.broken) == (8, 0)
    assert c.task_success_delta.value == pytest.approx(2 / 3)


def test_different_trial_counts_are_refused_unless_matching_only() -> None:
    base = {c.id: ["passed", "passed"] for c in CASES}
    with pytest.raises(ComparisonRefusedError, match="trial 2: trial only in the baseline"):
        compare_runs(side(CASES, base), side(CASES, _all("passed")))
    c = compare_runs(side(CASES, base), side(CASES, _all("passed")), matching_only=True)
    assert c.paired == 8
    assert len(c.excluded) == 8


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_every_format_names_the_changes(fmt: str) -> None:
    base = _all("failed") | {"E2": "passed"}
    cand = _all("failed") | {"E1": "passed", "E3": "error"}
    out = render_comparison(compare_runs(side(CASES, base), side(CASES, cand)), fmt)
    for needle in ("E1", "E2", "E3"):
        assert needle in out
    if fmt == "json":
        assert '"from": "failed"' in out


def test_confidence_and_interval_method_apply_everywhere() -> None:
    base = _all("failed") | {"E1": "passed"}
    cand = _all("passed") | {"E2": "failed"}
    default = compare_runs(side(CASES, base), side(CASES, cand))
    c = compare_runs(side(CASES, base), side(CASES, cand), interval=IntervalSetting(0.9, "wilson"))
    assert c.baseline.task_success.method == "wilson"
    assert c.baseline.task_success.confidence == 0.9
    assert c.task_success_delta.confidence == 0.9
    assert c.slices[0].baseline.method == "wilson"
    d90, d95 = c.task_success_delta.ci, default.task_success_delta.ci
    assert d90 is not None and d95 is not None
    assert d90[1] - d90[0] < d95[1] - d95[0]


def test_the_p_value_is_never_rounded_across_the_level() -> None:
    from assay.compare import p_text

    assert p_text(0.0703125, 0.05) == "0.0703"
    assert p_text(0.04996, 0.05) == "0.04996"  # '0.05' would read as not below 0.05
    assert p_text(0.05004, 0.05) == "0.05"
    assert p_text(1.0, 0.05) == "1"
    # the level as the commands give it, 1 - confidence: 0.05000000000000004
    assert p_text(0.04996, 1 - 0.95) == "0.04996"
