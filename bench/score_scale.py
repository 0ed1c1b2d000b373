"""``assay score`` on a large dataset: wall time and peak memory of the whole command.

Writes a dataset of ``-n`` cases and a results file (70% right answers, 15% abstentions,
10% errors, 5% missing) to a temporary directory, runs ``python -m assay score`` on them
once per format (written with ``-o``; ``text:stdout``, the default command, printed), and
reports the wall time, the CPU time and the peak resident memory of each run against the
goal (under 1.5 GB; 500,000 cases in 60 s, 1,000,000 in 15 s).

    .venv/bin/python bench/score_scale.py [-n 500000] [--format json text text:stdout]
        [--write FILE]

With ``--growth 10000 100000 1000000`` it instead runs the JSON report once per size, one
after the other, and writes the section on how CPU and peak memory grow with the size.
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
GOAL_S_MILLION = 15.0
"""At a million cases and more the goal is 15 s (500,000 cases: 60 s)."""


def goal_seconds(n: int) -> float:
    """The time goal for ``n`` cases."""
    return GOAL_S_MILLION if n >= 1_000_000 else GOAL_S


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


# ``assay ARGS`` in this process, then the CPU seconds of this process alone (not of the
# processes it started and waited for) on the last line of standard error.
_OWN_CPU = """
import os, resource, sys
from assay.cli import main
code = 0
try:
    main(sys.argv[1:])
except SystemExit as done:
    code = done.code if isinstance(done.code, int) else 1
