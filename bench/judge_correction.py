"""Simulated coverage of task success corrected for the judge's measured errors.

For every setting of the grid (the judge's false-accept and false-reject rates, 0–30%
each, asymmetric included; a labelled calibration of 30–500 cases, a random half of them
human-pass; a run of 50–5,000 case-trials; the true pass rate) the simulation draws the
calibration's counts and the run's judged passes, and counts how often the interval assay
reports (``corrected_rate``: Rogan–Gladen with Lang & Reiczigel's interval, the code the
reports use) holds the true rate. Draws the correction refuses (a calibration side under
10 labels, a judge no better than chance) are left out and counted apart. Beside it, the
naive interval: the Rogan–Gladen estimate with the run's exact interval mapped through the
estimated error rates, as if the calibration had no sampling error.

A second grid has 3 trials per case, correlated within a case: each case's true pass
probability is drawn from a beta distribution of mean the true rate and intraclass
correlation 0.1–0.6, each trial's true outcome from it, the judge's verdict from that.
There the interval assay reports counts the run's case-trials as the clustered interval
of the raw rate does (``case_design_effect``, the code the reports use); beside it, the
interval that takes the case-trials as independent.

    .venv/bin/python bench/judge_correction.py [--reps 2000] [--write bench/RESULTS.md]

``bench/run_all.py --judge-correction`` runs it too and writes the same section.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from _sections import write_section

from assay.metrics import case_design_effect, clopper_pearson
from assay.metrics._correction import corrected_rate

GOAL = 0.94
ERRORS = (0.0, 0.05, 0.15, 0.30)
LABELS = (30, 100, 500)
RUNS = (50, 500, 5000)
TRUTHS = (0.3, 0.6, 0.85)
SECTION = "judge-correction"
TRIALS = 3
ICCS = (0.1, 0.3, 0.6)
CASES = (50, 200, 1000)
TRIAL_ERRORS = ((0.05, 0.05), (0.15, 0.30), (0.30, 0.15))
TRIAL_LABELS = (100, 1000)


@dataclass(frozen=True)
class Row:
    """One setting's simulated coverage."""

    false_accept: float
    false_reject: float
    labels: int
    run: int
    truth: float
    coverage: float
    naive: float
    refused: float


def simulate(
    false_accept: float,
    false_reject: float,
    labels: int,
    run: int,
    truth: float,
    reps: int,
    rng: np.random.Generator,
) -> Row:
    """Coverage of assay's interval and of the naive one at one setting."""
    observed = truth * (1 - false_reject) + (1 - truth) * false_accept
    human_pass = rng.binomial(labels, 0.5, reps)
    human_fail = labels - human_pass
    rejects = rng.binomial(human_pass, false_reject)
    accepts = rng.binomial(human_fail, false_accept)
    passed = rng.binomial(run, observed, reps)
    covered = naive_covered = counted = 0
    for k in range(reps):
        found = corrected_rate(
            int(passed[k]),
            run,
            int(human_pass[k]),
            int(rejects[k]),
            int(human_fail[k]),
            int(accepts[k]),
        )
        if found.interval is None or found.sensitivity is None or found.specificity is None:
            continue
        counted += 1
        covered += found.interval[0] <= truth <= found.interval[1]
        youden = found.sensitivity + found.specificity - 1
        low, high = clopper_pearson(int(passed[k]), run)
        mapped = sorted(
            min(1.0, max(0.0, (x + found.specificity - 1) / youden)) for x in (low, high)
        )
        naive_covered += mapped[0] <= truth <= mapped[1]
    if counted == 0:
        return Row(false_accept, false_reject, labels, run, truth, float("nan"), float("nan"), 1)
    return Row(
        false_accept,
        false_reject,
        labels,
        run,
        truth,
        covered / counted,
        naive_covered / counted,
        1 - counted / reps,
    )


@dataclass(frozen=True)
class TrialRow:
    """One setting of the trials grid: coverage clustered by case and taken as independent."""

    false_accept: float
    false_reject: float
    labels: int
    cases: int
    icc: float
    truth: float
    coverage: float
    independent: float
    design_effect: float


