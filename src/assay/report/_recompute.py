"""A report read back from a file: its figures checked against its own counts and case rows,
and its intervals recomputed at another level.

A JSON report carries everything its figures come from: the counts behind every rate and
one row per case-trial. So a report file can be checked (each value is its numerator over
its denominator, the statuses add up, each interval recomputes) and re-read at another
confidence level or interval method, instead of being trusted as written.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from assay.errors import MAX_TRIALS
from assay.grading import STATUSES
from assay.metrics import (
    CaseConsistency,
    IntervalSetting,
    Rate,
    TrialPolicy,
    TrialRate,
    clustered_by_case,
    group_by,
    policy_rate,
    rate,
)
from assay.outcomes import Trialled, trials_beyond
from assay.report._correction import unknown_bounds
from assay.report._model import SCHEMA_VERSION, CaseRow, Report

TOLERANCE = 1e-9
Units = list[tuple[str, bool]]


def _units(
    rows: Sequence[CaseRow], hit: Callable[[CaseRow], bool], unit: Callable[[CaseRow], bool]
) -> Units:
    return [(r.id, hit(r)) for r in rows if unit(r)]


def _passed(r: CaseRow) -> bool:
    return r.status == "passed"


def _answered(r: CaseRow) -> bool:
    return r.outcome == "answer"


def _always(r: CaseRow) -> bool:
    return True


def _rate_at(r: Rate, units: Units, interval: IntervalSetting) -> Rate:
    """``r``'s counts with the interval recomputed at the ``interval`` setting, clustered
    by case when a case has several units."""
    fresh = rate(
        r.numerator,
        r.denominator,
        r.denominator_name,
        numerator_name=r.numerator_name,
        interval=interval,
    )
    return clustered_by_case(fresh, units)


def _policy(report: Report) -> TrialPolicy | None:
    t = report.trial_summary
    if t is None:
        return None
    try:
        return TrialPolicy.parse(t.policy, t.trials).resolved(t.trials)
    except ValueError:
        return None


def _trial_rate_at(
    r: TrialRate,
    cases: Sequence[CaseConsistency],
    policy: TrialPolicy,
    trials: int,
    interval: IntervalSetting,
) -> TrialRate:
    fresh = policy_rate(cases, policy, trials, interval=interval)
    return fresh.model_copy(update={"denominator_name": r.denominator_name})


def at_level(report: Report, interval: IntervalSetting) -> Report:
    """``report`` with every interval recomputed from its counts and case rows at
    the ``interval`` setting (raises ``ValueError`` when its trial policy is unknown)."""
    real = [c for c in report.cases if not c.synthetic]
    fake = [c for c in report.cases if c.synthetic]
    update: dict[str, object] = {
        "task_success": _rate_at(report.task_success, _units(real, _passed, _always), interval),
        "answer_coverage": _rate_at(
            report.answer_coverage, _units(real, _answered, _always), interval
        ),
        "answered_accuracy": _rate_at(
            report.answered_accuracy, _units(real, _passed, _answered), interval
        ),
        "slices": {
            name: sl.model_copy(
                update={
                    "task_success": _rate_at(
                        sl.task_success,
                        _units([c for c in real if c.slice == name], _passed, _always),
                        interval,
                    )
                }
            )
            for name, sl in report.slices.items()
        },
    }
    if report.synthetic is not None:
        s = report.synthetic
        update["synthetic"] = s.model_copy(
            update={
                "task_success": _rate_at(s.task_success, _units(fake, _passed, _always), interval)
            }
        )
    t = report.trial_summary
    if t is not None:
        policy = _policy(report)
        if policy is None:
            raise ValueError(f"unknown trial policy {t.policy!r}")
        by_slice = group_by(t.consistency, lambda c: c.slice)
        update["trial_summary"] = t.model_copy(
            update={
                "task_success": _trial_rate_at(
                    t.task_success, t.consistency, policy, t.trials, interval
                ),
                "slices": {
                    name: _trial_rate_at(r, by_slice.get(name, []), policy, t.trials, interval)
                    for name, r in t.slices.items()
                },
            }
        )
    task_success, coverage, accuracy = (
        update[k] for k in ("task_success", "answer_coverage", "answered_accuracy")
    )
    slices = update["slices"]
    assert isinstance(task_success, Rate) and isinstance(coverage, Rate)
    assert isinstance(accuracy, Rate) and isinstance(slices, dict)
    update["unknown_bounds"] = unknown_bounds(
        task_success,
        report.statuses,
        answer_coverage=coverage,
        answered_accuracy=accuracy,
        answered_unknown=report.answered_unknown if _counts_unknown_answers(report) else None,
        slices=slices,
    )
    return report.model_copy(update=update)


def _counts_unknown_answers(report: Report) -> bool:
    """True when ``report`` says how many of its answers are unknown (a report written
    before it kept the count says it with neither the count nor coverage's bounds)."""
    b = report.unknown_bounds
    return "answered_unknown" in report.model_fields_set or (
        b is not None and b.answer_coverage is not None
    )


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=0.0, abs_tol=TOLERANCE)


