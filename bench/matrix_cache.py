"""Matrix runs and the response cache, measured against the mock server.

A matrix of ``--variants`` variants × ``-n`` cases (the ``openai`` target, one endpoint,
the suite's concurrency shared by the variants) at 100 ms latency, against five single
runs' floor (the bare aiohttp client sending each run's ``-n`` requests at the same
concurrency, one run after the other); then the same matrix again with every reply served
from the response cache: its CPU time, and the requests the mock received (none expected).

    .venv/bin/python bench/matrix_cache.py [-n 2000] [--variants 5] [-c 100] [--write]

``--write`` puts the section into bench/RESULTS.md (replacing the previous one);
``make bench`` (run_all.py) writes it too.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _mockproc import mock_server
from _results import Goal
from drive_assay import KEY_ENV, _warm_imports, write_suite
from floor import run_floor

BENCH = Path(__file__).resolve().parent
TITLE = "## Matrix runs and the response cache"
MATRIX_GOAL = 1.3
CACHED_CPU_GOAL_S = 2.0


@dataclass(frozen=True)
class MatrixMeasure:
    """What one measurement found."""

    cases: int
    variants: int
    concurrency: int
    latency_ms: float
    floor_walls: tuple[float, ...]
    matrix_wall_s: float
    matrix_cpu_s: float
    matrix_requests: int
    matrix_failures: int
    cached_wall_s: float
    cached_cpu_s: float
    cached_requests: int
    cached_served: int
    report_cpu_s: float
    load_before: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)
    commit: str = ""

    @property
    def floor_s(self) -> float:
        return sum(self.floor_walls)

    @property
    def case_trials(self) -> int:
        return self.cases * self.variants


def _served(base_url: str) -> int:
    root = base_url.rsplit("/v1", 1)[0]
    with urllib.request.urlopen(f"{root}/stats", timeout=10) as response:
        data: dict[str, Any] = json.loads(response.read())
    return int(data["served"]) + int(data["failed"])


def _matrix_suite(folder: Path, base_url: str, n: int, c: int) -> Path:
    suite = write_suite(folder, base_url, n, c)
    data = json.loads(suite.read_text())
    data["cache"] = {"path": str(folder / "cache.db")}
    suite.write_text(json.dumps(data, indent=2))
    return suite


def measure(n: int, variants: int, c: int, latency_ms: float = 100.0) -> MatrixMeasure:
    """Floor runs, the matrix, and the fully cached rerun, against one mock server."""
    from assay.runner import matrix_report, run_matrix
    from assay.store import open_store

    _warm_imports()
    os.environ[KEY_ENV] = "bench-not-a-secret"
    load_before = os.getloadavg()
    sets = ("target.seed=" + ",".join(str(s) for s in range(1, variants + 1)),)
    with mock_server("--latency-ms", f"{latency_ms:g}") as base_url:
        floors = tuple(run_floor(base_url, n, c).wall_s for _ in range(variants))
        with tempfile.TemporaryDirectory(prefix="assay-bench-matrix-") as tmp:
            suite = _matrix_suite(Path(tmp), base_url, n, c)
            store = open_store(f"sqlite:///{tmp}/assay.db")
            before = _served(base_url)
            wall0, cpu0 = time.perf_counter(), time.process_time()
            first = run_matrix(suite, store, sets=sets)
            wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
            middle = _served(base_url)
            wall0, cpu0 = time.perf_counter(), time.process_time()
            again = run_matrix(suite, store, sets=sets)
            cwall, ccpu = time.perf_counter() - wall0, time.process_time() - cpu0
            after = _served(base_url)
            cpu0 = time.process_time()
            matrix_report(store, again.matrix_id)
            report_cpu = time.process_time() - cpu0
            store.close()
    failures = sum(r.report.total - r.report.success for r in first.runs)
    served = sum(r.report.cache.served for r in again.runs if r.report.cache is not None)
    return MatrixMeasure(
        cases=n,
        variants=variants,
        concurrency=c,
        latency_ms=latency_ms,
        floor_walls=floors,
        matrix_wall_s=wall,
        matrix_cpu_s=cpu,
        matrix_requests=middle - before,
        matrix_failures=failures,
        cached_wall_s=cwall,
        cached_cpu_s=ccpu,
        cached_requests=after - middle,
        cached_served=served,
        report_cpu_s=report_cpu,
        load_before=load_before,
        load_after=os.getloadavg(),
        commit=_commit(),
    )


def _commit() -> str:
    import subprocess

    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=BENCH, capture_output=True, text=True
    )
    return done.stdout.strip() or "unknown"


def goals_of(m: MatrixMeasure) -> list[Goal]:
    """The two goals: matrix wall time against the floor, CPU of the cached rerun."""
    ratio = m.matrix_wall_s / m.floor_s
    wall = Goal(
        f"{m.variants}-variant × {m.cases}-case matrix wall time / {m.variants} single runs' "
        f"floor ({m.latency_ms:g} ms)",
        f"≤ {MATRIX_GOAL}×",
        f"{ratio:.2f}× ({m.matrix_wall_s:.2f} s / {m.floor_s:.2f} s)",
        ratio <= MATRIX_GOAL,
    )
    complete = m.cached_requests == 0 and m.cached_served == m.case_trials
    cached = Goal(
        f"fully cached rerun of {m.case_trials} case-trials: CPU time",
        f"< {CACHED_CPU_GOAL_S:g} s, 0 requests",
        f"{m.cached_cpu_s:.2f} s, {m.cached_requests} requests, "
        f"{m.cached_served} served from the cache",
        m.cached_cpu_s < CACHED_CPU_GOAL_S and complete,
    )
    return [wall, cached]


def section(m: MatrixMeasure) -> list[str]:
    """The RESULTS.md section for ``m``."""
    walls = ", ".join(f"{w:.2f}" for w in m.floor_walls)
    return [
        TITLE,
        "",
        f"`.venv/bin/python bench/matrix_cache.py -n {m.cases} --variants {m.variants} "
        f"-c {m.concurrency}`: the throughput workload's suite (the `openai` target, tracing "
        f"on, `cache: true`) with `--set target.seed=1,…,{m.variants}`: {m.variants} variants "
        f"on one endpoint sharing its concurrency of {m.concurrency}, against "
        f"`bench/mock_openai.py` at {m.latency_ms:g} ms. The floor is the bare aiohttp client "
        f"sending {m.cases} requests at concurrency {m.concurrency}, {m.variants} times one "
        "after the other (five single runs). Then the same matrix again: every reply from the "
        "cache. Wall and CPU are measured in the driver's process (imports excluded); the "
        "mock counts the requests it received.",
        "",
        f"Measured at commit {m.commit}; load average (1/5/15 min) at the start "
        f"{' / '.join(f'{x:.2f}' for x in m.load_before)}, at the end "
        f"{' / '.join(f'{x:.2f}' for x in m.load_after)} on "
        f"{os.cpu_count()} logical cores.",
        "",
        "| goal | target | measured | verdict |",
        "|---|---|---|---|",
        *(f"| {g.name} | {g.target} | {g.figure} | {g.verdict} |" for g in goals_of(m)),
        "",
        "| measure | value |",
        "|---|---:|",
        f"| floor: {m.variants} single runs, wall s each | {walls} |",
        f"| floor: sum, s | {m.floor_s:.2f} |",
        f"| matrix: wall s | {m.matrix_wall_s:.2f} |",
        f"| matrix: CPU s | {m.matrix_cpu_s:.2f} |",
        f"| matrix: requests received by the mock | {m.matrix_requests} |",
        f"| matrix: case-trials not passed | {m.matrix_failures} |",
        f"| cached rerun: wall s | {m.cached_wall_s:.2f} |",
        f"| cached rerun: CPU s | {m.cached_cpu_s:.2f} |",
        f"| cached rerun: CPU ms per case-trial | {1000 * m.cached_cpu_s / m.case_trials:.3f} |",
        f"| cached rerun: requests received by the mock | {m.cached_requests} |",
        f"| cached rerun: case-trials served from the cache | {m.cached_served} |",
        f"| `assay matrix` report ({m.variants * (m.variants - 1) // 2} pairs): CPU s "
        f"| {m.report_cpu_s:.2f} |",
        "",
    ]


def write_section(path: Path, lines: list[str]) -> None:
    """Replace the section in ``path`` (or add it at the end)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    block = "\n".join(lines)
    if TITLE in text:
        head, _, rest = text.partition(TITLE)
        following = rest.find("\n## ")
        tail = rest[following + 1 :] if following != -1 else ""
        text = head + block + "\n" + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=2000, help="cases per variant")
    parser.add_argument("--variants", type=int, default=5)
    parser.add_argument("-c", type=int, default=100, help="the endpoint's concurrency")
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    args = parser.parse_args(argv)
    m = measure(args.n, args.variants, args.c, args.latency_ms)
    lines = section(m)
    print("\n".join(lines))
    if args.write:
        write_section(BENCH / "RESULTS.md", lines)
        print(f"wrote {BENCH / 'RESULTS.md'}", file=sys.stderr)


if __name__ == "__main__":
    main()
