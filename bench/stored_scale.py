"""Commands that read a large stored run: ``assay report RUN``, ``compare`` and ``gate``.

Writes two runs of ``-n`` case-trials each (the dataset of ``score_scale.py``: 70% right
answers, 15% abstentions, 10% errors, 5% missing; the second run with other draws) into a
SQLite store through the store API, then runs each command once as a child process and
records its wall time, CPU time and peak resident memory against the goals at 1,000,000
case-trials (the report under 10 s and 1.5 GB). The library's ``summarize`` on the same
dataset and records is timed in a child process of its own (goal: under 2 s), and beside
it ``assay.runs.stored_summary`` on the stored run: the same summary counted by SQL
``GROUP BY`` queries where the rows are.

    .venv/bin/python bench/stored_scale.py [-n 100000] [--write FILE]

With ``--store URL`` it measures the read commands on the runs ``base`` and ``cand`` of a
store filled before (e.g. by ``--fill-child N URL``), without filling one.

With ``--growth 10000 100000 1000000`` it measures every size, one after the other, and
writes the section on how each cost grows (``--only`` picks commands for the largest
sizes when the others would take too long on a shared machine).
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
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _resident import reset_peak, resident_mb  # noqa: E402

GOAL_MB = 1_500
REPORT_GOAL_S = 10.0
SUMMARIZE_GOAL_S = 2.0
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


def fill_in_child(url: str, n: int) -> float:
    """``fill`` in a child process; seconds it took. A child starts with its parent's
    peak resident memory on record (the kernel carries it across ``exec``), so the
    parent that starts the measured commands must never hold the runs itself."""
    command = [sys.executable, str(Path(__file__)), "--fill-child", str(n), url]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return float(done.stdout)


SUMMARIZE_TIMES = 3


def summarize_child(n: int) -> None:
    """In a child process: the dataset and records of run ``base``, then ``summarize``
    on them timed alone, ``SUMMARIZE_TIMES`` times; prints the median wall and CPU
    seconds, each run's, the memory the inputs hold, the peak while making them and the
    peak while summarizing as JSON."""
    import json
    import statistics

    from score_scale import write_inputs

    from assay.load import load_dataset
    from assay.metrics import rate
    from assay.report import summarize

    with tempfile.TemporaryDirectory() as tmp:
        cases, _ = write_inputs(Path(tmp), n)
        dataset = load_dataset(cases)
    records = _records(n, 1)
    # imports (scipy: counts above the small table of limits) are not what is measured
    summarize(dataset.cases[:1], [])
    rate(1_000, 2_000, "cases")
    inputs_mb, built_peak_mb = resident_mb("VmRSS"), resident_mb("VmHWM")
    reset = reset_peak()
    runs = []
    for _ in range(SUMMARIZE_TIMES):
        wall, cpu = time.perf_counter(), time.process_time()
        summary = summarize(dataset, records)  # type: ignore[arg-type]
        runs.append((time.perf_counter() - wall, time.process_time() - cpu))
        assert summary.total == n
    took = {
        "wall_s": statistics.median(r[0] for r in runs),
        "cpu_s": statistics.median(r[1] for r in runs),
        "runs_cpu_s": [round(r[1], 3) for r in runs],
        "inputs_mb": inputs_mb,
        "built_peak_mb": built_peak_mb,
        "call_peak_mb": resident_mb("VmHWM") if reset else float("nan"),
    }
    sys.stdout.write(json.dumps(took) + "\n")


def stored_summary_child(url: str) -> None:
    """In a child process: ``stored_summary`` of run ``base`` timed alone (the store
    opened and the interval code loaded first); prints its wall and CPU seconds as JSON."""
    import json

    from assay.metrics import rate
    from assay.runs import stored_summary
    from assay.store import open_store

    store = open_store(url, create=False)
    store.get_run("base")
    # imports (scipy: counts above the small table of limits) are not what is measured
    rate(1_000, 2_000, "cases")
    wall, cpu = time.perf_counter(), time.process_time()
    summary = stored_summary(store, "base")
    took = {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu}
    store.close()
    assert summary.total > 0
    sys.stdout.write(json.dumps(took) + "\n")


def measure_child(flag: str, value: str) -> dict[str, float | int]:
    """One timed child of this script (``flag value``): its own wall and CPU seconds as
    it printed them, and the child's peak RSS (MB)."""
    import json

    command = [sys.executable, str(Path(__file__)), flag, value]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    took = json.loads(out) if code == 0 else {"wall_s": float("nan"), "cpu_s": float("nan")}
    return {**took, "peak_mb": usage.ru_maxrss / 1024, "exit": code}


def measure_summarize(n: int) -> dict[str, float | int]:
    """``summarize`` on ``n`` case-trials in a child: its own wall and CPU seconds, and
    the child's peak RSS (MB, with the inputs it built first)."""
    return measure_child("--summarize-child", str(n))


