"""The fixed cost of a command as instructions (callgrind), beside the floor its
dependencies set: a figure other work on the machine does not move.

Each command runs as a whole process under ``valgrind --tool=callgrind``: ``assay score``
of the seed's six cases, a one-case ``assay run`` (0 ms latency, a new store) and
``assay report RUN`` (text) of a stored 2,000-case run. Each floor is a process that only
imports the packages that command cannot do without (``python -c "import ..."``): the
command line (typer, which builds on pydantic, and rich), plus SQLAlchemy and its SQLite
dialect for a store, numpy and scipy's special functions for the stored counts and exact
intervals of a large run, aiohttp, PyYAML and OpenTelemetry's API for a run. What a
command costs above its floor is assay's own: its modules' imports and its work.

Instruction counts are not time (a cache miss costs more than an instruction, and a
thread that spins is counted), but they rank the parts of a fixed cost on any machine.
With ``--baseline SRC`` another version of assay (another checkout's ``src``) is counted
beside this one with the same interpreter and dependencies.

    .venv/bin/python bench/fixed_costs.py [--baseline /tmp/main/src] [--write bench/RESULTS.md]

Under valgrind the interpreter runs about 50 times slower: the whole takes a few minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from _bytecode import precompile, precompile_src
from _mockproc import mock_server
from _sections import write_section
from drive_assay import KEY_ENV, write_suite

BENCH = Path(__file__).resolve().parent
POLICY = BENCH.parent / "examples" / "policy"
SECTION = "fixed-costs"
REPORTED_CASES = 2_000
_COLLECTED = re.compile(r"Collected : (\d+)")

CLI = "typer, typer._adapters, pydantic, rich.console, rich.table"
STORE = "sqlalchemy, sqlalchemy.dialects.sqlite"
FLOORS = {
    "the interpreter alone": "pass",
    "command line: typer (with pydantic) and rich": f"import {CLI}",
    "+ store, numpy, scipy.special": f"import {CLI}, {STORE}, numpy, scipy.special._ufuncs",
    "+ store, aiohttp, PyYAML, OpenTelemetry API": (
        f"import {CLI}, {STORE}, aiohttp, yaml, opentelemetry.trace"
    ),
}
# Each command and the floor it is compared with.
FLOOR_OF = {
    "score": "command line: typer (with pydantic) and rich",
    "report": "+ store, numpy, scipy.special",
    "run": "+ store, aiohttp, PyYAML, OpenTelemetry API",
}


@dataclass(frozen=True)
class Row:
    """One process's instruction count."""

    system: str
    what: str
    instructions: int


def load_average() -> str:
    """The 1, 5 and 15-minute load averages."""
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def count(command: list[str], cwd: Path, env: dict[str, str], codes: tuple[int, ...] = (0,)) -> int:
    """Instructions callgrind counts in one run of ``command``, which must end with one
    of the exit ``codes``."""
    valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    done = subprocess.run(
        [*valgrind, *command], capture_output=True, text=True, cwd=cwd, env=env, check=False
    )
    found = _COLLECTED.search(done.stderr)
    if found is None or done.returncode not in codes:
        tail = " / ".join(done.stderr.strip().splitlines()[-3:])
        raise SystemExit(f"fixed_costs: {' '.join(command[:4])} failed: {tail}")
    return int(found.group(1))


