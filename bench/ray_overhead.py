"""Ray executor overhead: the same suite against the same mock server, run by the local
runner and with ``--executor ray`` on a local Ray instance, interleaved.

The suite is the throughput workload (``openai`` target, ``bench/mock_openai.py``); the
runs go through ``assay.runner.run_suite`` into a fresh SQLite store each. Ray's start-up
(``ray.init``) is measured on its own; the Ray run's wall time includes starting its
actors and their targets. Overhead per case-trial = (Ray wall - local wall) / case-trials.

    .venv/bin/python bench/ray_overhead.py --write          # updates bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _mockproc import mock_server  # noqa: E402
from _sections import write_section  # noqa: E402
from drive_assay import KEY_ENV, write_suite  # noqa: E402

SECTION = "ray-overhead"


def _run(suite: Path, folder: Path, executor: str | None) -> tuple[float, str, int]:
    from assay.runner import Overrides, run_suite
    from assay.store import open_store

    name = f"{executor or 'local'}-{time.time_ns()}.db"
    store = open_store(f"sqlite:///{folder / name}")
    try:
        started = time.perf_counter()
        result = run_suite(suite, store, overrides=Overrides(executor=executor))
        wall = time.perf_counter() - started
        return wall, result.status, result.report.statuses.passed
    finally:
        store.close()


def actor_start(suite: Path, c: int) -> float:
    """Seconds to start the actors and their targets (the fixed cost of a Ray run)."""
    import asyncio

    from assay.load import load_suite
    from assay.runner._ray import RaySettings, ray_target

    loaded = load_suite(suite)
    target = ray_target(
        loaded.build_target(), loaded.settings.target, loaded.base_dir, RaySettings(), c
    )
    target.use_dataset(loaded.load_dataset())

    async def cycle() -> float:
        started = time.perf_counter()
        await target.start()
        took = time.perf_counter() - started
        await target.aclose()
        return took

    return asyncio.run(cycle())


def measure(n: int, c: int, latencies: list[float], reps: int) -> tuple[float, list[str]]:
    """Ray's start-up time and one table row per latency."""
    import ray

    os.environ.setdefault(KEY_ENV, "sk-bench-key")
    started = time.perf_counter()
    ray.init(include_dashboard=False, log_to_driver=False)
    init_s = time.perf_counter() - started
    cpus = int(ray.cluster_resources().get("CPU", 1))
    rows = []
    try:
        for latency in latencies:
            with mock_server("--latency-ms", f"{latency:g}") as base_url:
                folder = Path(tempfile.mkdtemp(prefix="assay-ray-bench-"))
                suite = write_suite(folder, base_url, n, c, trace=False)
                walls: dict[str, list[float]] = {"local": [], "ray": []}
                fixed = statistics.median(actor_start(suite, c) for _ in range(reps))
                passed: set[int] = set()
                for _ in range(reps):
                    for executor in (None, "ray"):
                        wall, status, ok = _run(suite, folder, executor)
                        assert status == "completed", status
                        walls[executor or "local"].append(wall)
                        passed.add(ok)
                local = statistics.median(walls["local"])
                on_ray = statistics.median(walls["ray"])
                per = (on_ray - fixed - local) / n * 1000
                rows.append(
                    f"| {latency:g} ms | {n} | {c} | {min(cpus, c)} | {local:.2f} s | "
                    f"{on_ray:.2f} s | {fixed:.2f} s | {n / local:,.0f} | {n / on_ray:,.0f} | "
                    f"{per:+.2f} ms | "
                    f"{'yes' if len(passed) == 1 else '**no**'} |"
                )
    finally:
        ray.shutdown()
    return init_s, rows


def section(init_s: float, rows: list[str], argv: list[str], load: tuple[float, ...]) -> str:
    """The Markdown section for bench/RESULTS.md."""
    return "\n".join(
        [
            "## Ray executor overhead",
            "",
            f"Written by `{' '.join(argv)}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
            f" (load average before the run {load[0]:.1f}, {os.cpu_count()} cores; other work "
            "was running, so the figures are pessimistic): the throughput workload (`openai` "
            "target, `bench/mock_openai.py`, no tracing) run by the local runner and by "
            "`--executor ray` on a local Ray instance, median of the repetitions, interleaved. "
            f"`ray.init()` took {init_s:.1f} s and is not in the figures; the Ray run's wall "
            "time includes starting its actors.",
            "",
            "| mock latency | case-trials | concurrency | actors | local wall | Ray wall | "
            "of which actors' start | local /s | Ray /s | Ray overhead per case-trial "
            "(actors' start excluded) | same figures |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
            *rows,
        ]
    )


def main(argv: list[str] | None = None) -> None:
    """Measure, print the section, and with --write put it in bench/RESULTS.md."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=2000, help="case-trials per run")
    parser.add_argument("-c", type=int, default=32, help="concurrency")
    parser.add_argument("--latency-ms", type=float, action="append")
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    parser.add_argument("--output", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args(argv)
    shown = ["python", "bench/ray_overhead.py", *(argv if argv is not None else sys.argv[1:])]
    load = os.getloadavg()
    init_s, rows = measure(args.n, args.c, args.latency_ms or [0.0, 50.0], args.reps)
    text = section(init_s, rows, shown, load)
    print(text)
    if args.write:
        write_section(args.output, SECTION, text)
        print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
