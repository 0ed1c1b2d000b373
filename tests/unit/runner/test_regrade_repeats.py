"""``regrade_run`` with repeats: every repeat kept, a resumed regrade asking as often as it
did, and repeats refused for a grader that judges in process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from tests.judge_server import judge_server

from assay.cases import Case, RequiredFact
from assay.errors import AssayConfigError
from assay.grading import StructuredGrader
from assay.grading.judge import JudgeConfig, JudgeEndpoint, JudgeGrader
from assay.outcomes import Answer, Record
from assay.runner._regrade import regrade_run
from assay.store import RunInfo, RunStore, open_store

CASES = tuple(
    Case(
        id=f"C{i}",
        slice="s",
        question=f"q{i}",
        expected_behavior="answer",
        expected_fact="f",
        required=(RequiredFact(fact="30 days"),),
    )
    for i in range(3)
)


def _pass(body: dict[str, Any]) -> str:
    found = {"id": "R1", "verdict": "present", "evidence": "30 days"}
    return json.dumps({"score": 2, "findings": [found], "rationale": "ok"})


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    opened = open_store(f"sqlite:///{tmp_path}/runs.db")
    info = RunInfo(
        id="20260101-120000-aaaaaa",
        started_at=datetime(2026, 1, 1, 12, tzinfo=UTC),
        dataset_name="d",
        dataset_version="sha256:x",
        graders=[{"name": "structured", "version": "1"}],
        assay_version="0.1.0",
    )
    opened.create_run(info, CASES)
    opened.add_records(
        info.id, [Record(case_id=c.id, outcome=Answer(text="Within 30 days.")) for c in CASES]
    )
    yield opened
    opened.close()


def _judge(url: str) -> JudgeGrader:
    return JudgeGrader(JudgeConfig(model="m"), endpoint=JudgeEndpoint(base_url=url, retries=0))


def _repeats_of(store: RunStore, run_id: str) -> dict[str, int]:
    kept = store.repeat_judgments(run_id, "judge", _judge("http://x/v1").version)
    return {case_id: len(each) for (case_id, _), each in kept.items()}


def test_a_resumed_regrade_asks_as_often_as_it_did(store: RunStore) -> None:
    with judge_server(_pass) as url:
        first = regrade_run(store, "20260101-120000-aaaaaa", _judge(url), repeats=3)
        assert _repeats_of(store, first.run_id) == {"C0": 3, "C1": 3, "C2": 3}
        # as if stopped before C2 was judged
        with store.engine.begin() as conn:
            for table in ("judgments", "records"):
                conn.execute(
                    text(f"DELETE FROM {table} WHERE run_id = :r AND case_id = 'C2'"),
                    {"r": first.run_id},
                )
        resumed = regrade_run(store, "20260101-120000-aaaaaa", _judge(url), resume=first.run_id)
        with pytest.raises(AssayConfigError, match="resume it with --repeats 3"):
            regrade_run(
                store, "20260101-120000-aaaaaa", _judge(url), resume=first.run_id, repeats=2
            )
    assert resumed.run_id == first.run_id and resumed.ran == 1
    assert _repeats_of(store, first.run_id) == {"C0": 3, "C1": 3, "C2": 3}
    assert resumed.report.judge_noise is not None
    assert resumed.report.judge_noise.judged == 3


def test_repeats_are_refused_for_a_grader_that_judges_in_process(store: RunStore) -> None:
    with pytest.raises(AssayConfigError, match="only a model judge"):
        regrade_run(store, "20260101-120000-aaaaaa", StructuredGrader(), repeats=2)
    with pytest.raises(AssayConfigError, match="from 1 to 25"):
        regrade_run(store, "20260101-120000-aaaaaa", StructuredGrader(), repeats=26)
