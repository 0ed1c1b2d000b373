"""Instructions per case of assay's run, counted by callgrind: a figure other work on the
machine does not move.

``drive_assay.py`` runs the workload in one process (the ``openai`` target, the real
runner, tracing on, a SQLite run store) under ``valgrind --tool=callgrind`` at two sizes
against a mock server at 0 ms latency; the difference of the two instruction counts over
the difference of the cases is the cost of one case, interpreter start-up and imports
cancelling out. The floor (``floor.py``, a bare aiohttp client) is counted the same way.
With ``--baseline SRC`` another version of assay (the ``src`` directory of another
checkout) is counted beside this one, with the same interpreter and dependencies.
Instruction counts are not time (a cache miss costs more than an instruction), but a
change that removes instructions from every case removes CPU time from every case.

    .venv/bin/python bench/instructions.py [--sizes 100 600] [--baseline /tmp/main/src] \
        [--write bench/RESULTS.md]

valgrind (Debian's ``valgrind`` package) runs the interpreter about 50 times slower: a
pair of sizes takes a few minutes.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from _bytecode import precompile, precompile_src
from _mockproc import mock_server
from _sections import write_section

BENCH = Path(__file__).resolve().parent
SECTION = "instructions"
_COLLECTED = re.compile(r"Collected : (\d+)")


@dataclass(frozen=True)
class Counted:
    """One system's instruction counts at each size, and the cost of one case."""

    system: str
    counts: dict[int, int]

    @property
    def per_case(self) -> float:
        """Instructions per case: the slope between the smallest and largest size."""
        low, high = min(self.counts), max(self.counts)
        return (self.counts[high] - self.counts[low]) / (high - low)


def load_average() -> str:
    """The 1, 5 and 15-minute load averages."""
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def count(script: str, base_url: str, n: int, env: dict[str, str]) -> int:
    """Instructions callgrind counts in one run of the driver ``script`` over ``n`` cases."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    command += [sys.executable, str(BENCH / script), "--base-url", base_url]
    command += ["-n", str(n), "-c", "100"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        tail = " / ".join(done.stderr.strip().splitlines()[-3:])
        raise SystemExit(f"instructions: {script} -n {n} failed: {tail}")
    return int(found.group(1))


def measure(sizes: list[int], baseline: Path | None) -> list[Counted]:
    """Count the floor, this assay and the baseline's at every size, sizes interleaved."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "ASSAY_BENCH_API_KEY": "bench-not-a-secret"}
    systems: list[tuple[str, str, dict[str, str]]] = [
        ("floor", "floor.py", env),
        ("assay", "drive_assay.py", env),
    ]
    if baseline is not None:
        systems.append(("baseline: assay", "drive_assay.py", {**env, "PYTHONPATH": str(baseline)}))
    counts: dict[str, dict[int, int]] = {name: {} for name, _, _ in systems}
    with mock_server("--latency-ms", "0") as base_url:
        for n in sizes:
            for name, script, system_env in systems:
                counts[name][n] = count(script, base_url, n, system_env)
                print(f"{name} -n {n}: {counts[name][n]:,} instructions", flush=True)
    return [Counted(name, counts[name]) for name, _, _ in systems]


def section(rows: list[Counted], sizes: list[int], loads: tuple[str, str], note: str) -> str:
    """The RESULTS.md section of the counts."""
    lines = [
        "## Instructions per case (callgrind)",
        "",
        "`bench/instructions.py`: each driver run in one process under callgrind at "
        + " and ".join(f"{n:,}" for n in sizes)
        + " cases (0 ms latency, concurrency 100, tracing on); per case = the difference of "
        "the counts over the difference of the cases (start-up and imports cancel out). "
        "Counts move far less with the machine's load than CPU time does; work timed by "
        "the wall clock (the runner writes its records every 0.25 s) still varies.",
        "",
        "| system | " + " | ".join(f"{n:,} cases" for n in sizes) + " | per case |",
        "|---|" + "---:|" * (len(sizes) + 1),
    ]
    for row in rows:
        cells = " | ".join(f"{row.counts[n]:,}" for n in sizes)
        lines.append(f"| {row.system} | {cells} | {row.per_case:,.0f} |")
    floor = next((row for row in rows if row.system == "floor"), None)
    if floor is not None and floor.per_case > 0:
        lines.append("")
        for row in rows:
            if row is not floor:
                share = row.per_case - floor.per_case
                lines.append(
                    f"- {row.system}: {row.per_case / floor.per_case:.2f}× the floor's "
                    f"instructions per case; {share:,.0f} more than the floor per case."
                )
    lines += ["", f"Load average before: {loads[0]}; after: {loads[1]}."]
    if note:
        lines.append(note)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Count and print (or write) the instructions per case."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[100, 600], metavar="N")
    parser.add_argument("--baseline", type=Path, help="another checkout's src directory")
    parser.add_argument("--write", type=Path, help="put the section into this RESULTS.md")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("instructions: valgrind is not installed (apt-get install valgrind)")
    sizes = sorted(set(args.sizes))
    if len(sizes) != 2:
        parser.error("--sizes takes two different sizes")
    note = precompile()  # compiling modules under callgrind would take most of its time
    if args.baseline is not None:
        if not (args.baseline / "assay" / "__init__.py").is_file():
            parser.error(f"--baseline {args.baseline}: no assay package in that directory")
        compiled = precompile_src(sys.executable, args.baseline.resolve())
        note += f" The baseline is the assay in `{args.baseline}`; {compiled}."
    before = load_average()
    rows = measure(sizes, args.baseline.resolve() if args.baseline else None)
    text = section(rows, sizes, (before, load_average()), note)
    print(text)
    if args.write is not None:
        write_section(args.write, SECTION, text)


if __name__ == "__main__":
    main()
