"""Run every benchmark and write ``bench/RESULTS.md`` (what ``make bench`` runs).

Start-up time of ``assay --help``; the throughput workload through the bare aiohttp floor,
assay's ``openai`` target and inspect_ai side by side; a cProfile of assay's per-case path;
``assay dedupe`` on 100,000 cases (``bench/dedupe.py``, skipped with ``--quick``).
Whole processes side by side (``bench/whole_process.py``): ``assay run`` against the bare
client and the peers (inspect_ai, lm-evaluation-harness, promptfoo, installed on first use
under ``bench/.peers/``), one-case run, ``assay score`` and ``assay report`` wall times.
a 5-variant matrix against five runs' floor and its fully cached rerun (``matrix_cache.py``).
Each speed trick of ``assay._fast`` against its plain form (``bench/speed_tricks.py``,
skipped with ``--quick``).
The simulated coverage of the clustered interval (``--coverage``, about 7 minutes), the
simulated coverage of task success corrected for a judge's errors (``--judge-correction``,
about 2 minutes), the simulated power of ``assay plan``'s sample sizes (``--plan-power``,
under a minute), the simulation of sequential gates (``--sequential``, about 2 minutes)
and the kill/resume soak (``--soak``, about 4 minutes) measure
correctness, not speed, and run only when asked: their sections stay as
``bench/coverage.py --write``, ``bench/judge_correction.py --write``,
``bench/plan_power.py --write``, ``bench/sequential.py --write`` and
``bench/soak.py --write`` measured them. The peers run once each (``--peer-reps``;
``whole_process.py`` alone runs them 3 times), so the whole run stays under 10 minutes on a
quiet machine.
Every figure in the file is measured by this run. Exit status 1 when ``assay --help``
imports a banned heavy package eagerly, or (with ``--strict``) when any goal is missed.

    .venv/bin/python bench/run_all.py [--quick] [--coverage] [--judge-correction]
        [--plan-power] [--sequential] [--soak]
        [--output bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import coverage
import dedupe
import judge_correction
import matrix_cache
import plan_power
import sequential
import soak
import speed_tricks
import startup
import throughput
import whole_process
from _machine import describe_machine
from _results import Goal, goals, render
from profile_driver import profile

BENCH = Path(__file__).resolve().parent


def _phases(n: int, c: int, *flags: str) -> str:
    """``phases.py``'s table for one run at 0 ms latency, or why it failed."""
    command = [sys.executable, str(BENCH / "phases.py"), "-n", str(n), "-c", str(c), *flags]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        return f"phases.py failed ({done.returncode}): {done.stderr.strip()[-400:]}"
    return done.stdout


