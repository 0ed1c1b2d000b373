"""``assay score`` on a large dataset: wall time and peak memory of the whole command.

Writes a dataset of ``-n`` cases and a results file (70% right answers, 15% abstentions,
10% errors, 5% missing) to a temporary directory, runs ``python -m assay score`` on them
once per format, and reports the wall time, the CPU time and the peak resident memory of
each run against the goal (500,000 cases: under 1.5 GB and 60 s).

    .venv/bin/python bench/score_scale.py [-n 500000] [--format json text] [--write FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

GOAL_MB = 1_500
GOAL_S = 60.0


def write_inputs(directory: Path, n: int, seed: int = 1) -> tuple[Path, Path]:
    """A dataset of ``n`` cases and its results file, deterministic for ``seed``."""
    rng = random.Random(seed)
    cases, results = directory / "cases.jsonl", directory / "results.jsonl"
    with cases.open("w") as c, results.open("w") as r:
        for i in range(n):
            case_id = f"C{i:07d}"
            abstain = i % 5 == 0
            c.write(
                json.dumps(
                    {
                        "id": case_id,
                        "slice": f"slice-{i % 7}",
                        "question": f"What is the return window for order {i}?",
                        "expected_behavior": "abstain" if abstain else "answer",
                        "expected_fact": None if abstain else "return_window_30_days",
                        "rationale": "standard policy, section 2",
                    }
                )
                + "\n"
            )
            roll = rng.random()
            if roll < 0.70:
                line = {"id": case_id, "kind": "answer", "fact": "return_window_30_days"}
            elif roll < 0.85:
                line = {"id": case_id, "kind": "abstain"}
            elif roll < 0.95:
                line = {"id": case_id, "kind": "error", "message": "timeout after 30 s"}
            else:
                continue  # missing
            r.write(json.dumps(line) + "\n")
    return cases, results


def measure(cases: Path, results: Path, fmt: str, out: Path) -> dict[str, float | int]:
    """Run ``assay score`` once; its wall and CPU seconds, peak RSS (MB) and exit code."""
    command = [sys.executable, "-m", "assay", "score", str(cases), str(results), "-f", fmt]
    command += ["-o", str(out)]
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "exit": proc.returncode,
        "bytes": out.stat().st_size if out.exists() else 0,
    }


def render(n: int, rows: dict[str, dict[str, float | int]], load: str) -> str:
    """The Markdown section for ``bench/RESULTS.md``."""
    lines = [
        "## Scoring at scale",
        "",
        f"`bench/score_scale.py -n {n}`: `assay score` on {n:,} cases (JSONL dataset and "
        f"results), goal under {GOAL_MB:,} MB and "
        f"{GOAL_S:g} s. Load average when measured: {load}.",
        "",
        "| Format | Wall | CPU | Peak memory | Report size | Exit | Goal |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for fmt, r in rows.items():
        met = r["peak_mb"] < GOAL_MB and r["wall_s"] < GOAL_S and r["exit"] == 0
        verdict = "met" if met else "**NOT met**"
        lines.append(
            f"| {fmt} | {r['wall_s']:.1f} s | {r['cpu_s']:.1f} s | {r['peak_mb']:,.0f} MB "
            f"| {int(r['bytes']) / 2**20:,.0f} MB | {r['exit']} | {verdict} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Measure, print the section, and write it into ``--write``."""
    from _sections import write_section

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=500_000, help="cases")
    parser.add_argument("--format", nargs="+", default=["json", "text"])
    parser.add_argument("--write", type=Path, help="results file to update (a section)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        cases, results = write_inputs(Path(tmp), args.n)
        rows = {
            fmt: measure(cases, results, fmt, Path(tmp) / f"report.{fmt}") for fmt in args.format
        }
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    section = render(args.n, rows, load)
    sys.stdout.write(section)
    if args.write:
        write_section(args.write, "score_scale", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
