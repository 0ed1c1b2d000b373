"""Simulated coverage of the case-clustered interval, for every trial policy.

Each case has its own success probability drawn from a beta distribution with mean ``mu``
and intra-class correlation ``icc`` (ICC = 1 / (a + b + 1)); its K trials are Bernoulli
draws at that probability. The true task success under a policy is the expected per-case
score, computed exactly from the beta-binomial distribution. For every setting the
simulation counts how often assay's interval (``policy_rate``, the code the reports use)
contains the truth, and how often its width is below the naive interval's (the K·N
case-trials treated as independent).

    .venv/bin/python bench/coverage.py [--reps 2000] [--write bench/RESULTS.md]

``bench/run_all.py`` (``make bench``) runs it too and writes the same section.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

from assay.metrics import TrialPolicy, clopper_pearson, clustered_rate
from assay.metrics._consistency import CaseConsistency, policy_rate

GOAL = 0.94
CASES = (3, 5, 10, 30)
TRIALS = (2, 5, 10)
ICCS = (0.0, 0.3, 0.5, 0.7)
MEANS = (0.1, 0.5, 0.9)
BEGIN = "<!-- coverage: begin -->"
END = "<!-- coverage: end -->"


def policies(k: int) -> list[TrialPolicy]:
    """Every policy at K trials: mean, majority, pass^k and pass@k for k = 2, K/2 + 1 and K
    (pass@3 of 5 and pass@6 of 10 among them)."""
    out = [TrialPolicy("mean"), TrialPolicy("majority")]
    for j in sorted({2, k // 2 + 1, k}):
        if j <= k:
            out += [TrialPolicy("pass^k", j), TrialPolicy("pass@k", j)]
    return out


def _pmf(k: int, mu: float, icc: float) -> np.ndarray:
    """P(c of K trials pass) for one case: beta-binomial, or binomial at ICC 0."""
    if icc == 0:
        return np.asarray(stats.binom.pmf(range(k + 1), k, mu))
    total = 1 / icc - 1
    return np.asarray(stats.betabinom.pmf(range(k + 1), k, mu * total, (1 - mu) * total))


def truth(policy: TrialPolicy, k: int, mu: float, icc: float) -> float:
    """The true task success under ``policy``: the expected per-case score."""
    pmf = _pmf(k, mu, icc)
    return float(sum(pmf[c] * policy.case_score(k, c) for c in range(k + 1)))


@dataclass(frozen=True)
class Setting:
    cases: int
    trials: int
    icc: float
    mu: float
    policy: str


@dataclass(frozen=True)
class Row:
    """One setting's measures; ``narrower`` and the naive figures are for ``mean`` and the
    per-trial rate only (the naive interval treats the K·N case-trials as independent)."""

    setting: Setting
    coverage: float
    narrower: float
    mean_width: float
    naive_coverage: float | None = None
    naive_width: float | None = None


def _draws(
    rng: np.random.Generator, n: int, k: int, icc: float, mu: float, reps: int
) -> np.ndarray:
    """Passing trials per case: an array of shape (reps, n)."""
    if icc == 0:
        p = np.full((reps, n), mu)
    else:
        total = 1 / icc - 1
        p = rng.beta(mu * total, (1 - mu) * total, size=(reps, n))
    return rng.binomial(k, p)


def _consistency(row: np.ndarray, k: int, policy: TrialPolicy) -> list[CaseConsistency]:
    return [
        CaseConsistency(
            id=str(i), slice="s", passed=int(c), trials=k, score=policy.case_score(k, int(c))
        )
        for i, c in enumerate(row)
    ]


def simulate(
    n: int, k: int, icc: float, mu: float, reps: int, rng: np.random.Generator
) -> Iterator[Row]:
    """Coverage of every policy's interval, and of the per-trial rate's, in one setting."""
    # The intervals depend on the cases' pass counts only, not on their order: replications
    # with the same counts (frequent with few cases) are computed once.
    passed = np.sort(_draws(rng, n, k, icc, mu, reps), axis=1)
    keys = [tuple(int(c) for c in row) for row in passed]
    naive = [clopper_pearson(sum(key), n * k) for key in keys]
    per_trial_of: dict[tuple[int, ...], tuple[float, float]] = {}
    for key in set(keys):
        est = clustered_rate(list(key), [k] * n)
        assert est is not None
        per_trial_of[key] = est.ci
    yield _row(Setting(n, k, icc, mu, "per-trial"), [per_trial_of[x] for x in keys], mu, naive)
    for policy in policies(k):
        resolved = policy.resolved(k)
        interval_of: dict[tuple[int, ...], tuple[float, float]] = {}
        for key in set(keys):
            rate = policy_rate(_consistency(np.array(key), k, resolved), resolved, k)
            assert rate.ci is not None
            interval_of[key] = rate.ci
        cis = [interval_of[x] for x in keys]
        measured = _row(
            Setting(n, k, icc, mu, str(resolved)), cis, truth(resolved, k, mu, icc), naive
        )
        if resolved.name != "mean":  # the naive K·N interval is about the mean only
            measured = Row(measured.setting, measured.coverage, 0.0, measured.mean_width)
        yield measured


def _row(
    setting: Setting,
    cis: Sequence[tuple[float, float]],
    target: float,
    naive: Sequence[tuple[float, float]],
) -> Row:
    reps = len(cis)
    hits = sum(lo <= target <= hi for lo, hi in cis)
    narrower = sum(
        (hi - lo) < (n_hi - n_lo) - 1e-12 for (lo, hi), (n_lo, n_hi) in zip(cis, naive, strict=True)
    )
    naive_hits = sum(lo <= target <= hi for lo, hi in naive)
    return Row(
        setting,
        hits / reps,
        narrower / reps,
        sum(hi - lo for lo, hi in cis) / reps,
        naive_hits / reps,
        sum(hi - lo for lo, hi in naive) / reps,
    )


def measure(reps: int, seed: int = 20261201) -> list[Row]:
    """Every setting of the grid, ``reps`` replications each."""
    rng = np.random.default_rng(seed)
    rows: list[Row] = []
    for n, k, icc, mu in itertools.product(CASES, TRIALS, ICCS, MEANS):
        rows.extend(simulate(n, k, icc, mu, reps, rng))
    return rows


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _policy_key(row: Row) -> str:
    """The policy's name with K for k = K: 'pass^K' rather than 'pass^5'."""
    name, k = row.setting.policy, row.setting.trials
    if name[:5] not in ("pass^", "pass@") or name[5:] == "2":
        return name
    return name[:5] + ("K" if name[5:] == str(k) else "(K/2+1)")