own = resource.getrusage(resource.RUSAGE_SELF)
sys.stdout.flush()
sys.stderr.write(f"\\n{own.ru_utime + own.ru_stime}\\n")
sys.stderr.flush()
os._exit(code)
"""


STDOUT = ":stdout"
"""A format named with this ending is printed (to a file standing for the terminal)
rather than written with ``-o``: ``text:stdout`` is the command as a user types it."""


def measure(cases: Path, results: Path, fmt: str, out: Path) -> dict[str, float | int]:
    """Run ``assay score`` once; its wall and CPU seconds (with the processes it starts,
    and of its main process alone), peak RSS (MB) and exit code."""
    printed = fmt.endswith(STDOUT)
    command = [sys.executable, "-c", _OWN_CPU, "score", str(cases), str(results)]
    command += ["-f", fmt.removesuffix(STDOUT)]
    if not printed:
        command += ["-o", str(out)]
    started = time.perf_counter()
    with out.open("wb") if printed else open(os.devnull, "wb") as shown:
        proc = subprocess.Popen(command, stdout=shown, stderr=subprocess.PIPE)
        assert proc.stderr is not None
        said = proc.stderr.read().decode("utf-8", "replace")
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    try:
        own = float(said.split()[-1])
    except (IndexError, ValueError):
        own = float("nan")
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "main_cpu_s": own,
        "peak_mb": usage.ru_maxrss / 1024,
        "exit": proc.returncode,
        "bytes": out.stat().st_size if out.exists() else 0,
    }


def _commit() -> str:
    try:
        found = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=BENCH
        )
    except OSError:
        return "an unknown commit"
    return found.stdout.strip() or "an unknown commit"


def _load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def render(n: int, rows: dict[str, dict[str, float | int]], load: str) -> str:
    """The Markdown section for ``bench/RESULTS.md``."""
    lines = [
        "## Scoring at scale",
        "",
        f"`bench/score_scale.py -n {n}`: `assay score` on {n:,} cases (JSONL dataset and "
        f"results), goal under {GOAL_MB:,} MB and "
        f"{goal_seconds(n):g} s. Load average when measured: {load}.",
        "",
        "| Format | Wall | CPU | of which the main process | Peak memory | Report size | Exit "
        "| Goal |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for fmt, r in rows.items():
        met = r["peak_mb"] < GOAL_MB and r["wall_s"] < goal_seconds(n) and r["exit"] == 0
        verdict = "met" if met else "**NOT met**"
        lines.append(
            f"| {fmt} | {r['wall_s']:.1f} s | {r['cpu_s']:.1f} s | {r['main_cpu_s']:.1f} s "
            f"| {r['peak_mb']:,.0f} MB "
            f"| {int(r['bytes']) / 2**20:,.0f} MB | {r['exit']} | {verdict} |"
        )
    lines += [
        "",
        f"Measured at {_commit()}; when the machine is shared, wall "
        "times are inflated by the other jobs and CPU time and peak memory are the "
        "comparable figures. CPU counts the processes `assay score` starts beside its "
        "main process (on Linux, one reading a large JSON Lines results file, one scoring "
        "the later part of a large JSON Lines dataset); on a machine with two idle cores "
        "the wall time follows the main process's CPU; peak memory is the largest "
        "process's. `FORMAT:stdout` is the report printed, not written with `-o`.",
    ]
    return "\n".join(lines) + "\n"


def render_growth(rows: dict[int, dict[str, float | int]], loads: list[str]) -> str:
    """The Markdown section on how the JSON report's cost grows with the number of cases."""
    sizes = ", ".join(f"{n:,}" for n in rows)
    lines = [
        "## Scoring at scale: how the cost grows",
        "",
        f"`bench/score_scale.py --growth`: `assay score -f json` on {sizes} cases, one after "
        f"the other, at {_commit()}. Load average after each run: {'; '.join(loads)}. Wall "
        "times are inflated when the machine is shared; CPU time and peak memory are the "
        "comparable figures. Per-case figures are over the previous size.",
        "",
        "| Cases | Wall | CPU | CPU per case | Peak memory | Peak per case | JSON report | Exit |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    previous: tuple[int, dict[str, float | int]] | None = None
    for n, r in rows.items():
        per_cpu = per_mb = "—"
        if previous is not None and n > previous[0]:
            extra = n - previous[0]
            per_cpu = f"{(r['cpu_s'] - previous[1]['cpu_s']) / extra * 1e6:,.0f} µs"
            per_mb = f"{(r['peak_mb'] - previous[1]['peak_mb']) * 1024 / extra:,.2f} KB"
        lines.append(
            f"| {n:,} | {r['wall_s']:.1f} s | {r['cpu_s']:.1f} s | {per_cpu} "
            f"| {r['peak_mb']:,.0f} MB | {per_mb} | {int(r['bytes']) / 2**20:,.0f} MB "
            f"| {r['exit']} |"
        )
        previous = (n, r)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Measure, print the section, and write it into ``--write``."""
    from _sections import write_section

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=500_000, help="cases")
    parser.add_argument(
        "--format",
        nargs="+",
        default=["json", "text", f"text{STDOUT}"],
        help=f"formats to time (FORMAT{STDOUT}: printed rather than written with -o)",
    )
    parser.add_argument("--write", type=Path, help="results file to update (a section)")
    parser.add_argument("--growth", type=int, nargs="+", help="sizes for the growth table")
    args = parser.parse_args(argv)
    if args.growth:
        return _growth(sorted(args.growth), args.write)
    with tempfile.TemporaryDirectory() as tmp:
        cases, results = write_inputs(Path(tmp), args.n)
        rows = {
            fmt: measure(cases, results, fmt, Path(tmp) / f"report.{fmt.replace(':', '.')}")
            for fmt in args.format
        }
    section = render(args.n, rows, _load())
    sys.stdout.write(section)
    if args.write:
        write_section(args.write, "score_scale", section)
    return 0


def _growth(sizes: list[int], write: Path | None) -> int:
    """Measure the JSON report at each size and write the growth section."""
    from _sections import write_section

    rows: dict[int, dict[str, float | int]] = {}
    loads: list[str] = []
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            cases, results = write_inputs(Path(tmp), n)
            rows[n] = measure(cases, results, "json", Path(tmp) / "report.json")
        loads.append(_load())
        sys.stderr.write(f"{n:,} cases: {rows[n]}\n")
    section = render_growth(rows, loads)
    sys.stdout.write(section)
    if write:
        write_section(write, "score_growth", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