_PROCESSES = (
    "A command's CPU time is that of all its processes (the JSON, HTML and JUnit reports "
    "of a run of more than 100,000 case-trials are rendered by two: the command and a "
    "fork of it); its peak memory is that of the larger process (they share the pages "
    "the fork inherited)."
)


def measure(args: list[str], cwd: Path) -> dict[str, float | int]:
    """One ``assay`` command as a child: wall and CPU seconds (with the processes it
    forks), peak RSS (MB, of its largest process), exit code."""
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


def render(n: int, filled_s: float, rows: dict[str, dict[str, Any]], load: str) -> str:
    """The Markdown section for ``bench/RESULTS.md``."""
    lines = [
        "## Stored runs at scale",
        "",
        f"`bench/stored_scale.py -n {n}`: two runs of {n:,} case-trials each written to a "
        f"SQLite store through the store API ({filled_s:.0f} s), then each command run once "
        f"as a child process, at {_commit()}. Load average when measured: {load}; wall "
        "times are inflated when the machine is shared, CPU time and peak memory are the "
        f"comparable figures. Goals at 1,000,000 case-trials: `assay report RUN` under "
        f"{REPORT_GOAL_S:g} s end to end and every command under {GOAL_MB:,} MB; the "
        f"library's `summarize` under {SUMMARIZE_GOAL_S:g} s (timed alone in a child process "
        f"that first builds the dataset and records: the median of {SUMMARIZE_TIMES} calls; "
        "its peak memory, while it ran, includes them); beside "
        "it `stored_summary`, the same summary counted by SQL from the stored run (timed "
        "alone in a child process that opened the store).",
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
    "assay report base -f html": ["report", "base", "-f", "html", "-o", "report.html"],
    "assay report base -f junit": ["report", "base", "-f", "junit", "-o", "report.xml"],
    "assay compare base cand -f json": ["compare", "base", "cand", "-f", "json", "-o", "c.json"],
    "assay gate cand -r task_success>=0.5": ["gate", "cand", "-r", "task_success>=0.5"],
}
# Measured on a store given with --store only (the table of COMMANDS keeps its rows).
STORE_ONLY = {
    "assay report base -f markdown": ["report", "base", "-f", "markdown", "-o", "report.md"],
    "assay compare base cand -f text": ["compare", "base", "cand", "-f", "text", "-o", "c.txt"],
}
SUMMARIZE = "summarize(dataset, records)"
STORED_SUMMARY = "stored_summary(store, run) (SQL)"


def measure_all(n: int, only: list[str] | None = None) -> tuple[float, dict[str, dict[str, Any]]]:
    """Fill a store of two runs of ``n`` case-trials; measure ``summarize`` and each
    command (those whose name contains one of ``only``, when given)."""
    chosen = [SUMMARIZE, STORED_SUMMARY, *COMMANDS]
    if only:
        chosen = [name for name in chosen if any(word in name for word in only)]
    rows: dict[str, dict[str, Any]] = {}
    if SUMMARIZE in chosen:
        rows[SUMMARIZE] = measure_summarize(n)
        sys.stderr.write(f"{n:,} {SUMMARIZE}: {rows[SUMMARIZE]}\n")
    filled = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        here = Path(tmp)
        url = f"sqlite:///{here / 'assay.db'}"
        if any(name in COMMANDS or name == STORED_SUMMARY for name in chosen):
            filled = fill_in_child(url, n)
        if STORED_SUMMARY in chosen:
            rows[STORED_SUMMARY] = measure_child("--stored-summary-child", url)
            sys.stderr.write(f"{n:,} {STORED_SUMMARY}: {rows[STORED_SUMMARY]}\n")
        for name, command in COMMANDS.items():
            if name in chosen:
                rows[name] = measure([*command, "--store", url], here)
                sys.stderr.write(f"{n:,} {name}: {rows[name]}\n")
    return filled, rows


def measure_store(url: str, only: list[str] | None) -> dict[str, dict[str, Any]]:
    """Each read command (those whose name contains one of ``only``, when given) on the
    runs ``base`` and ``cand`` of an existing store, which no command writes to."""
    rows: dict[str, dict[str, Any]] = {}
    if only and any(word in STORED_SUMMARY for word in only):
        rows[STORED_SUMMARY] = measure_child("--stored-summary-child", url)
        sys.stderr.write(f"{STORED_SUMMARY}: {rows[STORED_SUMMARY]}\n")
    with tempfile.TemporaryDirectory() as tmp:
        for name, command in {**COMMANDS, **STORE_ONLY}.items():
            if only and not any(word in name for word in only):
                continue
            rows[name] = measure([*command, "--store", url], Path(tmp))
            sys.stderr.write(f"{name}: {rows[name]}\n")
    return rows


