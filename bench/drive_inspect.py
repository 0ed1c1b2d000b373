"""Run the workload through inspect_ai (openai-api provider) and print its measure as JSON.

Runs inside ``bench/.venv-inspect`` (which ``throughput.py`` creates), never assay's venv.
Each sample is generated once against the mock and scored with ``includes()`` (the fact
in the reply), logs go to a temporary directory. Wall and process CPU time cover
``eval()`` alone; imports are outside the measure.

    bench/.venv-inspect/bin/python bench/drive_inspect.py --base-url URL -n 2000 -c 100
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, system_message
from workload import MODEL, SYSTEM_PROMPT, cases


def _task(n: int) -> Task:
    samples = [
        Sample(id=record["id"], input=record["question"], target=record["expected_fact"])
        for record in cases(n)
    ]
    return Task(
        dataset=samples, solver=[system_message(SYSTEM_PROMPT), generate()], scorer=includes()
    )


def main(argv: list[str] | None = None) -> None:
    """Run inspect_ai once over ``-n`` samples at ``-c`` connections and print the measure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("-n", type=int, default=2000)
    parser.add_argument("-c", type=int, default=100)
    args = parser.parse_args(argv)
    os.environ["MOCK_API_KEY"] = "bench-not-a-secret"
    task = _task(args.n)
    with tempfile.TemporaryDirectory(prefix="assay-bench-inspect-") as logs:
        wall0, cpu0 = time.perf_counter(), time.process_time()
        logs_out = eval(
            task,
            model=f"openai-api/mock/{MODEL}",
            model_base_url=args.base_url,
            max_connections=args.c,
            max_samples=args.c,
            temperature=0.0,
            seed=1,
            log_dir=logs,
            display="none",
        )
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    log = logs_out[0]
    samples = log.results.total_samples if log.results else 0
    completed = log.results.completed_samples if log.results else 0
    measure = {
        "system": "inspect_ai",
        "cases": args.n,
        "concurrency": args.c,
        "wall_s": wall,
        "cpu_s": cpu,
        "failures": args.n - completed,
        "status": log.status,
        "samples": samples,
    }
    print(json.dumps(measure))


if __name__ == "__main__":
    main()
