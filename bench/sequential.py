"""Sequential gates (``assay run --until-decided``) by simulation, at full scale.

1. Error at the threshold: a population of 1,000 cases whose rate is exactly the
   threshold, drawn in a random order and monitored after every case; any verdict is
   wrong. At least 10,000 simulated runs per setting; the goal is at most alpha (5%).
   The same for the paired rule (``--not-worse-than``): a run exactly as good as its
   baseline, with 20% of the cases discordant.
2. Calls saved: populations of 1,000 cases 0.05, 0.10, 0.15 and 0.20 away from the
   threshold (above and below); the fraction of cases run before the verdict (median,
   90th percentile). Goal: a median under 40% at 0.15 away.
3. A real run against the mock model server (``bench/mock_openai.py``): the requests it
   answered, for a sequential run and for the fixed run of the same suite.

The simulations run a vectorized copy of ``assay.metrics._sequential.SequentialTest``
(across runs, with numpy); the copy is first checked against the class itself, run by run,
so the figures are the class's.

    .venv/bin/python bench/sequential.py [--runs 10000] [--write bench/RESULTS.md]

``bench/run_all.py --sequential`` runs it too and writes the same section.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np
from _mockproc import mock_server
from _sections import write_section
from scipy import stats

from assay.metrics._sequential import SequentialTest

NAME = "sequential"
CASES = 1000
ALPHA = 0.05
C = 0.5  # the bet cap of SequentialTest
EXACT = 1e-12  # its tolerance for a sum off the threshold by rounding alone
ROOT = Path(__file__).resolve().parents[1]


def decide(scores: np.ndarray, threshold: float, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """For each row of ``scores`` (runs × cases, in the order drawn), the side decided
    (+1 above, -1 below, 0 undecided) and the cases drawn when it was (0 when undecided):
    ``SequentialTest`` applied to every run at once."""
    runs, n = scores.shape
    side = np.zeros(runs, dtype=np.int8)
    at = np.zeros(runs, dtype=np.int64)
    total = np.zeros(runs)
    squares = np.full(runs, 0.25)
    mean_hat = np.full(runs, 0.5)
    log_up = np.zeros(runs)
    log_down = np.zeros(runs)
    bar = math.log(2 / alpha)
    for t in range(1, n + 1):
        open_ = side == 0
        if not open_.any():
            break
        x = scores[:, t - 1]
        centre = (n * threshold - total) / (n - t + 1)
        active = (centre > 0) & (centre < 1)
        safe = np.where(active, centre, 0.5)
        bet = np.sqrt(2 * math.log(2 / alpha) / ((squares / t) * t * math.log(1 + t)))
        up = np.minimum(bet, C / safe)
        down = np.minimum(bet, C / (1 - safe))
        log_up += np.where(active, np.log1p(up * (x - safe)), 0.0)
        log_down += np.where(active, np.log1p(-down * (x - safe)), 0.0)
        total += x
        squares += (x - mean_hat) ** 2
        mean_hat = (0.5 + total) / (t + 1)
        low = total / n
        high = (total + n - t) / n
        certain_up, certain_down = low > threshold + EXACT, high < threshold - EXACT
        above = open_ & (certain_up | (~certain_down & (log_up >= bar)))
        below = open_ & ~above & (certain_down | (log_down >= bar))
        side[above], side[below] = 1, -1
        at[above | below] = t
    return side, at


def _reference(scores: np.ndarray, threshold: float, alpha: float) -> tuple[int, int]:
    test = SequentialTest(threshold, scores.size, alpha)
    for x in scores:
        test.add(float(x))
        if test.side is not None:
            break
    return {"above": 1, "below": -1, None: 0}[test.side], test.decided_at or 0


def check_against_the_class(rng: np.random.Generator, runs: int = 300) -> int:
    """Run ``decide`` and ``SequentialTest`` on the same draws; the runs that differ."""
    differ = 0
    for rate, trials in ((0.7, 1), (0.75, 1), (0.62, 3), (0.7, 3)):
        population = _population(rate, trials, CASES)
        orders = np.stack([rng.permutation(population) for _ in range(runs // 4)])
        side, at = decide(orders, 0.7, ALPHA)
        for i in range(orders.shape[0]):
            if (int(side[i]), int(at[i])) != _reference(orders[i], 0.7, ALPHA):
                differ += 1
    return differ


def _population(rate: float, trials: int, n: int) -> np.ndarray:
    """``n`` case scores whose mean is exactly ``rate`` (to 1/(trials·n)): each case the
    mean of ``trials`` trials. With several trials the cases differ (binomial passing
    trials, seeded), then trials are added or taken at random until the total is exact."""
    target = round(rate * trials * n)
    if trials == 1:
        return np.array([1.0] * target + [0.0] * (n - target))
    fixed = np.random.default_rng(7)
    passes = fixed.binomial(trials, rate, n)
    while passes.sum() != target:
        i = fixed.integers(n)
        if passes.sum() < target and passes[i] < trials:
            passes[i] += 1
        elif passes.sum() > target and passes[i] > 0:
            passes[i] -= 1
    return passes / trials


def at_threshold(rng: np.random.Generator, runs: int) -> list[tuple[str, int, int, float, float]]:
    """Per setting: label, runs, wrong verdicts, their rate and its 95% upper bound."""
    rows = []
    settings: list[tuple[float, int | str]] = [(0.5, 1), (0.7, 1), (0.9, 1), (0.7, 3)]
    for threshold, trials in [*settings, (0.5, "paired")]:
        if trials == "paired":
            # a run exactly as good as its baseline: 10% of cases only it passes, 10% only
            # the baseline passes, the rest agree; a case scores (A - B + 1) / 2
            population = np.array([1.0] * 100 + [0.0] * 100 + [0.5] * 800)
        else:
            population = _population(threshold, int(trials), CASES)
        assert abs(population.mean() - threshold) < 1e-12
        wrong = 0
        for start in range(0, runs, 2000):
            size = min(2000, runs - start)
            orders = np.stack([rng.permutation(population) for _ in range(size)])
            side, _ = decide(orders, threshold, ALPHA)
            wrong += int(np.count_nonzero(side))
        upper = float(stats.beta.ppf(0.95, wrong + 1, runs - wrong)) if wrong < runs else 1.0
        if trials == "paired":
            label = "not worse than a baseline as good (20% of cases discordant)"
        else:
            label = f"{threshold:g}" + (f", case = mean of {trials} trials" if trials != 1 else "")
        rows.append((label, runs, wrong, wrong / runs, upper))
    return rows


def savings(rng: np.random.Generator, runs: int) -> list[tuple[float, float, float, float, float]]:
    """Per true rate (threshold 0.7): gap, rate, median and p90 fraction run, wrong share."""
    threshold = 0.7
    rows = []
    for gap in (-0.20, -0.15, -0.10, -0.05, 0.05, 0.10, 0.15, 0.20):
        rate = threshold + gap
        population = _population(rate, 1, CASES)
        orders = np.stack([rng.permutation(population) for _ in range(runs)])
        side, at = decide(orders, threshold, ALPHA)
        run = np.where(side == 0, CASES, at) / CASES
        right = 1 if gap > 0 else -1
        wrong = float(np.mean(side == -right))
        rows.append((gap, rate, float(np.median(run)), float(np.quantile(run, 0.9)), wrong))
    return rows


def _served(base: str) -> int:
    with urllib.request.urlopen(base.removesuffix("/v1") + "/stats", timeout=10) as reply:
        return int(json.load(reply)["served"])


def against_the_mock(rate: float = 0.85, threshold: float = 0.7) -> dict[str, object]:
    """A sequential and a fixed ``assay run`` of 1,000 cases (``rate`` of them answerable)
    against the mock server: the requests it answered for each."""
    env = {**os.environ, "ASSAY_BENCH_KEY": "k", "PYTHONPATH": str(ROOT / "src")}
    out: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as folder, mock_server("--latency-ms", "20") as base:
        where = Path(folder)
        rows = [
            {
                "id": f"case-{i:04d}",
                "slice": "s",
                "question": f"Question {i} [fact:{'ok' if (i * 37) % 100 < rate * 100 else 'no'}]",
                "expected_behavior": "answer",
                "expected_fact": "ok",
            }
            for i in range(CASES)
        ]
        (where / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        (where / "suite.yaml").write_text(
            f"dataset: cases.jsonl\ntarget:\n  type: openai\n  base_url: {base}\n  model: m\n"
            f"  api_key_env: ASSAY_BENCH_KEY\nconcurrency: 8\ntrace: false\n"
            f"gates:\n  - task_success>={threshold}\n"
        )
        for label, flags in (("sequential", ["--until-decided", "--seed", "1"]), ("fixed", [])):
            before = _served(base)
            began = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "assay", "run", "suite.yaml", "-f", "json",
                 "--store", f"sqlite:///{where / (label + '.db')}", *flags],
                cwd=where, env=env, capture_output=True, text=True, timeout=600,
            )  # fmt: skip
            took = time.perf_counter() - began
            report = json.loads(done.stdout)
            section = report.get("sequential") or {}
            out[label] = {
                "exit": done.returncode,
                "requests": _served(base) - before,
                "drawn": section.get("drawn", report["total"]),
                "decided_at": section.get("decided_at"),
                "verdict": section.get("verdict"),
                "task_success": report["task_success"]["value"],
                "seconds": took,
            }
    return out


def section(runs: int, checked: int, limit: list, saved: list, mock: dict, took: float) -> str:
    lines = [
        "## Sequential gates (`assay run --until-decided`)",
        "",
        f"Measured by `bench/sequential.py --runs {runs}` in {took:.0f} s: the betting confidence "
        "sequence of Waudby-Smith & Ramdas (2024) without replacement, alpha = 0.05, 1,000 "
        "cases, monitored after every case. The simulation is a vectorized copy of "
        f"`SequentialTest`, checked against it run by run first: {checked} of 300 runs "
        "differ.",
        "",
        "**Error at the threshold** (the rate exactly at the threshold; any verdict is wrong). "
        "Goal: at most 5%.",
        "",
        "| threshold | runs | wrong verdicts | share | 95% upper bound | goal |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for label, n, wrong, share, upper in limit:
        mark = "met" if share <= ALPHA else "MISSED"
        lines.append(f"| {label} | {n:,} | {wrong:,} | {share:.2%} | {upper:.2%} | {mark} |")
    lines += [
        "",
        "**Cases run before the verdict** (threshold 0.7; 1,000 cases). Goal: a median under "
        "40% at 0.15 away.",
        "",
        "| true rate | away | median fraction run | 90th percentile | wrong verdicts |",
        "|---:|---:|---:|---:|---:|",
    ]
    for gap, rate, median, p90, wrong in saved:
        goal = ""
        if abs(abs(gap) - 0.15) < 1e-9:
            goal = " (goal met)" if median < 0.4 else " (goal MISSED)"
        lines.append(f"| {rate:.2f} | {gap:+.2f} | {median:.1%}{goal} | {p90:.1%} | {wrong:.2%} |")
    lines += [
        "",
        "**Against the mock model server** (`bench/mock_openai.py`, 20 ms a reply, "
        "concurrency 8; 1,000 cases, 85% answerable; gate `task_success>=0.7`): the requests "
        "the server answered.",
        "",
        "| run | requests | cases drawn | decided after | verdict | task success | seconds "
        "| exit |",
        "|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    for label in ("sequential", "fixed"):
        r = mock[label]
        lines.append(
            f"| {label} | {r['requests']:,} | {r['drawn']:,} | {r['decided_at'] or '—'} | "
            f"{r['verdict'] or '—'} | {r['task_success']:.3f} | {r['seconds']:.1f} | "
            f"{r['exit']} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--write", type=Path, default=None)
    args = parser.parse_args(argv)
    began = time.time()
    rng = np.random.default_rng(20240607)
    checked = check_against_the_class(rng)
    limit = at_threshold(rng, args.runs)
    saved = savings(rng, args.runs)
    mock = against_the_mock()
    text = section(args.runs, checked, limit, saved, mock, time.time() - began)
    print(text)
    if args.write is not None:
        write_section(args.write, NAME, text)


if __name__ == "__main__":
    main()
