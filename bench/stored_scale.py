"""Commands that read a large stored run: ``assay report RUN``, ``compare`` and ``gate``.

Writes two runs of ``-n`` case-trials each (the dataset of ``score_scale.py``: 70% right
answers, 15% abstentions, 10% errors, 5% missing; the second run with other draws) into a
SQLite store through the store API, then runs each command once as a child process and
records its wall time, CPU time and peak resident memory against the goals at 1,000,000
case-trials (the report under 10 s and 1.5 GB).

    .venv/bin/python bench/stored_scale.py [-n 100000] [--write FILE]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

GOAL_MB = 1_500
REPORT_GOAL_S = 10.0
BATCH = 5_000


def _records(n: int, seed: int) -> list[object]:
    from assay.outcomes import Abstain, Answer, Error, Record

    rng = random.Random(seed)
    records: list[object] = []
    for i in range(n):
        roll = rng.random()
        case_id = f"C{i:07d}"
        if roll < 0.70:
            records.append(Record(case_id=case_id, outcome=Answer(fact="return_window_30_days")))
        elif roll < 0.85:
            records.append(Record(case_id=case_id, outcome=Abstain()))
        elif roll < 0.95:
            records.append(
                Record(case_id=case_id, outcome=Error(error_class="timeout", message="30 s"))
            )
    return records


def fill(url: str, n: int) -> float:
    """Two completed runs ``base`` and ``cand`` of ``n`` case-trials; seconds it took."""
    from score_scale import write_inputs

    from assay.grading import grade_all
    from assay.load import load_dataset
    from assay.store import RunInfo, open_store

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        cases, _ = write_inputs(Path(tmp), n)
        dataset = load_dataset(cases)
    store = open_store(url)
    try:
        for day, (run_id, seed) in enumerate((("base", 1), ("cand", 2)), start=1):
            records = _records(n, seed)
            graded = grade_all(dataset, records)  # type: ignore[arg-type]
            judged = {(r.case.id, r.trial): r.judgment for r in graded if r.record is not None}
            info = RunInfo(
                id=run_id,
                started_at=datetime(2026, 11, day, 9, 30, tzinfo=UTC),
                dataset_name=dataset.name,
                dataset_version=dataset.version,
                target={"type": "scripted", "model": f"demo-{run_id}"},
                graders=[{"name": "structured", "version": "1"}],
                assay_version="0.1.0",
            )
            store.create_run(info, dataset)
            for start in range(0, len(records), BATCH):
                batch = records[start : start + BATCH]
                store.add_results(
                    run_id,
                    batch,  # type: ignore[arg-type]
                    [judged[(r.case_id, r.trial)] for r in batch],  # type: ignore[attr-defined]
                )
            store.finish_run(run_id, "completed")
    finally:
        store.close()
    return time.perf_counter() - started


def measure(args: list[str], cwd: Path) -> dict[str, float | int]:
    """One ``assay`` command as a child: wall and CPU seconds, peak RSS (MB), exit code."""
    command = [sys.executable, "-m", "assay", *args]
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "exit": os.waitstatus_to_exitcode(status),
    }


def _commit() -> str:
    found = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=BENCH
    )
    return found.stdout.strip() or "an unknown commit"


def render(n: int, filled_s: float, rows: dict[str, dict[str, float | int]], load: str) -> str:
    """The Markdown section for ``bench/RESULTS.md``."""
    lines = [
        "## Stored runs at scale",
        "",
        f"`bench/stored_scale.py -n {n}`: two runs of {n:,} case-trials each written to a "
        f"SQLite store through the store API ({filled_s:.0f} s), then each command run once "
        f"as a child process, at {_commit()}. Load average when measured: {load}; wall "
        "times are inflated when the machine is shared, CPU time and peak memory are the "
        f"comparable figures. Goals at 1,000,000 case-trials: `assay report RUN` under "
        f"{REPORT_GOAL_S:g} s end to end and every command under {GOAL_MB:,} MB.",
        "",
        "| Command | Wall | CPU | Peak memory | Exit |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, r in rows.items():
        lines.append(
            f"| `{name}` | {r['wall_s']:.1f} s | {r['cpu_s']:.1f} s "
            f"| {r['peak_mb']:,.0f} MB | {r['exit']} |"
        )
    return "\n".join(lines) + "\n"


COMMANDS = {
    "assay report base -f json": ["report", "base", "-f", "json", "-o", "report.json"],
    "assay report base -f text": ["report", "base", "-f", "text", "-o", "report.txt"],
    "assay compare base cand -f json": ["compare", "base", "cand", "-f", "json", "-o", "c.json"],
    "assay gate cand -r task_success>=0.5": ["gate", "cand", "-r", "task_success>=0.5"],
}


def main(argv: list[str] | None = None) -> int:
    """Fill a store, measure each command, print the section and write it into ``--write``."""
    from _sections import write_section

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=100_000, help="case-trials per run")
    parser.add_argument("--write", type=Path, help="results file to update (a section)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        here = Path(tmp)
        url = f"sqlite:///{here / 'assay.db'}"
        filled = fill(url, args.n)
        env_store = ["--store", url]
        rows = {}
        for name, command in COMMANDS.items():
            rows[name] = measure([*command, *env_store], here)
            sys.stderr.write(f"{name}: {rows[name]}\n")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    section = render(args.n, filled, rows, load)
    sys.stdout.write(section)
    if args.write:
        write_section(args.write, "stored_scale", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
