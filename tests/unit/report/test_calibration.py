"""Calibration figures on a hand-computed example: false accepts over human-fail cases,
false rejects over human-pass cases, the confusion matrix, kappa, slices, ungraded."""

from __future__ import annotations

import pytest

from assay.render.calibration import render_calibration
from assay.report import answer_digest
from assay.report._calibration import HumanLabel, JudgedRow, build_calibration

# id: (human score, judge status, judge score, slice)
CASES = {
    "a": (2, "passed", 2, "correct"),
    "b": (2, "passed", 2, "correct"),
    "c": (2, "failed", 1, "correct"),  # false reject
    "d": (1, "passed", 2, "missing-condition"),  # false accept
    "e": (1, "failed", 1, "missing-condition"),
    "f": (0, "failed", 0, "wrong"),
    "g": (0, "failed", 1, "wrong"),  # same verdict, score differs
    "h": (0, "ungraded", None, "wrong"),  # not judged
}


def _report(**kw: object):  # type: ignore[no-untyped-def]
    labels = [
        HumanLabel(id=k, human_score=v[0], reviewer="rk", note=f"note {k}")
        for k, v in CASES.items()
    ]
    labels.append(HumanLabel(id="z", human="fail"))  # labelled, never judged
    rows = [
        JudgedRow(id=k, slice=v[3], status=v[1], reason=f"judge says {k}", score=v[2])
        for k, v in CASES.items()
    ]
    rows.append(JudgedRow(id="extra", status="passed", reason="", score=2))  # unlabelled
    return build_calibration(labels, rows, labels_file="l.jsonl", judged_from="r.json", **kw)  # type: ignore[arg-type]


def test_hand_computed_rates() -> None:
    r = _report()
    assert r.labelled == 9 and r.judged == 7 and r.unlabelled == 1
    assert sorted((u.id, u.status) for u in r.ungraded) == [("h", "ungraded"), ("z", "absent")]
    # human-fail judged cases: d, e, f, g (4); judge passes among them: d
    assert (r.false_accepts.numerator, r.false_accepts.denominator) == (1, 4)
    # human-pass judged cases: a, b, c (3); judge fails among them: c
    assert (r.false_rejects.numerator, r.false_rejects.denominator) == (1, 3)
    assert (r.agreement.numerator, r.agreement.denominator) == (5, 7)
    # exact Clopper-Pearson interval of 1/4
    assert r.false_accepts.ci == pytest.approx((0.006309463, 0.805879550), abs=1e-6)


def test_confusion_kappa_and_disagreements() -> None:
    r = _report()
    assert r.confusion == [[1, 1, 0], [0, 1, 1], [0, 1, 2]]
    assert r.scored_pairs == 7
    # linear weights by hand: observed = (1+1+2)/7 + .5*(1+1+1)/7 = 5.5/7
    # rows (2,2,3)/7, columns (1,3,3)/7: expected = (2*2.5 + 2*5 + 3*4.5)/49 = 28.5/49
    # kappa = (38.5 - 28.5) / (49 - 28.5) = 10/20.5
    assert r.kappa.value == pytest.approx(10 / 20.5)
    kinds = {d.id: d.kind for d in r.disagreements}
    assert kinds == {"c": "false reject", "d": "false accept", "g": "score differs"}
    d = next(x for x in r.disagreements if x.id == "d")
    assert d.human_note == "note d" and d.judge_reason == "judge says d"


def test_slices_and_pass_minimum() -> None:
    r = _report()
    assert (r.slices["wrong"].agreement.numerator, r.slices["wrong"].agreement.denominator) == (
        2,
        2,
    )
    assert r.slices["missing-condition"].false_accepts == 1
    lenient = _report(pass_minimum=1)  # human 1 now passes: d agrees, e becomes a false reject
    assert (lenient.false_rejects.numerator, lenient.false_rejects.denominator) == (2, 5)
    assert (lenient.false_accepts.numerator, lenient.false_accepts.denominator) == (0, 2)