def simulate_trials(
    false_accept: float,
    false_reject: float,
    labels: int,
    cases: int,
    icc: float,
    truth: float,
    reps: int,
    rng: np.random.Generator,
) -> TrialRow:
    """Coverage at one setting of the trials grid (``TRIALS`` trials a case, intraclass
    correlation ``icc`` of the true outcomes, ``labels`` labels split at random)."""
    a, b = truth * (1 - icc) / icc, (1 - truth) * (1 - icc) / icc
    covered = independent = counted = 0
    effects = 0.0
    for _ in range(reps):
        p = rng.beta(a, b, cases)
        right = rng.random((cases, TRIALS)) < p[:, None]
        noise = rng.random((cases, TRIALS))
        verdict = np.where(right, noise >= false_reject, noise < false_accept)
        hits = verdict.sum(axis=1)
        human_pass = int(rng.binomial(labels, 0.5))
        human_fail = labels - human_pass
        rejects = int(rng.binomial(human_pass, false_reject))
        accepts = int(rng.binomial(human_fail, false_accept))
        effect = case_design_effect(hits, np.full(cases, TRIALS))
        counts = (int(hits.sum()), cases * TRIALS, human_pass, rejects, human_fail, accepts)
        found = corrected_rate(*counts, design_effect=effect)
        plain = corrected_rate(*counts)
        if found.interval is None or plain.interval is None:
            continue
        counted += 1
        effects += effect
        covered += found.interval[0] <= truth <= found.interval[1]
        independent += plain.interval[0] <= truth <= plain.interval[1]
    nan = float("nan")
    if counted == 0:
        return TrialRow(false_accept, false_reject, labels, cases, icc, truth, nan, nan, nan)
    return TrialRow(
        false_accept,
        false_reject,
        labels,
        cases,
        icc,
        truth,
        covered / counted,
        independent / counted,
        effects / counted,
    )


def measure_trials(reps: int, seed: int = 2) -> list[TrialRow]:
    """Every setting of the trials grid."""
    rng = np.random.default_rng(seed)
    return [
        simulate_trials(fa, fr, n_labels, n_cases, icc, truth, reps, rng)
        for (fa, fr), n_labels, n_cases, icc, truth in itertools.product(
            TRIAL_ERRORS, TRIAL_LABELS, CASES, ICCS, TRUTHS
        )
    ]