def _pct(x: float | None) -> str:
    return "null" if x is None else f"{x:.6g}"


def _check_rate(name: str, r: Rate | TrialRate, fresh: Rate | TrialRate) -> list[str]:
    """Problems with one figure: value against its counts, interval against the recomputed."""
    problems = []
    if (r.confidence, r.method) != (fresh.confidence, fresh.method):
        return [
            f"{name} was written at {r.confidence:g} ({r.method}) and the report's task "
            f"success at {fresh.confidence:g} ({fresh.method}): one report has one level"
        ]
    if isinstance(r, Rate):
        counts = f"{r.numerator}/{r.denominator}"
        if not 0 <= r.numerator <= r.denominator:
            return [f"{name}: {counts} is not a rate (need 0 <= numerator <= denominator)"]
        expected = r.numerator / r.denominator if r.denominator else None
    else:
        counts = f"{r.score_sum:g}/{r.cases}"
        expected = r.score_sum / r.cases if r.cases else None
    if not _close(r.value, expected):
        problems.append(
            f"{name}.value is {_pct(r.value)} but {name} is {counts} = {_pct(expected)}"
        )
    low, high = r.ci if r.ci is not None else (None, None)
    fresh_low, fresh_high = fresh.ci if fresh.ci is not None else (None, None)
    if not (_close(low, fresh_low) and _close(high, fresh_high)):
        problems.append(
            f"{name}.ci is [{_pct(low)}, {_pct(high)}] but {counts} at "
            f"{r.confidence:g} ({r.method}) gives [{_pct(fresh_low)}, {_pct(fresh_high)}]"
        )
    return problems


def _count(name: str, written: int, actual: int, what: str) -> list[str]:
    return [] if written == actual else [f"{name} is {written} but {what} is {actual}"]


def _check_counts(report: Report) -> list[str]:
    problems: list[str] = []
    s = report.statuses
    if s.total != report.total:
        problems.append(
            f"statuses: passed {s.passed} + failed {s.failed} + error {s.error} + missing "
            f"{s.missing} + ungraded {s.ungraded} = {s.total}, but total is {report.total}"
        )
    problems += _count("success", report.success, s.passed, "statuses.passed")
    problems += _count("errors", report.errors, s.error, "statuses.error")
    problems += _count("missing", report.missing, s.missing, "statuses.missing")
    problems += _count("ungraded", report.ungraded, s.ungraded, "statuses.ungraded")
    ts, ac, aa = report.task_success, report.answer_coverage, report.answered_accuracy
    problems += _count("task_success.numerator", ts.numerator, report.success, "success")
    problems += _count("task_success.denominator", ts.denominator, report.total, "total")
    problems += _count("answer_coverage.numerator", ac.numerator, report.answered, "answered")
    problems += _count("answer_coverage.denominator", ac.denominator, report.total, "total")
    problems += _count(
        "answered_accuracy.numerator", aa.numerator, report.correct_answers, "correct_answers"
    )
    problems += _count("answered_accuracy.denominator", aa.denominator, report.answered, "answered")
    for name, sl in report.slices.items():
        where = f"slices.{name}"
        if sl.statuses.total != sl.total:
            problems.append(f"{where}.statuses add up to {sl.statuses.total}, not {sl.total}")
        problems += _count(
            f"{where}.task_success.denominator",
            sl.task_success.denominator,
            sl.total,
            f"{where}.total",
        )
        problems += _count(
            f"{where}.task_success.numerator",
            sl.task_success.numerator,
            sl.success,
            f"{where}.success",
        )
    sliced = sum(sl.total for sl in report.slices.values())
    problems += _count("total", report.total, sliced, "the sum of the slices' totals")
    real = [c for c in report.cases if not c.synthetic]
    if real:
        problems += _count("total", report.total, len(real), "the number of real case rows")
        for status in STATUSES:
            problems += _count(
                f"statuses.{status}",
                getattr(s, status),
                sum(1 for c in real if c.status == status),
                f"the number of real case rows with status {status}",
            )
        problems += _count(
            "answered",
            report.answered,
            sum(1 for c in real if _answered(c)),
            "the number of real case rows answered",
        )
    return problems