def test_no_judged_cases_is_na_never_zero() -> None:
    r = build_calibration([HumanLabel(id="x", human_score=2)], [], labels_file="l", judged_from="r")
    assert r.false_accepts.value is None and r.false_rejects.value is None
    assert r.kappa.value is None
    text = render_calibration(r, "text")
    assert "n/a (no judged human-fail cases)" in text


def test_a_label_needs_exactly_one_verdict() -> None:
    with pytest.raises(ValueError, match="either human_score"):
        HumanLabel(id="x")
    with pytest.raises(ValueError, match="either human_score"):
        HumanLabel(id="x", human_score=1, human="pass")


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html"])
def test_every_format_lists_ungraded_and_disagreements(fmt: str) -> None:
    out = render_calibration(_report(), fmt)
    for needle in ("judge says d", "note d", "absent"):
        assert needle in out, (fmt, needle)
    if fmt == "json":
        for key in (
            "judged",
            "ungraded",
            "false_accepts",
            "false_rejects",
            "kappa",
            "confusion",
            "disagreements",
        ):
            assert f'"{key}"' in out
    if fmt == "html":
        assert "<script" not in out


def test_the_published_schema_is_fresh() -> None:
    import json
    from pathlib import Path

    from assay.report._calibration import calibration_schema

    path = Path(__file__).resolve().parents[3] / "docs" / "calibration.schema.json"
    published = json.loads(path.read_text(encoding="utf-8"))
    assert published == calibration_schema(), (
        "docs/calibration.schema.json is stale: run .venv/bin/python scripts/gen_schemas.py"
    )
    required = set(published["required"])
    assert {
        "judged",
        "ungraded",
        "false_accepts",
        "false_rejects",
        "kappa",
        "confusion",
    } <= required


def _gate(report, problem=None, **bounds):  # type: ignore[no-untyped-def]
    from assay.gates import calibration_gate_results
    from assay.grading.judge import CalibrationBounds

    return calibration_gate_results(report, problem, CalibrationBounds(**bounds))


def test_each_bound_is_a_gate_result_of_its_own() -> None:
    r = _report()  # false accepts 1/4 [0.6%, 80.6%], false rejects 1/3, kappa 0.488
    only = _gate(r, max_false_accept_upper=0.9)
    assert [g.rule.text for g in only] == ["judge_calibration.false_accepts.high<=0.9"]
    assert only[0].passed and only[0].actual == pytest.approx(0.805879550)
    every = _gate(r, max_false_accept_upper=0.9, max_false_reject_upper=0.5, min_kappa_lower=0.2)
    assert [g.rule.text for g in every] == [
        "judge_calibration.false_accepts.high<=0.9",
        "judge_calibration.false_rejects.high<=0.5",
        "judge_calibration.kappa.low>=0.2",
    ]
    # 1/3 has an upper bound of 90.6%; kappa's lower bound is below 0.2
    assert [g.passed for g in every] == [True, False, False]
    assert "false rejects 1/3: upper bound 90.6% is above the maximum 50.0%" in every[1].message
    assert r.kappa.interval is not None
    assert every[2].actual == pytest.approx(r.kappa.interval[0])
    assert "is below the minimum 0.2" in every[2].message


def test_a_judge_that_fails_everything_passes_false_accepts_but_not_false_rejects() -> None:
    labels = [HumanLabel(id=str(i), human_score=2 if i < 10 else 0) for i in range(40)]
    rows = [JudgedRow(id=str(i), status="failed", reason="no", score=0) for i in range(40)]
    r = build_calibration(labels, rows, labels_file="l", judged_from="r")
    fa, fr, kappa = _gate(
        r, max_false_accept_upper=0.2, max_false_reject_upper=0.2, min_kappa_lower=0.4
    )
    assert fa.passed  # 0/30 false accepts: upper bound 11.6%
    assert not fr.passed and "false rejects 10/10" in fr.message
    # every judge score is 0: no agreement beyond chance
    assert not kappa.passed and kappa.actual == pytest.approx(0)
    assert "lower bound 0.000 is below the minimum 0.4" in kappa.message
    none = build_calibration(labels[:1], [], labels_file="l", judged_from="r")
    fa, fr, kappa = _gate(
        none, max_false_accept_upper=0.2, max_false_reject_upper=0.2, min_kappa_lower=0.4
    )
    assert [g.passed for g in (fa, fr, kappa)] == [False, False, False]
    assert "no judged human-fail cases: false accepts are n/a" in fa.message
    assert "no judged human-pass cases: false rejects are n/a" in fr.message
    assert kappa.actual is None and "(n/a)" in kappa.message


