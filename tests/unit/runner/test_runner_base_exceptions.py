"""A target that raises a BaseException (sys.exit, KeyboardInterrupt, GeneratorExit,
CancelledError, a bare BaseException) fails that case-trial, never the run: every other
case-trial runs and every finished one is stored."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.outcomes import Error
from assay.runner import run_suite
from assay.store import open_store

APP = """
import asyncio
import sys

FAULTS = {
    "C1": lambda: sys.exit(2),
    "C2": lambda: sys.exit("bad arguments"),
    "C3": KeyboardInterrupt,
    "C4": GeneratorExit,
    "C5": asyncio.CancelledError,
    "C6": BaseException,
    "C7": lambda: (_ for _ in ()).throw(SystemExit(0)),
}


def _fail(case):
    fault = FAULTS.get(case.id)
    if fault is None:
        return {"kind": "answer", "fact": "f"}
    raised = fault()
    raise raised


def sync_target(case):
    return _fail(case)


async def async_target(case):
    await asyncio.sleep(0)
    return _fail(case)
"""

EXPECTED = {
    "C1": "exception:SystemExit",
    "C2": "exception:SystemExit",
    "C3": "exception:KeyboardInterrupt",
    "C4": "exception:GeneratorExit",
    "C5": "exception:CancelledError",
    "C6": "exception:BaseException",
    "C7": "exception:SystemExit",
}


@pytest.fixture
def app_dir(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "faulty_app.py").write_text(APP)
    cases = [
        {"id": f"C{i}", "slice": "s", "question": "q", "expected_behavior": "answer",
         "expected_fact": "f"}
        for i in range(1, 10)
    ]  # fmt: skip
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    yield tmp_path
    sys.modules.pop("faulty_app", None)


@pytest.mark.parametrize("function", ["sync_target", "async_target"])
@pytest.mark.parametrize("concurrency", [1, 4])
def test_every_base_exception_is_an_error_outcome_and_the_run_goes_on(
    app_dir: Path, function: str, concurrency: int
) -> None:
    suite = app_dir / "suite.yaml"
    suite.write_text(
        f"dataset: cases.jsonl\ntarget: {{type: function, callable: faulty_app:{function}}}\n"
        f"concurrency: {concurrency}\ntrials: 2\nretries: 0\ntrace: false\n"
    )
    store = open_store(f"sqlite:///{app_dir / 'runs.db'}")
    try:
        result = run_suite(suite, store)
        records = store.records(result.run_id)
        status = store.get_run(result.run_id).status
    finally:
        store.close()
    assert result.status == status == "completed"
    assert len(records) == 18  # 9 cases x 2 trials, none lost
    for record in records:
        outcome = record.outcome
        if record.case_id in EXPECTED:
            assert isinstance(outcome, Error), record
            assert outcome.error_class == EXPECTED[record.case_id]
        else:
            assert outcome.kind == "answer"
    assert result.report.statuses.error == 14 and result.report.statuses.passed == 4