def render_store(url: str, n: int, rows: dict[str, dict[str, Any]], load: str) -> str:
    """The Markdown section for commands measured on an existing store of two runs of
    ``n`` case-trials each."""
    lines = [
        f"## Stored runs at scale: commands on a filled store of {n:,} case-trials per run",
        "",
        f"`bench/stored_scale.py --store {url} -n {n}`: each command run once as a child "
        "process on the runs `base` and `cand` of a store filled before by this script "
        f"(`--fill-child {n} URL`), at {_commit()}. Load average when measured: {load}; wall "
        "times are inflated when the machine is shared, CPU time and peak memory are the "
        f"comparable figures. Goal at 1,000,000 case-trials: every command under "
        f"{GOAL_MB:,} MB. {_PROCESSES}",
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


def _load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def render_growth(table: dict[int, dict[str, dict[str, Any]]], loads: dict[int, str]) -> str:
    """The Markdown section on how each command's cost grows with the case-trials."""
    sizes = ", ".join(f"{n:,}" for n in table)
    lines = [
        "## Stored runs at scale: how the cost grows",
        "",
        f"`bench/stored_scale.py --growth`: at {sizes} case-trials, the library's "
        "`summarize` (timed alone, in a child process that first builds the dataset and "
        f"records: the median of {SUMMARIZE_TIMES} calls; its peak, while it ran, includes "
        "them), `stored_summary` (the same summary counted by SQL from the stored run, "
        "timed alone in a child process that opened the store) "
        "and each command run once as a child process on "
        f"a SQLite store of two such runs, at {_commit()}. Goals at 1,000,000 case-trials: "
        f"`summarize` under {SUMMARIZE_GOAL_S:g} s, `assay report RUN` under "
        f"{REPORT_GOAL_S:g} s end to end, every command under {GOAL_MB:,} MB. Wall times "
        "are inflated when the machine is shared; CPU time and peak memory are the "
        "comparable figures. Per case-trial figures are over the previous size.",
        "",
        "| Case-trials | What | Wall | CPU | CPU per case-trial | Peak memory "
        "| Peak per case-trial | Exit | Load |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    previous: dict[str, tuple[int, dict[str, Any]]] = {}
    for n, rows in table.items():
        for name, r in rows.items():
            per_cpu = per_mb = "—"
            before = previous.get(name)
            if before is not None and n > before[0]:
                extra = n - before[0]
                per_cpu = f"{(r['cpu_s'] - before[1]['cpu_s']) / extra * 1e6:,.1f} µs"
                per_mb = f"{(r['peak_mb'] - before[1]['peak_mb']) * 1024 / extra:,.2f} KB"
            lines.append(
                f"| {n:,} | `{name}` | {r['wall_s']:.1f} s | {r['cpu_s']:.1f} s | {per_cpu} "
                f"| {r['peak_mb']:,.0f} MB | {per_mb} | {r['exit']} | {loads[n]} |"
            )
            previous[name] = (n, r)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Fill a store, measure each command, print the section and write it into ``--write``."""
    from _sections import write_section

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=100_000, help="case-trials per run")
    parser.add_argument("--write", type=Path, help="results file to update (a section)")
    parser.add_argument("--growth", type=int, nargs="+", help="sizes for the growth table")
    parser.add_argument(
        "--only",
        nargs="+",
        help="at the largest growth size, only what names one of these words "
        "(e.g. summarize report)",
    )
    parser.add_argument(
        "--store",
        help="measure the read commands (--only: those naming a word, and stored_summary "
        "when one names it) on the runs base and cand of -n case-trials each of this "
        "existing store, filled before; nothing is filled or written to it",
    )
    parser.add_argument(
        "--section", default="stored_store", help="the section --store writes (--write)"
    )
    parser.add_argument("--summarize-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--fill-child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--stored-summary-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.fill_child:
        sys.stdout.write(f"{fill(args.fill_child[1], int(args.fill_child[0]))}\n")
        return 0
    if args.stored_summary_child:
        stored_summary_child(args.stored_summary_child)
        return 0
    if args.summarize_child:
        summarize_child(args.summarize_child)
        return 0
    if args.store:
        rows = measure_store(args.store, args.only)
        section = render_store(args.store, args.n, rows, _load())
        sys.stdout.write(section)
        if args.write:
            write_section(args.write, args.section, section)
        return 0
    if args.growth:
        sizes = sorted(args.growth)
        table: dict[int, dict[str, dict[str, Any]]] = {}
        loads: dict[int, str] = {}
        for n in sizes:
            _, table[n] = measure_all(n, args.only if n == sizes[-1] else None)
            loads[n] = _load()
        section = render_growth(table, loads)
        sys.stdout.write(section)
        if args.write:
            write_section(args.write, "stored_growth", section)
        return 0
    filled, rows = measure_all(args.n)
    section = render(args.n, filled, rows, _load())
    sys.stdout.write(section)
    if args.write:
        write_section(args.write, "stored_scale", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
