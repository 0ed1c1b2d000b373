"""Several ``assay run`` processes writing one store at once while readers read it.

Each writer is the real CLI (``python -m assay run``) over the same suite: a function
target that answers at once, so the store is what is measured. While they write, this
process reads the store as a team would: ``list_runs``, each running run's report (its
statuses must always add up to the run's case-trials), the read-only viewer's pages, and
``assay gate`` on a run in progress. At the end every run must hold each case-trial exactly
once, with the figures the target's answers imply.

Used by the slow test (tests/unit/store/test_store_load.py) and bench/store_load.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import func, select

ROOT = Path(__file__).resolve().parents[1]
SUITE_NAME = "store-load"

_TARGET = '''"""Answers every case at once: wrong for every third case, an error for every 50th."""


async def answer(case):
    number = int(case.id[1:])
    if number % 50 == 0:
        return {"kind": "error", "class": "http_5xx", "message": "planted failure"}
    return {"fact": "wrong" if number % 3 == 0 else "right"}
'''


def write_suite(folder: Path, cases: int, trials: int, concurrency: int = 32) -> Path:
    """A suite of ``cases`` cases x ``trials`` trials in ``folder``; returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "cases.jsonl").open("w", encoding="utf-8") as out:
        for i in range(1, cases + 1):
            case = {
                "id": f"C{i}",
                "slice": f"s{i % 4}",
                "question": f"question {i}?",
                "source_revision": "r1",
                "expected_behavior": "answer",
                "expected_fact": "right",
                "rationale": "load",
            }
            out.write(json.dumps(case) + "\n")
    (folder / "loadapp.py").write_text(_TARGET, encoding="utf-8")
    suite = folder / "suite.yaml"
    suite.write_text(
        f"name: {SUITE_NAME}\ndataset: cases.jsonl\n"
        "target:\n  type: function\n  callable: loadapp:answer\n"
        f"grader: structured\nconcurrency: {concurrency}\ntrials: {trials}\ntrace: false\n",
        encoding="utf-8",
    )
    return suite


def expected_counts(cases: int, trials: int) -> dict[str, int]:
    """passed/failed/error of one run of the suite ``write_suite`` wrote."""
    errors = sum(1 for i in range(1, cases + 1) if i % 50 == 0)
    failed = sum(1 for i in range(1, cases + 1) if i % 3 == 0 and i % 50 != 0)
    passed = cases - errors - failed
    return {"passed": passed * trials, "failed": failed * trials, "error": errors * trials}


@dataclass
class Load:
    """What a load did and found."""

    runs: int
    cases: int
    trials: int
    url: str
    wall_s: float = 0.0
    writing_s: float = 0.0
    """From the first run's recorded start to the last run's recorded end."""
    exit_codes: list[int] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    run_ids: list[str] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    recorded: list[int] = field(default_factory=list)
    distinct: list[int] = field(default_factory=list)
    counts: list[dict[str, int]] = field(default_factory=list)
    reports_read: int = 0
    unbalanced_reads: int = 0
    pages_read: int = 0
    bad_pages: list[str] = field(default_factory=list)
    gate_codes: list[int] = field(default_factory=list)
    gate_tracebacks: int = 0

    @property
    def expected(self) -> int:
        """Case-trials of one run."""
        return self.cases * self.trials

    @property
    def lost(self) -> int:
        done = [d for d, code in zip(self.distinct, self.exit_codes, strict=False) if code == 0]
        return sum(self.expected - d for d in done)

    @property
    def duplicated(self) -> int:
        return sum(r - d for r, d in zip(self.recorded, self.distinct, strict=True))

    @property
    def throughput(self) -> float:
        """Case-trials stored per second of writing, all writers together."""
        return sum(self.distinct) / self.writing_s if self.writing_s else 0.0


def _writers(suite: Path, url: str, runs: int) -> list[subprocess.Popen[str]]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120", "ASSAY_STORE": url}
    command = [sys.executable, "-m", "assay", "run", str(suite), "--store", url, "-f", "json"]
    return [
        subprocess.Popen(
            command,
            cwd=suite.parent,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(runs)
    ]


def _read_while_writing(load: Load, procs: list[subprocess.Popen[str]]) -> None:
    """Read the store the way a team does until every writer has ended."""
    from starlette.testclient import TestClient

    from assay.runner import report_for_run
    from assay.store import open_store
    from assay.view import create_app

    store = open_store(load.url)
    viewer = TestClient(
        create_app(open_store(load.url, read_only=True)), base_url="http://127.0.0.1"
    )
    turn = 0
    gate: threading.Thread | None = None
    try:
        while any(p.poll() is None for p in procs):
            ours = [r for r in store.list_runs() if r.suite_name == SUITE_NAME]
            running = [r for r in ours if r.status == "running"]
            for path in ("/", *(f"/runs/{r.id}" for r in running[:1])):
                page = viewer.get(path)
                load.pages_read += 1
                if page.status_code != 200:
                    load.bad_pages.append(f"{path}: {page.status_code}")
            if running:
                chosen = running[turn % len(running)]
                turn += 1
                report = report_for_run(store, chosen.id)
                load.reports_read += 1
                counts = report.statuses
                if not counts.total == report.total == load.expected:
                    load.unbalanced_reads += 1
                if gate is None:  # once, beside the other reads
                    gate = threading.Thread(target=_gate, args=(load, chosen.id))
                    gate.start()
            time.sleep(0.2)
    finally:
        if gate is not None:
            gate.join()
        viewer.close()
        store.close()


def _gate(load: Load, run_id: str) -> None:
    gate = subprocess.run(
        [sys.executable, "-m", "assay", "gate", run_id, "-r", "errors<=100000"],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", "ASSAY_STORE": load.url},
        timeout=300,
        check=False,
    )
    load.gate_codes.append(gate.returncode)
    load.gate_tracebacks += "Traceback" in gate.stderr + gate.stdout


def run_load(url: str, folder: Path, runs: int, cases: int, trials: int) -> Load:
    """``runs`` concurrent runs of ``cases`` x ``trials`` into the store at ``url``."""
    from assay.runner import report_for_run
    from assay.store import open_store
    from assay.store._schema import records

    suite = write_suite(folder, cases, trials)
    load = Load(runs, cases, trials, url)
    open_store(url).close()  # created and migrated before the writers start
    started = time.perf_counter()
    procs = _writers(suite, url, runs)
    try:
        _read_while_writing(load, procs)
        for proc in procs:
            _, err = proc.communicate(timeout=600)
            load.exit_codes.append(proc.returncode)
            load.stderr.append(err)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    load.wall_s = time.perf_counter() - started
    store = open_store(url)
    try:
        ours = [r for r in store.list_runs() if r.suite_name == SUITE_NAME]
        ends = [r.ended_at for r in ours if r.ended_at is not None]
        if ours and ends:
            first = min(r.started_at for r in ours)
            load.writing_s = (max(ends) - first).total_seconds()
        for info in sorted(ours, key=lambda r: r.id):
            load.run_ids.append(info.id)
            load.statuses.append(info.status)
            with store.engine.connect() as conn:
                where = records.c.run_id == info.id
                count = select(func.count()).select_from(records).where(where)
                load.recorded.append(int(conn.execute(count).scalar() or 0))
                keys = select(records.c.case_id, records.c.trial).where(where).distinct()
                distinct = select(func.count()).select_from(keys.subquery())
                load.distinct.append(int(conn.execute(distinct).scalar() or 0))
            counts = report_for_run(store, info.id).statuses.model_dump()
            load.counts.append({k: v for k, v in counts.items() if v})
    finally:
        store.close()
    return load
