"""``RunStore.rejudge`` on each store (SQLite and a real PostgreSQL): a case-trial judged
again on what its spans describe gets the new ``extra`` and the new judgment with its
repeats, in place of the old ones; its outcome and everything else stay as stored."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from assay.cases import Case
from assay.grading import Judgment, kept_repeats
from assay.outcomes import Answer, Record
from assay.store import RunInfo, RunStore, open_store

CASES = (Case(id="C", slice="s", question="q", expected_behavior="answer", expected_fact="f"),)
GRADER = {"name": "a-judge", "version": "1"}


@pytest.fixture
def store(store_url: str) -> Iterator[RunStore]:
    opened = open_store(store_url)
    yield opened
    opened.close()


def _j(status: str, reason: str) -> Judgment:
    return Judgment(
        case_id="C",
        trial=1,
        status=status,  # type: ignore[arg-type]
        reason=reason,
        grader=GRADER["name"],
        grader_version=GRADER["version"],
    )


def test_a_case_trial_judged_again_keeps_its_outcome_and_replaces_its_judgments(
    store: RunStore,
) -> None:
    info = RunInfo(
        id="20260101-120000-aaaaaa",
        started_at=datetime(2026, 1, 1, 12, tzinfo=UTC),
        dataset_name="d",
        dataset_version="sha256:x",
        graders=[GRADER | {"repeats": "2"}],
        trials=1,
        assay_version="0.1.0",
    )
    store.create_run(info, CASES)
    record = Record(case_id="C", outcome=Answer(text="done"), latency_ms=12.5, extra={"a": 1})
    first = _j("ungraded", "cannot evaluate: no trajectory")
    store.add_results(info.id, [record], [first, *kept_repeats([first, first])])

    again = record.model_copy(update={"extra": {"a": 1, "trajectory": {"steps": []}}})
    failed = _j("failed", "critical check failed")
    store.rejudge(info.id, [again], [failed, *kept_repeats([failed, _j("passed", "ok")])])

    (kept,) = store.records(info.id)
    assert kept.outcome == record.outcome and kept.latency_ms == 12.5
    assert kept.extra == {"a": 1, "trajectory": {"steps": []}}
    (judged,) = store.judgments(info.id)
    assert (judged.status, judged.reason) == ("failed", "critical check failed")
    repeats = store.repeat_judgments(info.id, GRADER["name"], GRADER["version"])
    assert [j.status for j in repeats[("C", 1)]] == ["failed", "passed"]
