"""Shared PostgreSQL store under load: concurrent ``assay run`` processes writing one
throwaway cluster while reports, the viewer and ``assay gate`` read it.

Each run is the real CLI over a function target that answers at once (so the store and the
runner are what is measured), ``--cases`` cases x ``--trials`` trials. The cluster is
started with the machine's initdb/pg_ctl (as the postgres user when run as root) and
removed afterwards. Nothing may be lost or duplicated; the section records throughput.

    .venv/bin/python bench/store_load.py --write          # 4 runs x 25,000 case-trials
    .venv/bin/python bench/store_load.py --sqlite --runs 2 # the same into one SQLite file
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

from _sections import write_section  # noqa: E402
from tests.pg_cluster import fresh_database, postgres_cluster  # noqa: E402
from tests.store_load import Load, expected_counts, run_load  # noqa: E402

SECTION = "store-load"


def section(load: Load, database: str, argv: list[str], loadavg: tuple[float, ...]) -> str:
    """The Markdown section for bench/RESULTS.md."""
    ok = load.lost == 0 and load.duplicated == 0 and set(load.exit_codes) == {0}
    expected = expected_counts(load.cases, load.trials)
    figures = all(c == expected for c in load.counts)
    lines = [
        f"## Shared store under load ({database})",
        "",
        f"Written by `{' '.join(argv)}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
        f" (load average before the run {loadavg[0]:.1f}, {os.cpu_count()} cores): "
        f"{load.runs} `assay run` processes at once, each {load.cases:,} cases x "
        f"{load.trials} trials = {load.expected:,} case-trials (function target answering at "
        "once, concurrency 32, batched writes of 200), while this process read the store: "
        "`list_runs`, a running run's report, the viewer's pages and `assay gate`.",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| case-trials stored | {sum(load.distinct):,} of {load.runs * load.expected:,} |",
        f"| lost | {load.lost} |",
        f"| duplicated | {load.duplicated} |",
        f"| runs completed | {load.statuses.count('completed')} of {load.runs} |",
        f"| figures as the target implies ({expected}) | {'yes' if figures else '**no**'} |",
        f"| writing time (first run's start to last run's end) | {load.writing_s:.1f} s |",
        f"| throughput, all runs together | {load.throughput:,.0f} case-trials/s |",
        f"| wall time incl. process start-up and final checks | {load.wall_s:.1f} s |",
        f"| reports read mid-run (statuses not adding up) | {load.reports_read} "
        f"({load.unbalanced_reads}) |",
        f"| viewer pages read mid-run (not 200) | {load.pages_read} ({len(load.bad_pages)}) |",
        f"| `assay gate` mid-run exit codes (tracebacks) | {load.gate_codes} "
        f"({load.gate_tracebacks}) |",
        "",
        "Verdict: " + ("nothing lost, nothing duplicated." if ok else "**FAILED**."),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Run the load, print its section, and with --write put it in bench/RESULTS.md."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--sqlite", action="store_true", help="one SQLite file instead")
    parser.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    parser.add_argument("--output", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args(argv)
    shown = ["python", "bench/store_load.py", *(argv if argv is not None else sys.argv[1:])]
    loadavg = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="assay-load-") as folder:
        if args.sqlite:
            url = f"sqlite:///{Path(folder) / 'assay.db'}"
            load = run_load(url, Path(folder) / "suite", args.runs, args.cases, args.trials)
            database = "SQLite"
        else:
            with postgres_cluster() as server:
                url = fresh_database(server)
                load = run_load(url, Path(folder) / "suite", args.runs, args.cases, args.trials)
            database = "PostgreSQL"
    text = section(load, database, shown, loadavg)
    print(text)
    for err in load.stderr:
        if "Traceback" in err:
            print(err, file=sys.stderr)
    if args.write:
        write_section(args.output, SECTION + ("-sqlite" if args.sqlite else ""), text)
        print(f"wrote {args.output}", file=sys.stderr)
    if load.lost or load.duplicated or set(load.exit_codes) != {0}:
        sys.exit(1)


if __name__ == "__main__":
    main()
