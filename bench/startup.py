"""Start-up time of ``assay --help`` and the heavy modules it imports.

Times N fresh processes of ``assay --help`` interleaved with N of ``python -c pass`` (the
interpreter's own start-up, same run), reports both medians and their ratio, then runs
``python -X importtime`` once to list which heavy packages ``assay --help`` imports.
Importing scipy, sqlalchemy, aiohttp or opentelemetry there is a failure (exit 1): those
belong inside the commands that use them.

    .venv/bin/python bench/startup.py --runs 20
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from _bytecode import precompile

GOAL_S = 0.3
HEAVY = ("scipy", "pydantic", "sqlalchemy", "aiohttp", "opentelemetry")
BANNED = frozenset({"scipy", "sqlalchemy", "aiohttp", "opentelemetry"})


@dataclass(frozen=True)
class Startup:
    """Median start-up times, the ratio to a bare interpreter, and heavy imports."""

    runs: int
    assay_s: float
    python_s: float
    assay_cpu_s: float
    python_cpu_s: float
    heavy_imported: dict[str, float]
    top_imports: list[tuple[str, float]]
    command: list[str]

    @property
    def ratio(self) -> float:
        """``assay --help`` median over ``python -c pass`` median."""
        return self.assay_s / self.python_s

    @property
    def eager(self) -> list[str]:
        """Banned heavy packages that ``assay --help`` imports."""
        return sorted(BANNED & self.heavy_imported.keys())

    @property
    def met(self) -> bool:
        """Under the goal and with no banned eager import."""
        return self.assay_s < GOAL_S and not self.eager


def assay_command(python: str = sys.executable) -> list[str]:
    """``assay --help`` through the console script installed beside ``python``."""
    script = Path(python).with_name("assay")
    if not script.exists():
        raise SystemExit(f"startup: no assay console script at {script}; run `make dev`")
    return [str(script), "--help"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _time(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command``."""
    cpu = _children_cpu()
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, _children_cpu() - cpu


def import_times(python: str, command: list[str]) -> dict[str, float]:
    """Cumulative import time in seconds of every module ``command`` imports, by name."""
    done = subprocess.run(
        [python, "-X", "importtime", *command],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    found: dict[str, float] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line[len("import time:") :].split("|")
        found[name.strip()] = max(found.get(name.strip(), 0.0), int(cumulative) / 1e6)
    return found


def measure(runs: int, python: str = sys.executable) -> Startup:
    """Measure ``assay --help`` start-up against ``python -c pass``, ``runs`` times each."""
    command = assay_command(python)
    baseline = [python, "-c", "pass"]
    precompile(python)  # as an installed assay: no module compiled from source per process
    _time(command)  # warm the file cache before timing
    assay_times, python_times = [], []
    for _ in range(runs):
        python_times.append(_time(baseline))
        assay_times.append(_time(command))
    modules = import_times(python, command)
    heavy = {name: modules[name] for name in HEAVY if name in modules}
    top = sorted(
        ((name, s) for name, s in modules.items() if name.startswith("assay") or "." not in name),
        key=lambda item: -item[1],
    )
    return Startup(
        runs=runs,
        assay_s=statistics.median(wall for wall, _ in assay_times),
        python_s=statistics.median(wall for wall, _ in python_times),
        assay_cpu_s=statistics.median(cpu for _, cpu in assay_times),
        python_cpu_s=statistics.median(cpu for _, cpu in python_times),
        heavy_imported=heavy,
        top_imports=top[:8],
        command=command,
    )


def describe(result: Startup) -> list[str]:
    """Human-readable lines; a banned eager import is a line starting with ``FAIL``."""
    heavy = ", ".join(f"{n} ({s * 1000:.0f} ms)" for n, s in result.heavy_imported.items())
    lines = [
        f"assay --help: median {result.assay_s * 1000:.0f} ms over {result.runs} runs "
        f"(goal < {GOAL_S * 1000:.0f} ms: {'met' if result.assay_s < GOAL_S else 'NOT met'})",
        f"python -c pass: median {result.python_s * 1000:.0f} ms; ratio {result.ratio:.1f}x",
        f"CPU time (median): assay --help {result.assay_cpu_s * 1000:.0f} ms, "
        f"python -c pass {result.python_cpu_s * 1000:.0f} ms",
        f"heavy packages imported: {heavy or 'none'}",
    ]
    lines += [f"FAIL: assay --help imports {name} eagerly" for name in result.eager]
    return lines


def main(argv: list[str] | None = None) -> None:
    """Measure and print; exit 1 when a banned package is imported eagerly."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    result = measure(parser.parse_args(argv).runs)
    print("\n".join(describe(result)))
    if result.eager:
        sys.exit(1)


if __name__ == "__main__":
    main()
