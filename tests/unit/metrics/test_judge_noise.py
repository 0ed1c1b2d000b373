"""The judge's instability apart from the system's, as docs/statistics.md defines them."""

from __future__ import annotations

from collections.abc import Sequence

from assay.cases import Case
from assay.grading import Judgment
from assay.metrics import judge_noise


def _case(case_id: str, synthetic: bool = False) -> Case:
    return Case(
        id=case_id,
        slice="s",
        question="q",
        expected_behavior="answer",
        expected_fact="f",
        synthetic=synthetic,
    )


def _j(case_id: str, trial: int, status: str) -> Judgment:
    return Judgment.model_validate(
        {
            "case_id": case_id,
            "trial": trial,
            "status": status,
            "reason": "r",
            "grader": "judge",
            "grader_version": "1",
        }
    )


def _repeats(case_id: str, trial: int, statuses: str) -> list[Judgment]:
    names = {"P": "passed", "F": "failed", "U": "ungraded"}
    return [_j(case_id, trial, names[s]) for s in statuses]


def _noise(table: dict[tuple[str, int], str], cases: Sequence[Case], trials: int = 2) -> object:
    repeats = {key: _repeats(*key, s) for key, s in table.items() if len(s) > 1}
    verdicts = {key: _repeats(*key, s)[0] for key, s in table.items()}
    return judge_noise(cases, trials, verdicts, repeats, "first")


def test_judge_share_counts_case_trials_with_both_verdicts_system_share_cases() -> None:
    cases = [_case(c) for c in ("A", "B", "C", "D")] + [_case("S", synthetic=True)]
    noise = _noise(
        {
            ("A", 1): "PPP", ("A", 2): "PPP",  # stable, consistent
            ("B", 1): "PFP", ("B", 2): "PPF",  # the judge flips; the system does not
            ("C", 1): "PPP", ("C", 2): "FFF",  # the system differs; the judge is stable
            ("D", 1): "PUU", ("D", 2): "FFU",  # one verdict only in trial 1: not judged
            ("S", 1): "PFP", ("S", 2): "FFF",  # synthetic: never counted
        },
        cases,
    )  # fmt: skip
    assert noise.judged == 7 and noise.unstable == 2 and noise.judge_share == 2 / 7
    assert [(f.id, f.trial, f.passed, f.failed) for f in noise.flips] == [
        ("B", 1, 2, 1),
        ("B", 2, 2, 1),
    ]
    assert noise.ungraded_repeats == 3
    # D's trial 1 has no majority (1 of 3 passed): D has one trial with a majority
    assert noise.cases == 3 and noise.differing == 1 and noise.system_share == 1 / 3
    assert noise.unstable_cases == ["B"] and noise.repeats == 3


def test_a_trial_judged_once_counts_with_its_verdict_and_one_trial_has_no_system_share() -> None:
    cases = [_case("A")]
    noise = _noise({("A", 1): "PP", ("A", 2): "F"}, cases)
    assert (noise.cases, noise.differing) == (1, 1)
    alone = _noise({("A", 1): "PF"}, cases, trials=1)
    assert alone.system_share is None and alone.cases == 0
    assert alone.judge_share == 1.0