def section(rows: Sequence[Row], reps: int, seconds: float, commit: str) -> str:
    """The Markdown section of ``RESULTS.md``: the goals, then coverage per policy and N,
    per ICC and K, and what the clustering costs in width."""
    worst = min(rows, key=lambda r: r.coverage)
    below = [r for r in rows if r.coverage < GOAL]
    narrower = max(r.narrower for r in rows)
    naive = [r.naive_coverage for r in rows if r.naive_coverage is not None]
    by_policy: dict[str, list[Row]] = {}
    for r in rows:
        by_policy.setdefault(_policy_key(r), []).append(r)
    w = worst.setting
    lines = [
        BEGIN,
        "## Coverage of the case-clustered interval",
        "",
        f"Written by `python bench/coverage.py --write bench/RESULTS.md` at commit {commit} "
        f"in {seconds:.0f} s: {reps} replications per setting, nominal level 95% "
        "(Clopper–Pearson at the effective counts). Cases draw their success probability "
        "from a beta distribution with the given mean and intra-class correlation (ICC); "
        "trials are Bernoulli at it. The truth is the expected per-case score under the "
        "policy (beta-binomial, exact). Grid: N cases in "
        f"{', '.join(map(str, CASES))}; K trials in {', '.join(map(str, TRIALS))}; ICC in "
        f"{', '.join(f'{x:g}' for x in ICCS)}; mean success in "
        f"{', '.join(f'{x:g}' for x in MEANS)}; the per-trial rate (`clustered_rate`, as "
        "task success over case-trials, coverage and accuracy use it) and the policies "
        f"mean, majority, pass^k and pass@k for k = 2, K/2 + 1 and K (`policy_rate`): {len(rows)} "
        "settings. With "
        f"{reps} replications a coverage of 95% is measured to ±"
        f"{1.96 * math.sqrt(0.95 * 0.05 / reps) * 100:.1f} points.",
        "",
        "| goal | target | measured | verdict |",
        "|---|---|---|---|",
        f"| lowest coverage over every setting | ≥ {GOAL:.0%} | {_pct(worst.coverage)} "
        f"(N={w.cases}, K={w.trials}, ICC {w.icc:g}, mean {w.mu:g}, {w.policy}) | "
        f"{'met' if not below else f'**NOT met** in {len(below)} settings'} |",
        "| replications where the per-trial or mean interval is narrower than the naive "
        f"K·N one | 0% | {_pct(narrower)} (worst setting) | "
        f"{'met' if narrower == 0 else '**NOT met**'} |",
        "",
        "The naive interval over K·N case-trials treated as independent covers as little "
        f"as {_pct(min(naive))} of the same settings.",
        "",
        "Lowest coverage per policy and number of cases (over K, ICC and mean success):",
        "",
        "| policy | " + " | ".join(f"N={n}" for n in CASES) + " |",
        "|---|" + "---:|" * len(CASES),
    ]
    for key, items in by_policy.items():
        cells = [_pct(min(r.coverage for r in items if r.setting.cases == n)) for n in CASES]
        lines.append(f"| {key} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Lowest coverage per ICC and number of trials (over N, mean success and policy):",
        "",
        "| ICC | " + " | ".join(f"K={k}" for k in TRIALS) + " |",
        "|---|" + "---:|" * len(TRIALS),
    ]
    for icc in ICCS:
        cells = [
            _pct(min(r.coverage for r in rows if r.setting.icc == icc and r.setting.trials == k))
            for k in TRIALS
        ]
        lines.append(f"| {icc:g} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "What the clustering costs: mean width of the per-trial interval over the mean "
        "width of the naive K·N interval, at mean success 0.5 (1.00 = no wider):",
        "",
        "| N, ICC | " + " | ".join(f"K={k}" for k in TRIALS) + " |",
        "|---|" + "---:|" * len(TRIALS),
    ]
    for n in CASES:
        for icc in ICCS:
            cells = []
            for k in TRIALS:
                (r,) = [r for r in rows if r.setting == Setting(n, k, icc, 0.5, "per-trial")]
                assert r.naive_width is not None
                cells.append(f"{r.mean_width / r.naive_width:.2f}")
            lines.append(f"| N={n}, ICC {icc:g} | " + " | ".join(cells) + " |")
    lines.append(END)
    return "\n".join(lines) + "\n"


def write(path: Path, text: str) -> None:
    """Put ``text`` in ``path`` between the coverage markers (appended when absent)."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if BEGIN in old and END in old:
        head, _, rest = old.partition(BEGIN)
        _, _, tail = rest.partition(END + "\n")
        path.write_text(head + text + tail, encoding="utf-8")
    else:
        path.write_text(old.rstrip("\n") + "\n\n" + text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Run the simulation, print the section, and write it when asked."""
    import subprocess

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--write", type=Path, default=None)
    args = parser.parse_args(argv)
    began = time.time()
    rows = measure(args.reps)
    commit = (
        subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
        or "unknown"
    )
    text = section(rows, args.reps, time.time() - began, commit)
    sys.stdout.write(text)
    if args.write is not None:
        write(args.write, text)
    return 0 if min(r.coverage for r in rows) >= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
