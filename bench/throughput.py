"""The throughput workload, side by side in one run: the floor, assay and inspect_ai.

For each latency (100 ms and 0 ms by default) one mock server is started; every system
then runs the same N cases at concurrency C against it, each repetition in a fresh
process (floor, assay, inspect_ai interleaved). A driver measures its own work phase
(wall time and process CPU time, imports excluded); the whole child process's CPU time is
taken from ``getrusage`` as well. inspect_ai runs from ``bench/.venv-inspect``, created
here on first use so it never touches assay's dependencies.

    .venv/bin/python bench/throughput.py -n 2000 -c 100 --reps 3
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _mockproc import mock_server

BENCH = Path(__file__).resolve().parent
INSPECT_VENV = BENCH / ".venv-inspect"
INSPECT_PACKAGES = ("inspect-ai", "openai")


@dataclass
class Row:
    """Every repetition of one system at one latency."""

    system: str
    latency_ms: float
    cases: int
    concurrency: int
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    process_cpus: list[float] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)
    problem: str | None = None

    @property
    def wall_s(self) -> float:
        """Median wall time of the work phase."""
        return statistics.median(self.walls)

    @property
    def cpu_s(self) -> float:
        """Median process CPU time of the work phase."""
        return statistics.median(self.cpus)

    @property
    def cpu_ms_per_case(self) -> float:
        """Median CPU milliseconds per case."""
        return 1000 * self.cpu_s / self.cases

    @property
    def ok(self) -> bool:
        """At least one repetition measured and no problem."""
        return bool(self.walls) and self.problem is None


@dataclass(frozen=True)
class System:
    """How to run one system's driver: the interpreter and the script."""

    name: str
    python: str
    script: Path
    flags: tuple[str, ...] = ()

    def command(self, base_url: str, n: int, c: int) -> list[str]:
        """The driver command line for one repetition."""
        common = ["--base-url", base_url, "-n", str(n), "-c", str(c)]
        return [self.python, str(self.script), *common, *self.flags]


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(system: System, base_url: str, n: int, c: int, row: Row) -> None:
    """Run one repetition in a fresh process and add its figures (or its problem) to row."""
    before = _child_cpu()
    done = subprocess.run(
        system.command(base_url, n, c), capture_output=True, text=True, timeout=900
    )
    process_cpu = _child_cpu() - before
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        row.problem = f"{system.name} exited {done.returncode}: " + " / ".join(tail)
        return
    measure: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    row.walls.append(measure["wall_s"])
    row.cpus.append(measure["cpu_s"])
    row.process_cpus.append(process_cpu)
    row.failures.append(int(measure["failures"]))


def ensure_inspect_venv(log: list[str]) -> tuple[str | None, str | None]:
    """The inspect_ai venv's python (creating it if needed), or None and why not."""
    python = INSPECT_VENV / "bin" / "python"
    probe = [str(python), "-c", "import inspect_ai, openai, aiohttp"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return str(python), None
    steps = [
        [sys.executable, "-m", "venv", "--clear", str(INSPECT_VENV)],
        [str(python), "-m", "pip", "install", "--quiet", *INSPECT_PACKAGES, "aiohttp"],
    ]
    for step in steps:
        log.append(" ".join(step))
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode != 0:
            tail = " / ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
            return None, f"`{' '.join(step)}` failed: {tail}"
    return str(python), None


def versions(python: str, packages: tuple[str, ...]) -> dict[str, str]:
    """Installed versions of ``packages`` in the interpreter ``python``."""
    code = (
        "import json, importlib.metadata as m, sys\n"
        "out = {}\n"
        "for p in sys.argv[1:]:\n"
        "    try: out[p] = m.version(p)\n"
        "    except m.PackageNotFoundError: out[p] = 'not installed'\n"
        "print(json.dumps(out))"
    )
    done = subprocess.run([python, "-c", code, *packages], capture_output=True, text=True)
    return json.loads(done.stdout) if done.returncode == 0 else {}


def run_workload(
    systems: list[System], latencies: list[float], n: int, c: int, reps: dict[str, int]
) -> list[Row]:
    """Every system at every latency, repetitions interleaved across systems.

    ``reps`` gives the repetitions of a system (``"name"``) or of a system at one latency
    (``"name@0"``; 0 skips it there); ``reps["*"]`` those of the others.
    """
    rows: list[Row] = []

    def count(name: str, latency: float) -> int:
        return reps.get(f"{name}@{latency:g}", reps.get(name, reps.get("*", 1)))

    for latency in latencies:
        chosen = [s for s in systems if count(s.name, latency) > 0]
        here = {s.name: Row(s.name, latency, n, c) for s in chosen}
        with mock_server("--latency-ms", f"{latency:g}") as base_url:
            for rep in range(max((count(s.name, latency) for s in chosen), default=0)):
                for system in chosen:
                    row = here[system.name]
                    if rep < count(system.name, latency) and row.problem is None:
                        print(f"  {system.name} @ {latency:g} ms, rep {rep + 1}", file=sys.stderr)
                        run_once(system, base_url, n, c, row)
        rows.extend(here.values())
    return rows


def default_systems(log: list[str]) -> tuple[list[System], dict[str, str]]:
    """The floor, assay and inspect_ai (when it can be installed), and why any is missing."""
    systems = [System("floor", sys.executable, BENCH / "floor.py")]
    missing: dict[str, str] = {}
    systems.append(System("assay", sys.executable, BENCH / "drive_assay.py"))
    systems.append(
        System("assay (trace off)", sys.executable, BENCH / "drive_assay.py", ("--no-trace",))
    )
    systems.append(System("assay run (CLI)", sys.executable, BENCH / "drive_assay.py", ("--cli",)))
    python, why = ensure_inspect_venv(log)
    if python is None:
        missing["inspect_ai"] = why or "unknown"
    else:
        systems.append(System("inspect_ai", python, BENCH / "drive_inspect.py"))
    return systems, missing


def table(rows: list[Row]) -> list[str]:
    """Markdown table of the rows."""
    lines = [
        "| system | latency | cases | conc. | wall s (median) | CPU s | CPU ms/case "
        "| whole-process CPU s | failures | reps |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        if not row.ok:
            lines.append(
                f"| {row.system} | {row.latency_ms:g} ms | {row.cases} | {row.concurrency} "
                f"| not measured: {row.problem} | | | | | |"
            )
            continue
        lines.append(
            f"| {row.system} | {row.latency_ms:g} ms | {row.cases} | {row.concurrency} "
            f"| {row.wall_s:.2f} | {row.cpu_s:.2f} | {row.cpu_ms_per_case:.3f} "
            f"| {statistics.median(row.process_cpus):.2f} | {max(row.failures)} "
            f"| {len(row.walls)} |"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    """Run the workload and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=2000)
    parser.add_argument("-c", type=int, default=100)
    parser.add_argument("--latency-ms", type=float, action="append")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--inspect-reps", type=int, default=1)
    parser.add_argument("--inspect-at-0", action="store_true", help="run inspect_ai at 0 ms too")
    args = parser.parse_args(argv)
    log: list[str] = []
    systems, missing = default_systems(log)
    reps = {"*": args.reps, "inspect_ai": args.inspect_reps}
    if not args.inspect_at_0:
        reps["inspect_ai@0"] = 0
    rows = run_workload(systems, args.latency_ms or [100.0, 0.0], args.n, args.c, reps)
    print("\n".join(table(rows)))
    for name, why in missing.items():
        print(f"{name}: not measured: {why}")


if __name__ == "__main__":
    main()
