"""The run store on SQLite and PostgreSQL: runs, records, judgments, spans, ids."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from assay.cases import Case
from assay.errors import AssayInputError
from assay.grading import Judgment
from assay.outcomes import Abstain, Answer, Error, Record, Span, Usage
from assay.store import RunInfo, RunStore, open_store, redact

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
CASES = tuple(
    Case(id=f"C{i}", slice="s", question=f"q{i}", expected_behavior="answer", expected_fact="f")
    for i in range(4)
)


def _info(run_id: str, started: datetime = T0, **extra: object) -> RunInfo:
    return RunInfo(
        id=run_id,
        started_at=started,
        dataset_name="d",
        dataset_version="sha256:x",
        target={"type": "scripted"},
        target_hash="sha256:t",
        trials=2,
        assay_version="0.1.0",
        **extra,
    )  # type: ignore[arg-type]


@pytest.fixture
def store(store_url: str) -> Iterator[RunStore]:
    opened = open_store(store_url)
    yield opened
    opened.close()


def test_runs_round_trip_and_list_newest_first(store: RunStore) -> None:
    store.create_run(_info("20260101-a", metadata={"model": "m"}, packages={"x": "1"}), CASES)
    store.create_run(_info("20260102-b", T0 + timedelta(days=1)), CASES)
    first = store.get_run("20260101-a")
    assert first.metadata == {"model": "m"} and first.packages == {"x": "1"}
    assert first.started_at == T0 and first.status == "running"
    assert [r.id for r in store.list_runs()] == ["20260102-b", "20260101-a"]
    assert store.load_dataset("20260101-a").cases == CASES


def test_a_unique_prefix_finds_a_run_and_unknown_ids_suggest(store: RunStore) -> None:
    store.create_run(_info("20260101-aaa"), CASES)
    store.create_run(_info("20260101-abb"), CASES)
    assert store.get_run("20260101-aa").id == "20260101-aaa"
    with pytest.raises(AssayInputError, match="ambiguous"):
        store.get_run("20260101-a")
    with pytest.raises(AssayInputError, match='did you mean "20260101-aaa"'):
        store.get_run("20260101-aax")


def test_records_come_back_in_dataset_order_then_trial(store: RunStore) -> None:
    store.create_run(_info("r1"), CASES)
    added = [
        Record(
            case_id="C2",
            trial=2,
            outcome=Abstain(),
            attempts=2,
            latency_ms=5.5,
            extra={"attempt_errors": ["http_429"]},
        ),
        Record(
            case_id="C0",
            trial=1,
            outcome=Answer(fact="f", citations=("a",)),
            usage=Usage(input_tokens=3, output_tokens=4),
            trace_id="ab" * 16,
        ),
        Record(case_id="C2", trial=1, outcome=Error(error_class="parse_error", raw="x")),
    ]
    store.add_records("r1", added[:2])
    store.add_records("r1", added[2:])
    got = store.records("r1")
    assert [r.key for r in got] == [("C0", 1), ("C2", 1), ("C2", 2)]
    assert got[0] == added[1] and got[2] == added[0] and got[1] == added[2]
    assert store.recorded_keys("r1") == {("C0", 1), ("C2", 1), ("C2", 2)}
    assert store.count_records("r1") == 3


def test_a_case_trial_is_recorded_at_most_once(store: RunStore) -> None:
    store.create_run(_info("r1"), CASES)
    store.add_records("r1", [Record(case_id="C0", outcome=Abstain())])
    with pytest.raises(IntegrityError):
        store.add_records("r1", [Record(case_id="C0", outcome=Answer(fact="f"))])
    assert len(store.records("r1")) == 1


def test_a_trial_outside_the_run_s_trials_is_refused_and_nothing_is_stored(
    store: RunStore,
) -> None:
    # every report counts trials 1..2 of this run: a record of trial 3 would never count
    store.create_run(_info("r1"), CASES)
    ok = Record(case_id="C1", trial=2, outcome=Abstain())
    for trial in (3, 70):
        stray = Record(case_id="C0", trial=trial, outcome=Abstain())
        with pytest.raises(
            AssayInputError, match=rf"run r1 has 2 trial\(s\).*C0 \(trial {trial}\)"
        ):
            store.add_records("r1", [ok, stray])
    judged = Judgment(
        case_id="C0", trial=3, status="passed", reason="ok", grader="g", grader_version="1"
    )
    with pytest.raises(AssayInputError, match=r"C0 \(trial 3\)"):
        store.add_results("r1", [ok], [judged])
    with pytest.raises(AssayInputError, match=r"C0 \(trial 3\)"):
        store.add_judgments("r1", [judged])
    assert store.records("r1") == []
    assert store.judgments("r1") == []
    store.add_records("r1", [ok])
    assert store.records("r1") == [ok]


def test_judgments_and_spans_round_trip(store: RunStore) -> None:
    store.create_run(_info("r1"), CASES)
    judgments = [
        Judgment(
            case_id="C1",
            trial=1,
            status="failed",
            reason="no",
            grader="structured",
            grader_version="1",
            score=0.0,
            labels=("x",),
        ),
        Judgment(
            case_id="C0",
            trial=1,
            status="passed",
            reason="ok",
            grader="structured",
            grader_version="1",
            score=1.0,
        ),
    ]
    store.add_judgments("r1", judgments)
    assert store.judgments("r1") == [judgments[1], judgments[0]]
    span = Span(
        trace_id="a" * 32,
        span_id="b" * 16,
        name="assay.request",
        start_ns=1_700_000_000_000_000_000,
        end_ns=1_700_000_000_500_000_000,
        attributes={"assay.case.id": "C0", "n": 3},
        case_id="C0",
        trial=1,
    )
    child = span.model_copy(
        update={"span_id": "c" * 16, "parent_id": "b" * 16, "name": "retrieve", "case_id": "C1"}
    )
    store.add_spans("r1", [span, child])
    assert store.spans("r1", "C0", 1) == [span]
    assert len(store.spans("r1")) == 2


def test_a_span_row_has_a_column_for_every_field_of_a_span() -> None:
    from assay.store._rows import span_rows
    from assay.store._schema import spans

    span = Span(trace_id="a" * 32, span_id="b" * 16, name="n", start_ns=1, end_ns=2)
    (row,) = span_rows("r1", [span])
    assert set(row) == {"run_id", *Span.model_fields} == {c.name for c in spans.columns}
    assert row["attributes"] == "{}" and row["status"] == "unset"


def test_span_rows_are_written_in_the_column_order_of_the_spans_table() -> None:
    from assay.outcomes._span import span_row
    from assay.store._rows import span_rows, span_values
    from assay.store._schema import spans

    span = Span(
        trace_id="a" * 32,
        span_id="b" * 16,
        parent_id="c" * 16,
        name="n",
        start_ns=1,
        end_ns=2,
        status="error",
        status_message="m",
        attributes={"k": ("v", "w"), "é": 1.5},
        case_id="C0",
        trial=2,
    )
    assert tuple(c.name for c in spans.columns) == ("run_id", *Span.model_fields)
    (values,) = span_values("r1", [span_row(span)])
    (row,) = span_rows("r1", [span])
    assert values == tuple(row.values())
    assert values[9] == '{"k":["v","w"],"é":1.5}'


def test_finishing_a_run_records_status_time_and_summary(store: RunStore) -> None:
    store.create_run(_info("r1"), CASES)
    store.finish_run("r1", "interrupted", {"task_success": None})
    info = store.get_run("r1")
    assert info.status == "interrupted" and info.ended_at is not None
    assert info.summary == {"task_success": None}
    store.set_status("r1", "running")
    assert store.get_run("r1").ended_at is None


def test_redact_removes_secret_values_but_keeps_variable_names() -> None:
    config = {
        "api_key_env": "OPENAI_KEY",
        "headers": {"Authorization": "Bearer s3cret"},
        "nested": [{"password": "p"}],
        "model": "m",
    }
    assert redact(config) == {
        "api_key_env": "OPENAI_KEY",
        "headers": {"Authorization": "<redacted>"},
        "nested": [{"password": "<redacted>"}],
        "model": "m",
    }


def test_a_whole_run_round_trips_through_the_store(store: RunStore, tmp_path: Path) -> None:
    from assay.runner import report_for_run, run_suite

    lines = [c.model_dump_json() for c in CASES]
    (tmp_path / "cases.jsonl").write_text("\n".join(lines) + "\n")
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\ntrials: 2\ntarget:\n  type: scripted\n"
        "  default: {kind: answer, fact: f}\n  outcomes: {C3: {fail: http_4xx}}\n"
    )
    result = run_suite(suite, store)
    again = report_for_run(store, result.run_id)
    assert again == result.report
    assert (again.total, again.success, again.errors) == (8, 6, 2)
    summary = store.get_run(result.run_id).summary
    assert again.usage is not None and again.usage.latency is not None
    assert summary == {
        "total": 8,
        "success": 6,
        "errors": 2,
        "missing": 0,
        "task_success": 0.75,
        "task_success_fraction": "6/8",
        "task_success_ci95": list(again.task_success.ci or ()),
        "task_success_confidence": 0.95,
        "case_trials": 8,
        "usage_reported": 0,
        "input_tokens": None,
        "output_tokens": None,
        "cost_usd": None,
        "latency_p95_s": again.usage.latency.p95_s,
        "cached": 0,
        "cost_avoided_usd": None,
    }
    assert len(store.spans(result.run_id)) >= 8  # traced by default


def test_records_and_judgments_are_written_together(store: RunStore) -> None:
    store.create_run(_info("r1"), CASES)
    judged = Judgment(case_id="C0", status="passed", reason="ok", grader="g", grader_version="1")
    store.add_results("r1", [Record(case_id="C0", outcome=Answer(fact="f"))], [judged])
    with pytest.raises(IntegrityError):  # C0 again: neither the record nor its judgment
        store.add_results(
            "r1",
            [Record(case_id="C1", outcome=Abstain()), Record(case_id="C0", outcome=Abstain())],
            [judged.model_copy(update={"case_id": "C1"})],
        )
    assert [r.case_id for r in store.records("r1")] == ["C0"]
    assert store.judgments("r1") == [judged]


def test_judgments_carry_their_case_s_position_and_records_their_outcome_s_kind(
    store: RunStore,
) -> None:
    store.create_run(_info("r1"), CASES)
    judged = Judgment(case_id="C1", status="passed", reason="ok", grader="g", grader_version="1")
    stray = judged.model_copy(update={"case_id": "elsewhere"})
    store.add_results(
        "r1",
        [Record(case_id="C1", outcome=Abstain()), Record(case_id="C0", outcome=Answer(fact="f"))],
        [judged],
    )
    store.add_judgments("r1", [stray])
    with store.engine.connect() as conn:
        kinds = conn.execute(text("SELECT case_id, position, kind FROM records")).all()
        placed = conn.execute(text("SELECT case_id, position FROM judgments")).all()
    assert sorted(kinds) == [("C0", 0, "answer"), ("C1", 1, "abstain")]
    # a case not in the dataset: one past the last, as its record would be stored
    assert sorted(placed) == [("C1", 1), ("elsewhere", len(CASES))]