def trials_table(rows: list[TrialRow], reps: int) -> list[str]:
    """The trials grid's summary by cases and correlation, and its settings below the goal."""
    lines = [
        "",
        f"With {TRIALS} trials per case, correlated within a case (`--reps {reps}` draws per "
        "setting; false-accept/false-reject rates "
        f"{', '.join(f'{fa:.0%}/{fr:.0%}' for fa, fr in TRIAL_ERRORS)}, true pass rates "
        f"{', '.join(f'{t:.0%}' for t in TRUTHS)}): *clustered* is "
        "the interval assay reports, the run's part clustered by case with the design "
        "effect of task success's clustered interval; *independent* takes the case-trials "
        "as independent, as the correction did before.",
        "",
        "| labels | cases | intraclass correlation | settings | mean design effect "
        "| lowest coverage | mean coverage | below goal | lowest independent "
        "| mean independent |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n_labels, n_cases, icc in itertools.product(TRIAL_LABELS, CASES, ICCS):
        mine = [r for r in rows if (r.labels, r.cases, r.icc) == (n_labels, n_cases, icc)]
        shown = [r for r in mine if r.coverage == r.coverage]
        lines.append(
            f"| {n_labels} | {n_cases} | {icc:g} | {len(mine)} | "
            f"{sum(r.design_effect for r in shown) / len(shown):.2f} | "
            f"{min(r.coverage for r in shown):.1%} | "
            f"{sum(r.coverage for r in shown) / len(shown):.1%} | "
            f"{sum(1 for r in shown if r.coverage < GOAL)} | "
            f"{min(r.independent for r in shown):.1%} | "
            f"{sum(r.independent for r in shown) / len(shown):.1%} |"
        )
    short = sorted((r for r in rows if r.coverage < GOAL), key=lambda r: r.coverage)
    lines.append("")
    if short:
        lines += [
            f"Trial settings below {GOAL:.0%} ({len(short)} of {len(rows)}):",
            "",
            "| false accepts | false rejects | labels | cases | intraclass correlation "
            "| true rate | coverage | independent |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        lines += [
            f"| {r.false_accept:.0%} | {r.false_reject:.0%} | {r.labels} | {r.cases} | {r.icc:g} | "
            f"{r.truth:.0%} | {r.coverage:.1%} | {r.independent:.1%} |"
            for r in short
        ]
    else:
        lines.append(f"Every one of the {len(rows)} trial settings is at or above {GOAL:.0%}.")
    return lines


def measure(reps: int, seed: int = 1) -> list[Row]:
    """Every setting of the grid."""
    rng = np.random.default_rng(seed)
    return [
        simulate(fa, fr, n_labels, n_run, truth, reps, rng)
        for fa, fr, n_labels, n_run, truth in itertools.product(
            ERRORS, ERRORS, LABELS, RUNS, TRUTHS
        )
    ]


def section(
    rows: list[Row],
    reps: int,
    seconds: float,
    trial_rows: list[TrialRow] | None = None,
    trial_reps: int = 0,
) -> str:
    """The Markdown section: the summary by labels and run size, and every setting below
    the goal; then the trials grid's, when given."""
    lines = [
        "## Judge correction: simulated coverage",
        "",
        f"`bench/judge_correction.py --reps {reps}` ({seconds:.0f} s"
        f"{', both grids' if trial_rows else ''}): coverage of the 95% "
        "interval of task success corrected for the judge's measured errors (Rogan–Gladen, "
        "Lang & Reiczigel 2014), over false-accept and false-reject rates "
        f"{', '.join(f'{e:.0%}' for e in ERRORS)} (every pair), true pass rates "
        f"{', '.join(f'{t:.0%}' for t in TRUTHS)}; {reps} draws per setting. Goal: "
        f"≥ {GOAL:.0%} everywhere. *naive*: the run's exact interval mapped through the "
        "estimated error rates, as if the calibration were exact.",
        "",
        "| labels | run | settings | lowest coverage | mean coverage | below goal | "
        "lowest naive | refused draws |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n_labels, n_run in itertools.product(LABELS, RUNS):
        mine = [r for r in rows if r.labels == n_labels and r.run == n_run]
        shown = [r for r in mine if r.coverage == r.coverage]
        low = min(r.coverage for r in shown)
        mean = sum(r.coverage for r in shown) / len(shown)
        below = sum(1 for r in shown if r.coverage < GOAL)
        naive = min(r.naive for r in shown)
        refused = sum(r.refused for r in mine) / len(mine)
        lines.append(
            f"| {n_labels} | {n_run} | {len(mine)} | {low:.1%} | {mean:.1%} | {below} | "
            f"{naive:.1%} | {refused:.1%} |"
        )
    short = sorted((r for r in rows if r.coverage < GOAL), key=lambda r: r.coverage)
    lines.append("")
    if short:
        lines += [
            f"Settings below {GOAL:.0%} ({len(short)} of {len(rows)}):",
            "",
            "| false accepts | false rejects | labels | run | true rate | coverage |",
            "|---:|---:|---:|---:|---:|---:|",
        ]
        lines += [
            f"| {r.false_accept:.0%} | {r.false_reject:.0%} | {r.labels} | {r.run} | "
            f"{r.truth:.0%} | {r.coverage:.1%} |"
            for r in short
        ]
    else:
        lines.append(f"Every one of the {len(rows)} settings is at or above {GOAL:.0%}.")
    if trial_rows:
        lines += trials_table(trial_rows, trial_reps)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=2000, help="draws per setting")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--trial-reps", type=int, default=None, help="draws per setting of the trials grid"
    )
    parser.add_argument("--write", type=Path, help="write the section into this RESULTS.md")
    args = parser.parse_args(argv)
    started = time.time()
    rows = measure(args.reps, args.seed)
    trial_reps = args.reps if args.trial_reps is None else args.trial_reps
    trial_rows = measure_trials(trial_reps, args.seed + 1)
    text = section(rows, args.reps, time.time() - started, trial_rows, trial_reps)
    if args.write is not None:
        write_section(args.write, SECTION, text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
