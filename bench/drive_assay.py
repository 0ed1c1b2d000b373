"""Run the workload through assay's ``openai`` target and the real runner; print the measure.

Writes a suite and its dataset to a temporary directory, then runs it with
``assay.runner.run_suite`` into a fresh SQLite run store there: everything ``assay run``
does (target calls, parsing, grading, batched storage, the final report) except process
start-up and the terminal. Wall and process CPU time cover opening the store and the run;
the modules the run needs are imported before the clock starts, as the other drivers do.
With ``--cli`` it runs ``assay run SUITE --format json`` as a child process instead and
measures that whole process from outside (start-up, imports and rendering included).

    .venv/bin/python bench/drive_assay.py --base-url http://127.0.0.1:8000/v1 -n 2000 -c 100
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _profiling import profiled
from workload import MODEL, SYSTEM_PROMPT, write_dataset

KEY_ENV = "ASSAY_BENCH_API_KEY"


def write_suite(folder: Path, base_url: str, n: int, c: int, trace: bool = True) -> Path:
    """A suite file (JSON is YAML) and its dataset of ``n`` cases in ``folder``."""
    write_dataset(folder / "dataset.jsonl", n)
    suite: dict[str, Any] = {
        "name": "bench",
        "dataset": "dataset.jsonl",
        "target": {
            "type": "openai",
            "base_url": base_url,
            "model": MODEL,
            "api_key_env": KEY_ENV,
            "system_prompt": SYSTEM_PROMPT,
            "temperature": 0,
            "seed": 1,
        },
        "concurrency": c,
        "trials": 1,
        "timeout_s": 60,
        "retries": 2,
        "trace": trace,
    }
    path = folder / "suite.yaml"
    path.write_text(json.dumps(suite, indent=2))
    return path


def _warm_imports() -> None:
    """Import what the run imports lazily, so the measure excludes import time."""
    modules = (
        "aiohttp",
        "sqlalchemy.dialects.sqlite",
        "yaml",
        "scipy.special",
        "opentelemetry.sdk.trace",
        "assay.load",
        "assay.targets.openai",
        "assay.tracing",
        "assay.report",
    )
    for name in modules:
        importlib.import_module(name)
    from assay.targets import target_types

    target_types()  # imports every built-in target module, as building a target does


def run(
    base_url: str, n: int, c: int, trace: bool = True, profile: str | None = None
) -> dict[str, Any]:
    """Run the suite once and return the measure (profiling the run into ``profile``)."""
    from assay.runner import run_suite
    from assay.store import open_store

    _warm_imports()
    os.environ[KEY_ENV] = "bench-not-a-secret"
    with tempfile.TemporaryDirectory(prefix="assay-bench-") as tmp:
        suite = write_suite(Path(tmp), base_url, n, c, trace)
        with profiled(profile):
            wall0, cpu0 = time.perf_counter(), time.process_time()
            store = open_store(f"sqlite:///{tmp}/assay.db")
            result = run_suite(suite, store)
            wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        stored = len(store.records(result.run_id))
        store.close()
    report = result.report
    return {
        "system": "assay" if trace else "assay (trace off)",
        "cases": n,
        "concurrency": c,
        "wall_s": wall,
        "cpu_s": cpu,
        "failures": max(report.total - report.success, n - stored),
        "status": result.status,
        "stored": stored,
    }


def run_cli(base_url: str, n: int, c: int, trace: bool = True) -> dict[str, Any]:
    """Run ``assay run`` once as a child process and return its measure."""
    assay = Path(sys.executable).with_name("assay")
    env = {**os.environ, KEY_ENV: "bench-not-a-secret"}
    with tempfile.TemporaryDirectory(prefix="assay-bench-cli-") as tmp:
        suite = write_suite(Path(tmp), base_url, n, c, trace)
        command = [str(assay), "run", str(suite), "--format", "json"]
        command += ["--store", f"sqlite:///{tmp}/assay.db"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall0 = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp)
        wall = time.perf_counter() - wall0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"assay run exited {done.returncode}: {done.stderr.strip()[-500:]}")
    report = json.loads(done.stdout)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {
        "system": "assay run (CLI process)",
        "cases": n,
        "concurrency": c,
        "wall_s": wall,
        "cpu_s": cpu,
        "failures": report["total"] - report["success"],
    }


def main(argv: list[str] | None = None) -> None:
    """Run assay once over ``-n`` cases at concurrency ``-c`` and print the measure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("-n", type=int, default=2000)
    parser.add_argument("-c", type=int, default=100)
    parser.add_argument("--no-trace", action="store_true", help="run with tracing off")
    parser.add_argument("--cli", action="store_true", help="measure an `assay run` process")
    parser.add_argument("--profile", metavar="FILE", help="write a CPU profile of the run")
    args = parser.parse_args(argv)
    if args.cli:
        measure = run_cli(args.base_url, args.n, args.c, not args.no_trace)
    else:
        measure = run(args.base_url, args.n, args.c, not args.no_trace, args.profile)
    print(json.dumps(measure))


if __name__ == "__main__":
    main()