def _check_trials(report: Report) -> list[str]:
    """The per-case consistency of a trial summary against the case rows and the policy."""
    t = report.trial_summary
    policy = _policy(report)
    if t is None:
        return []
    if policy is None:
        return [f"trial_summary.policy: unknown trial policy {t.policy!r}"]
    problems: list[str] = []
    real = [c for c in report.cases if not c.synthetic]
    for c in t.consistency:
        where = f"trial_summary.consistency[{c.id}]"
        rows = [r for r in real if r.id == c.id]
        if real:
            problems += _count(f"{where}.trials", c.trials, len(rows), f"the rows of case {c.id}")
            passed = sum(1 for r in rows if _passed(r))
            problems += _count(f"{where}.passed", c.passed, passed, f"the passing rows of {c.id}")
        if not 0 <= c.passed <= c.trials or c.trials < 1:
            problems.append(f"{where}: {c.passed}/{c.trials} is not a count of trials")
            continue
        score = policy.case_score(c.trials, c.passed)
        if not _close(c.score, score):
            problems.append(
                f"{where}.score is {c.score:.6g} but {t.policy} of {c.passed}/{c.trials} is "
                f"{score:.6g}"
            )
    total = sum(c.score for c in t.consistency)
    if not math.isclose(t.task_success.score_sum, total, abs_tol=1e-6):
        problems.append(
            f"trial_summary.task_success.score_sum is {t.task_success.score_sum:g} but the "
            f"cases' scores add up to {total:g}"
        )
    problems += _count(
        "trial_summary.task_success.cases",
        t.task_success.cases,
        len(t.consistency),
        "the number of cases in trial_summary.consistency",
    )
    return problems


def row_trial_problems(rows: Sequence[Trialled]) -> list[str]:
    """The case rows of a report file whose trial is beyond what its rows can number
    (``trials_beyond``, the bound every reader of results applies), each naming its field
    (``cases[3].trial``); at most 20 messages, the last saying how many more. Empty
    when every trial is within it."""
    allowed, cases, beyond = trials_beyond(rows)
    shown = beyond if len(beyond) <= 20 else beyond[:19]
    found = [
        f"cases[{i}].trial {rows[i].trial} is beyond the {allowed:,} trials {len(rows):,} "
        f"case rows over {cases:,} cases may number (at most {MAX_TRIALS:,})"
        for i in shown
    ]
    if len(beyond) > len(shown):
        found.append(f"cases: … and {len(beyond) - len(shown)} more rows beyond it")
    return found


def report_problems(report: Report) -> list[str]:
    """Everything in ``report`` that its own counts and rows contradict, each naming the
    field: an unknown schema version, a trial number beyond what the rows can number,
    statuses that do not add up, a value that is not its numerator over its denominator,
    an interval that does not recompute. Empty when the report is consistent."""
    if report.schema_version != SCHEMA_VERSION:
        return [
            f"schema_version is {report.schema_version}; this assay reads version "
            f"{SCHEMA_VERSION} (re-score the results with this assay)"
        ]
    beyond = row_trial_problems(report.cases)
    if beyond:
        return beyond  # nothing is counted over trials that many
    problems = _check_counts(report) + _check_trials(report)
    if problems:
        return problems
    ts = report.task_success
    try:
        fresh = at_level(report, IntervalSetting(ts.confidence, ts.method))
    except ValueError as err:
        return [f"trial_summary.policy: {err}"]
    pairs: list[tuple[str, Rate | TrialRate, Rate | TrialRate]] = [
        ("task_success", ts, fresh.task_success),
        ("answer_coverage", report.answer_coverage, fresh.answer_coverage),
        ("answered_accuracy", report.answered_accuracy, fresh.answered_accuracy),
    ]
    pairs += [
        (f"slices.{name}.task_success", sl.task_success, fresh.slices[name].task_success)
        for name, sl in report.slices.items()
    ]
    if report.synthetic is not None and fresh.synthetic is not None:
        pairs.append(
            ("synthetic.task_success", report.synthetic.task_success, fresh.synthetic.task_success)
        )
    t, ft = report.trial_summary, fresh.trial_summary
    if t is not None and ft is not None:
        pairs.append(("trial_summary.task_success", t.task_success, ft.task_success))
        pairs += [
            (f"trial_summary.slices.{name}", r, ft.slices[name]) for name, r in t.slices.items()
        ]
    for name, r, f in pairs:
        problems += _check_rate(name, r, f)
    return problems
