"""The library's ``summarize`` on a million case-trials, as a user calls it: a dataset and
its results loaded from JSONL files (``assay.load``), then ``summarize(dataset,
results)``.

Three shapes of ``-n`` case-trials each: ``plain`` (the inputs of ``score_scale.py``: one
trial, ids in order, results in dataset order), ``trials`` (a fifth as many cases, five
trials each) and ``mixed`` (random 24-hex-digit ids, a tenth of the cases synthetic,
accepted alternative facts, answers without a fact key, wrong facts, results in random
order: harder than a concurrent run's nearly ordered writes). Each shape is measured in
a child process of its own: ``summarize`` called five times (CPU and wall seconds of
each, and whether Python's collector made a full pass during it), the memory the loaded
inputs hold, the peak while summarizing, and, side by side in the same process, the
summary made by grading every case-trial into a ``CaseResult`` and counting those
(``summarize_results(grade_all(...))``, what ``summarize`` did before), checked equal.

    .venv/bin/python bench/summarize_scale.py [-n 1000000] [--write bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _resident import reset_peak, resident_mb  # noqa: E402

GOAL_S = 2.0
CALLS = 5
SHAPES = ("plain", "trials", "mixed")


def write_shape(directory: Path, shape: str, n: int) -> tuple[Path, Path]:
    """The dataset and results files of ``shape`` with ``n`` case-trials in all."""
    if shape == "plain":
        from score_scale import write_inputs

        return write_inputs(directory, n)
    rng = random.Random(7)
    cases_path, results_path = directory / "cases.jsonl", directory / "results.jsonl"
    trials = 5 if shape == "trials" else 1
    lines: list[str] = []
    with cases_path.open("w") as out:
        for i in range(n // trials):
            case_id = f"{rng.getrandbits(96):024x}" if shape == "mixed" else f"T{i:07d}"
            abstain = rng.random() < 0.15
            case: dict[str, Any] = {
                "id": case_id,
                "slice": f"slice-{rng.randrange(9)}",
                "question": f"Question {i}?",
                "expected_behavior": "abstain" if abstain else "answer",
                "expected_fact": None if abstain else "fact_a",
            }
            if shape == "mixed":
                case["synthetic"] = rng.random() < 0.1
                case["split"] = "heldout" if rng.random() < 0.2 else "dev"
                if not abstain and rng.random() < 0.1:
                    case["accepted_facts"] = ["fact_b"]
            out.write(json.dumps(case) + "\n")
            for trial in range(1, trials + 1):
                line = _reply(rng, case_id, trial)
                if line is not None:
                    lines.append(json.dumps(line) + "\n")
    if shape == "mixed":
        rng.shuffle(lines)
    results_path.write_text("".join(lines))
    return cases_path, results_path


def _reply(rng: random.Random, case_id: str, trial: int) -> dict[str, Any] | None:
    """One result line (None: missing): right, wrong, alternative and keyless answers,
    abstentions and errors."""
    roll = rng.random()
    line: dict[str, Any] = {"id": case_id, "trial": trial}
    if roll < 0.55:
        line |= {"kind": "answer", "fact": "fact_a"}
    elif roll < 0.65:
        line |= {"kind": "answer", "fact": "fact_c"}
    elif roll < 0.70:
        line |= {"kind": "answer", "fact": "fact_b"}
    elif roll < 0.75:
        line |= {"kind": "answer", "text": "a reply without a fact key"}
    elif roll < 0.88:
        line |= {"kind": "abstain"}
    elif roll < 0.95:
        line |= {"kind": "error", "message": "timeout after 30 s"}
    else:
        return None
    return line


def child(cases: Path, results: Path, graded_too: bool = True) -> dict[str, Any]:
    """In a child process: load the inputs, then time ``summarize`` and (``graded_too``)
    the graded way."""
    from assay.grading import grade_all
    from assay.load import load_dataset, load_results
    from assay.metrics import rate, summarize_results
    from assay.report import summarize

    started = time.process_time()
    dataset = load_dataset(cases)
    loaded = load_results(results)
    load_s = time.process_time() - started
    # imports (scipy: counts above the small table of limits) are not what is measured
    summarize(dataset.cases[:1], [])
    rate(1_000, 2_000, "cases")
    inputs_mb = resident_mb("VmRSS")
    reset = reset_peak()
    calls: list[tuple[float, float]] = []
    full: list[int] = []  # Python's full collections during each call

    def count_full(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            full[-1] += 1

    gc.callbacks.append(count_full)
    for _ in range(CALLS):
        full.append(0)
        wall, cpu = time.perf_counter(), time.process_time()
        counted = summarize(dataset, loaded)
        calls.append((time.perf_counter() - wall, time.process_time() - cpu))
    gc.callbacks.remove(count_full)
    peak_mb = resident_mb("VmHWM") if reset else float("nan")
    wall, cpu = time.perf_counter(), time.process_time()
    graded = summarize_results(grade_all(dataset, loaded)) if graded_too else counted
    graded_s = (time.perf_counter() - wall, time.process_time() - cpu)
    return {
        "case_trials": counted.total + (counted.synthetic.total if counted.synthetic else 0),
        "cases": len(dataset.cases),
        "records": len(loaded.records),
        "load_cpu_s": load_s,
        "calls_cpu_s": [c[1] for c in calls],
        "calls_wall_s": [c[0] for c in calls],
        "calls_full_gc": full,
        "inputs_mb": inputs_mb,
        "peak_mb": peak_mb,
        "graded_cpu_s": graded_s[1],
        "graded_wall_s": graded_s[0],
        "equal": counted == graded,
    }


def measure(shape: str, n: int, processes: int = 1) -> dict[str, Any]:
    """``child`` for ``shape`` at ``n`` case-trials, in ``processes`` fresh processes one
    after another (the same inputs; the graded way in the first only): the calls of
    every process, in order."""
    found: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        cases, results = write_shape(Path(tmp), shape, n)
        for at in range(processes):
            command = [sys.executable, str(Path(__file__)), "--child", str(cases), str(results)]
            command += ["--calls-only"] if at else []
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            measured = json.loads(done.stdout)
            if not found:
                found = {**measured, "processes": [list(measured["calls_cpu_s"])]}
                continue
            found["processes"].append(measured["calls_cpu_s"])
            for key in ("calls_cpu_s", "calls_wall_s", "calls_full_gc"):
                found[key] += measured[key]
            found["peak_mb"] = max(found["peak_mb"], measured["peak_mb"])
    return {"shape": shape, **found}


def _commit() -> str:
    found = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=BENCH
    )
    return found.stdout.strip() or "an unknown commit"


_SHAPES = {
    "plain": "one trial, ids in order, results in dataset order",
    "trials": "a fifth as many cases, five trials each",
    "mixed": "random hex ids, 10% synthetic, accepted facts, keyless answers, shuffled",
}


def render(n: int, rows: list[dict[str, Any]], load: str, processes: int = 1) -> str:
    """The Markdown section for ``bench/RESULTS.md``."""
    lines = [
        "## The library's `summarize` on a million case-trials",
        "",
        f"`bench/summarize_scale.py -n {n} --processes {processes}` at {_commit()}: for "
        "each shape, a dataset and its results written as JSONL files, loaded by "
        f"`assay.load` in a child process, then `summarize(dataset, results)` called "
        f"{CALLS} times (its CPU seconds each; the structured grader's verdicts packed and "
        f"counted by numpy), in {processes} such processes one after the other (calls "
        "of each process separated by `;`: the same work varies from one process to the "
        "next on a shared machine) and, side by side in the first, the same summary "
        "made by grading every case-trial into a "
        "`CaseResult` and counting those (`summarize_results(grade_all(...))`, how "
        "`summarize` worked before), checked equal. Inputs: the memory the loaded dataset "
        "and results hold; peak: the process's peak resident memory while `summarize` ran "
        "(inputs included). A call marked * is one during which Python's cycle collector "
        "made a full pass over every object the process holds (the collector's own "
        "timing, not the call's: assay's core leaves it alone). "
        f"Goal: under {GOAL_S:g} s. Load average when measured: {load}.",
        "",
        "| Shape | Case-trials (cases) | `summarize` CPU, each call | CPU (median) "
        "| Wall (median) "
        "| Graded way CPU | Ratio | Inputs | Peak while summarizing | Equal |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        median = statistics.median(r["calls_cpu_s"])
        marks = iter(r.get("calls_full_gc") or [0] * len(r["calls_cpu_s"]))
        each = "; ".join(
            ", ".join(f"{c:.2f} s{'*' if next(marks) else ''}" for c in calls)
            for calls in r.get("processes") or [r["calls_cpu_s"]]
        )
        lines.append(
            f"| {r['shape']}: {_SHAPES[r['shape']]} | {r['case_trials']:,} ({r['cases']:,}) "
            f"| {each} | {median:.2f} s | {statistics.median(r['calls_wall_s']):.2f} s "
            f"| {r['graded_cpu_s']:.1f} s | {r['graded_cpu_s'] / median:.1f}× "
            f"| {r['inputs_mb']:,.0f} MB | {r['peak_mb']:,.0f} MB "
            f"| {'yes' if r['equal'] else 'NO'} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Measure each shape, print the section and write it into ``--write``."""
    from _sections import write_section

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=1_000_000, help="case-trials per shape")
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=SHAPES)
    parser.add_argument("--write", type=Path, help="results file to update (a section)")
    parser.add_argument(
        "--processes", type=int, default=2, help="fresh processes per shape (default 2)"
    )
    parser.add_argument("--child", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--calls-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        cases, results = args.child
        measured = child(cases, results, graded_too=not args.calls_only)
        sys.stdout.write(json.dumps(measured) + "\n")
        return 0
    rows = []
    for shape in args.shapes:
        rows.append(measure(shape, args.n, args.processes))
        sys.stderr.write(f"{shape}: {rows[-1]}\n")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    section = render(args.n, rows, load, args.processes)
    sys.stdout.write(section)
    if args.write:
        write_section(args.write, "summarize_scale", section)
    return 0 if all(r["equal"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