def _stored_run(folder: Path, base_url: str, env: dict[str, str]) -> tuple[str, str]:
    """A store holding one completed run of ``REPORTED_CASES`` cases: its URL and run id."""
    suite = write_suite(folder, base_url, REPORTED_CASES, 100)
    store = f"sqlite:///{folder / 'assay.db'}"
    assay = [sys.executable, "-m", "assay"]
    subprocess.run(
        [*assay, "run", str(suite), "--format", "json", "--store", store],
        cwd=folder,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    listed = subprocess.run(
        [*assay, "runs", "--store", store, "--format", "json"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    runs = json.loads(listed.stdout)
    runs = runs["runs"] if isinstance(runs, dict) else runs
    return store, runs[0]["id"]


def measure(scratch: Path, baseline: Path | None) -> list[Row]:
    """Count every floor, then each command of this assay (and the baseline's)."""
    env = {**os.environ, "PYTHONHASHSEED": "0", KEY_ENV: "bench-not-a-secret"}
    env.pop("PYTHONPATH", None)
    systems = [("assay", env)]
    if baseline is not None:
        systems.append(("baseline", {**env, "PYTHONPATH": str(baseline)}))
    # numpy started as the reading commands start it: without OpenBLAS's thread pool.
    floor_env = {**env, "OPENBLAS_NUM_THREADS": "1"}
    rows = [
        Row("floor", name, count([sys.executable, "-c", code], scratch, floor_env))
        for name, code in FLOORS.items()
    ]
    for row in rows:
        print(f"{row.what}: {row.instructions:,}", flush=True)
    seed = [str(POLICY / "policy.jsonl"), str(POLICY / "results.jsonl")]
    with mock_server("--latency-ms", "0") as base_url:
        reported = scratch / "reported"
        reported.mkdir()
        store, run_id = _stored_run(reported, base_url, env)
        for system, system_env in systems:
            assay = [sys.executable, "-m", "assay"]
            one = scratch / f"one-{system}"
            one.mkdir()
            suite = write_suite(one, base_url, 1, 1)
            commands = {
                "score": [*assay, "score", *seed],
                "run": [*assay, "run", str(suite), "--format", "json", "--store",
                        f"sqlite:///{one / 'assay.db'}"],
                "report": [*assay, "report", run_id, "--store", store],
            }  # fmt: skip
            for what, command in commands.items():
                row = Row(system, what, count(command, one, system_env, (0, 1)))
                print(f"{system} {what}: {row.instructions:,}", flush=True)
                rows.append(row)
    return rows


def section(rows: list[Row], loads: tuple[str, str], note: str) -> str:
    """The RESULTS.md section of the counts."""
    floors = {row.what: row.instructions for row in rows if row.system == "floor"}
    commands = {
        "score": "`assay score` of the seed's six cases",
        "run": "one-case `assay run` (0 ms latency, a new store)",
        "report": f"`assay report RUN` (text) of a {REPORTED_CASES:,}-case run",
    }
    lines = [
        "## Fixed costs in instructions (callgrind)",
        "",
        "`bench/fixed_costs.py`: each command as one whole process under callgrind, beside "
        "the floor its dependencies set (a process that only imports them). Counts do not "
        "depend on the machine's load.",
        "",
        "| floor: a process importing | instructions |",
        "|---|---:|",
        *(f"| {what} | {n:,} |" for what, n in floors.items()),
        "",
        "| command | system | instructions | its floor | above the floor |",
        "|---|---|---:|---:|---:|",
    ]
    for row in rows:
        if row.system == "floor":
            continue
        floor = floors[FLOOR_OF[row.what]]
        above = row.instructions - floor
        lines.append(
            f"| {commands[row.what]} | {row.system} | {row.instructions:,} | {floor:,} "
            f"| {above:,} ({above / row.instructions:.0%}) |"
        )
    lines += ["", f"Load average before: {loads[0]}; after: {loads[1]}."]
    if note:
        lines.append(note)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Count and print (or write) the fixed costs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, help="another checkout's src directory")
    parser.add_argument("--write", type=Path, help="put the section into this RESULTS.md")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("fixed_costs: valgrind is not installed (apt-get install valgrind)")
    note = precompile()  # compiling modules under callgrind would take most of its time
    baseline = args.baseline.resolve() if args.baseline is not None else None
    if baseline is not None:
        if not (baseline / "assay" / "__init__.py").is_file():
            parser.error(f"--baseline {args.baseline}: no assay package in that directory")
        note += f" The baseline is the assay in `{args.baseline}`; "
        note += precompile_src(sys.executable, baseline) + "."
    before = load_average()
    with tempfile.TemporaryDirectory(prefix="assay-fixed-") as scratch:
        rows = measure(Path(scratch), baseline)
    text = section(rows, (before, load_average()), note)
    print(text)
    if args.write is not None:
        write_section(args.write, SECTION, text)


if __name__ == "__main__":
    main()