def describe_commit() -> str:
    """The short hash of the checked-out commit, or 'unknown'."""
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> None:
    """Run the benchmarks and write the results file."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=BENCH / "RESULTS.md")
    parser.add_argument("--quick", action="store_true", help="200 cases, 1 rep: a smoke run")
    parser.add_argument("-n", type=int, default=2000, help="cases per run")
    parser.add_argument("-c", type=int, default=100, help="concurrency")
    parser.add_argument("--reps", type=int, default=3, help="repetitions: floor and assay")
    parser.add_argument(
        "--inspect-reps",
        type=int,
        default=0,
        help="inspect_ai inside a driver too (the whole-process section runs it as a command)",
    )
    parser.add_argument("--no-peers", action="store_true", help="whole processes: no peers")
    parser.add_argument(
        "--peer-reps", type=int, default=1, help="whole processes: repetitions of each peer"
    )
    parser.add_argument(
        "--inspect-at-0",
        action="store_true",
        help="also run inspect_ai at 0 ms (its CPU per sample is measured at 100 ms already)",
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--soak", action="store_true", help="also the kill/resume soak")
    parser.add_argument(
        "--coverage", action="store_true", help="also the coverage simulation of the interval"
    )
    parser.add_argument(
        "--judge-correction",
        action="store_true",
        help="also the coverage simulation of the judge-corrected rate",
    )
    parser.add_argument(
        "--plan-power", action="store_true", help="also the power simulation of assay plan"
    )
    parser.add_argument(
        "--sequential",
        action="store_true",
        help="also the simulation of sequential gates (error, calls saved, the mock's requests)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.reps = 200, 1
    began = time.time()
    load_before = os.getloadavg()
    log: list[str] = []

    print("start-up …", file=sys.stderr)
    boot = startup.measure(runs=5 if args.quick else 20)
    print("\n".join(startup.describe(boot)), file=sys.stderr)

    print("throughput …", file=sys.stderr)
    systems, missing = throughput.default_systems(log)
    reps = {"*": args.reps, "inspect_ai": args.inspect_reps}
    if not args.inspect_at_0:
        reps["inspect_ai@0"] = 0
    rows = throughput.run_workload(systems, [100.0, 0.0], args.n, args.c, reps)

    print("phases and profile …", file=sys.stderr)
    phases = {
        "0 ms latency, tracing on (the default)": _phases(args.n, args.c),
        "0 ms latency, tracing off": _phases(args.n, args.c, "--no-trace"),
        "100 ms latency, tracing on": _phases(args.n, args.c, "--latency-ms", "100"),
    }
    profiled = profile(BENCH / "drive_assay.py", 0.0, args.n, args.c)

    print("matrix and response cache …", file=sys.stderr)
    matrix = matrix_cache.measure(args.n, 5, args.c)

    machine = describe_machine(systems)
    at_end = machine.pop("load average at the end (1/5/15 min)")
    machine["load average at the start (1/5/15 min)"] = " / ".join(f"{x:.2f}" for x in load_before)
    machine["load average at the end (1/5/15 min)"] = at_end
    checked: list[Goal] = goals(boot, rows) + matrix_cache.goals_of(matrix)
    text = render(
        machine=machine,
        argv=[Path(sys.executable).name, "bench/run_all.py", *(argv or sys.argv[1:])],
        boot=boot,
        rows=rows,
        missing=missing,
        phases=phases,
        profiled=profiled,
        checked=checked,
        setup_log=log,
        took_s=time.time() - began,
    )
    # Sections the stand-alone benchmarks wrote (fuzzing, scale) are kept as measured.
    from _sections import sections, write_section

    previous = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
    kept = sections(previous)
    # The coverage and soak sections, when this run does not measure them again.
    for begin, end, again in (
        (coverage.BEGIN, coverage.END, args.coverage),
        (soak.BEGIN, soak.END, args.soak),
    ):
        if not again and begin in previous and end in previous:
            kept.append(begin + previous.split(begin, 1)[1].split(end, 1)[0] + end)
    if kept:
        text = text.rstrip() + "\n\n" + "\n\n".join(kept) + "\n"
    text = text.rstrip("\n") + "\n\n" + "\n".join(matrix_cache.section(matrix))
    args.output.write_text(text)
    print("whole processes (assay run, the bare client, the peers) …", file=sys.stderr)
    whole = ["--quick"] if args.quick else []
    whole += ["--no-peers"] if args.no_peers else ["--peer-reps", str(args.peer_reps)]
    whole_process.main([*whole, "--update", str(args.output)])
    if args.coverage:
        print("coverage of the clustered interval …", file=sys.stderr)
        reps = 200 if args.quick else 2000
        covered = time.time()
        cover_rows = coverage.measure(reps)
        commit = describe_commit()
        coverage.write(
            args.output, coverage.section(cover_rows, reps, time.time() - covered, commit)
        )
    if args.judge_correction:
        print("coverage of the judge-corrected rate …", file=sys.stderr)
        reps = 200 if args.quick else 4000
        corrected_at = time.time()
        judged = judge_correction.measure(reps)
        trialled = judge_correction.measure_trials(reps)
        write_section(
            args.output,
            judge_correction.SECTION,
            judge_correction.section(judged, reps, time.time() - corrected_at, trialled, reps),
        )
    if args.plan_power:
        print("power of assay plan's sample sizes …", file=sys.stderr)
        plan_reps = 1000 if args.quick else 10_000
        planned = time.time()
        plan_rows, contrasts = plan_power.measure_all(plan_reps)
        plan_power.write(
            args.output,
            plan_power.section(
                plan_rows,
                plan_reps,
                time.time() - planned,
                plan_power.describe_commit(),
                contrasts,
            ),
        )
    if args.soak:
        print("kill/resume soak …", file=sys.stderr)
        kills = 6 if args.quick else 24
        found = soak.soak(kills, cases=1000, trials=2, fault_rate=0.3, seed=1)
        soak.write_section(
            args.output, soak.section(found, ["python", "bench/soak.py", "--kills", str(kills)])
        )
    if args.sequential:
        print("sequential gates …", file=sys.stderr)
        runs = "2000" if args.quick else "10000"
        sequential.main(["--runs", runs, "--write", str(args.output)])
    print(f"wrote {args.output}", file=sys.stderr)
    if not args.quick:
        print("dedupe (100,000 cases) …", file=sys.stderr)
        dedupe.update(args.output, dedupe.section(dedupe.measure(100_000)))
        print("speed tricks, each against its plain form …", file=sys.stderr)
        speed_tricks.main(["--write", str(args.output)])
    for goal in checked:
        print(f"{goal.verdict.strip('*'):>12}  {goal.name}: {goal.figure}")
    for line in startup.describe(boot):
        if line.startswith("FAIL"):
            print(line)
    if boot.eager or (args.strict and not all(goal.met for goal in checked)):
        sys.exit(1)


if __name__ == "__main__":
    main()