def test_a_problem_fails_every_bound_and_no_report_has_no_figures() -> None:
    failed = _gate(None, "no usable calibration report x", max_false_accept_upper=0.5,
                   max_false_reject_upper=0.5, min_kappa_lower=0.1)  # fmt: skip
    assert [g.passed for g in failed] == [False, False, False]
    assert all(g.message == "judge calibration: no usable calibration report x" for g in failed)
    assert all(g.actual is None for g in failed)


def test_a_calibration_at_another_pass_minimum_does_not_vouch_for_the_judge() -> None:
    from assay.report._calibration import calibration_problem

    lenient = _report(pass_minimum=1, graders=["judge v1+abc"])
    assert calibration_problem(lenient, "judge v1+abc", pass_minimum=1) is None
    said = calibration_problem(lenient, "judge v1+abc", pass_minimum=2)
    assert said is not None and "counts a human pass at score 1" in said
    assert "calibrate again with --pass-minimum 2" in said
    # a report whose judge recorded passing at 2 while people were counted at 1
    mixed = _report(pass_minimum=1, graders=["judge v1+abc"], judge={"pass_minimum": "2"})
    said = calibration_problem(mixed, "judge v1+abc")
    assert said is not None and "its judge passed cases at score 2" in said
    other = calibration_problem(lenient, "judge v1+def", pass_minimum=1)
    assert other is not None and "not the current judge v1+def" in other


def test_a_label_of_one_trial_is_compared_with_that_trial_alone() -> None:
    rows = [
        JudgedRow(id="a", trial=1, status="passed", reason="", score=2),
        JudgedRow(id="a", trial=2, status="failed", reason="", score=0),
        JudgedRow(id="b", trial=1, status="passed", reason="", score=2),
        JudgedRow(id="b", trial=2, status="passed", reason="", score=2),
    ]
    labels = [
        HumanLabel(id="a", trial=2, human_score=0),  # trial 1 of a stays unlabelled
        HumanLabel(id="b", human_score=0),  # every trial of b
        HumanLabel(id="a", trial=3, human="pass"),  # no such trial
    ]
    r = build_calibration(labels, rows, labels_file="l.jsonl", judged_from="run")
    assert r.judged == 3 and r.unlabelled == 1
    assert [(u.id, u.trial, u.status) for u in r.ungraded] == [("a", 3, "absent")]
    # human fails a#2, b#1, b#2; the judge passes both trials of b
    assert (r.false_accepts.numerator, r.false_accepts.denominator) == (2, 3)


def test_a_label_of_another_answer_is_never_counted_against_this_one() -> None:
    here, there = answer_digest("answer", "14 days"), answer_digest("answer", "30 days")
    rows = [
        JudgedRow(id="a", status="passed", reason="", score=2, answer=here),
        JudgedRow(id="b", status="passed", reason="", score=2, answer=here),
        JudgedRow(id="c", status="passed", reason="", score=2),  # from a report with no digest
    ]
    labels = [
        HumanLabel(id="a", human="fail", answer=there),  # labelled another run's answer
        HumanLabel(id="b", human="fail", answer=here),
        HumanLabel(id="c", human="fail", answer=there),  # nothing to tell: counted
    ]
    r = build_calibration(labels, rows, labels_file="l.jsonl", judged_from="run")
    assert r.judged == 2 and (r.false_accepts.numerator, r.false_accepts.denominator) == (2, 2)
    assert [(u.id, u.status) for u in r.ungraded] == [("a", "other answer")]
    assert "another answer" in r.ungraded[0].reason
    assert answer_digest("answer", "14 days") != answer_digest("abstain", "14 days")
