"""Shared wording for repeated trials: the policy beside every figure, consistency, flaky."""

from __future__ import annotations

from assay.metrics import TrialRate, decimal, interval_text
from assay.render._format import fraction, pct
from assay.report import Report

Section = tuple[str, list[str], list[list[str]]]


def trial_rate(r: TrialRate) -> str:
    """'2.67/6 cases = 44.4% [13.7%, 78.8%] (pass@1 of 3 trials)'."""
    if r.value is None or r.ci is None:
        return f"n/a (no {r.denominator_name}) ({r.label})"
    return f"{fraction(r)} cases = {pct(r.value)} {interval_text(r.ci)} ({r.label})"


def per_trial_label(report: Report) -> str:
    """What the per-trial figures are, when a case ran several trials ('' for one trial)."""
    t = report.trial_summary
    if t is None:
        return ""
    return f"mean of {t.trials} trials per case; intervals {t.per_trial_interval}"


def trial_lines(report: Report) -> list[str]:
    """The policy line, task success under it, and the consistency summary."""
    t = report.trial_summary
    if t is None:
        return []
    r = t.task_success
    level = f"{r.confidence * 100:g}%"
    deff = f"; design effect {r.design_effect:.2f}" if r.design_effect is not None else ""
    counts = ", ".join(f"{k} passed: {n}" for k, n in t.passed_counts.items())
    return [
        f"Trial policy: {t.label}",
        f"Task success ({t.policy}): {trial_rate(r)}; {level} CI {r.interval}{deff}",
        f"Per-trial figures (headline rates and the slices table): {per_trial_label(report)}",
        f"Consistency (cases by trials passed): {counts}",
        "Flaky cases (some but not all recorded trials passed): " + (", ".join(t.flaky) or "none"),
    ]


def trial_sections(report: Report) -> list[Section]:
    """Per-slice task success under the policy, and per-case consistency."""
    t = report.trial_summary
    if t is None:
        return []
    slices = [[name, trial_rate(r)] for name, r in t.slices.items()]
    cases = [
        [c.id, c.slice, f"{c.passed}/{c.trials}", decimal(c.score, 3), "flaky" if c.flaky else ""]
        for c in t.consistency
    ]
    return [
        (f"Slices under {t.label}", ["Slice", "Task success"], slices),
        (
            "Per-case consistency",
            ["Case", "Slice", "Passed", f"Score ({t.policy})", ""],
            cases,
        ),
    ]


def _share(part: int, whole: int, unit: str, share: float | None) -> str:
    if share is None:
        return f"n/a (no {unit} to compare)"
    return f"{part} of {whole} {unit} ({pct(share)})"


def judge_noise_lines(report: Report) -> list[str]:
    """The judge's own instability apart from the system's, and the judge-unstable
    case-trials ([] when the judge was asked once about each answer)."""
    n = report.judge_noise
    if n is None:
        return []
    rule = "the majority of the repeats" if n.verdict == "majority" else "the first repeat's"
    lines = [
        f"Judge asked {n.repeats} times about each recorded answer; the verdict counted is {rule}",
        "Judge noise (the same answer, both verdicts across the repeats): "
        + _share(n.unstable, n.judged, "case-trials", n.judge_share),
        "System noise (a case's trials, different majority verdicts): "
        + (
            "n/a (one trial per case)"
            if n.trials < 2
            else _share(n.differing, n.cases, "cases", n.system_share)
        ),
        "Judge-unstable (the verdict flips under re-judging): "
        + (
            ", ".join(f"{f.id} #{f.trial} ({f.passed} passed, {f.failed} failed)" for f in n.flips)
            or "none"
        ),
    ]
    if n.ungraded_repeats:
        lines.append(
            f"Repeats without a verdict (a failed call, a reply refused): {n.ungraded_repeats}"
        )
    return lines
