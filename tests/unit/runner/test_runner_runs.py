"""Whole runs into a store: provenance, tracing plumbing, resume and its refusals."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.errors import AssayConfigError
from assay.outcomes import Answer, Record
from assay.runner import Overrides, Selection, report_for_run, resume_run, run_suite
from assay.store import RunStore, open_store

CASES = [
    {
        "id": f"C{i}",
        "slice": "odd" if i % 2 else "even",
        "question": f"q{i}",
        "expected_behavior": "answer",
        "expected_fact": "f",
    }
    for i in range(6)
]


def _write_suite(folder: Path, target: str, extra: str = "") -> Path:
    (folder / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in CASES) + "\n")
    suite = folder / "suite.yaml"
    suite.write_text(f"dataset: cases.jsonl\ntarget: {target}\n{extra}")
    return suite


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    opened = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    yield opened
    opened.close()


def test_a_run_stores_its_provenance_records_and_judgments(tmp_path: Path, store: RunStore) -> None:
    suite = _write_suite(
        tmp_path,
        "{type: scripted, default: {kind: answer, fact: f}, outcomes: {C1: {kind: abstain}}}",
        "trials: 2\nmetadata: {prompt_version: v3}\ntrace: false\n",
    )
    result = run_suite(suite, store, selection=Selection(slices=("odd",)))
    assert result.status == "completed" and result.ran == 6
    info = store.get_run(result.run_id)
    assert info.status == "completed" and info.ended_at is not None
    assert info.trials == 2 and info.graders == [{"name": "structured", "version": "1"}]
    assert info.metadata["prompt_version"] == "v3"
    assert info.metadata["selection"] == {"slices": ["odd"]}
    assert info.dataset_version == store.load_dataset(info.id).version
    assert info.metadata["full_dataset_version"] != info.dataset_version
    assert info.target["type"] == "scripted" and info.target_hash.startswith("sha256:")
    assert "python" in info.packages and "pydantic" in info.packages
    assert info.summary is not None and info.summary["task_success_fraction"] == "4/6"
    assert [r.key for r in store.records(info.id)] == [
        (c, t) for c in ("C1", "C3", "C5") for t in (1, 2)
    ]
    assert len(store.judgments(info.id)) == 6
    assert result.report.run_id == info.id and result.report.trials == 2


def test_traced_runs_store_request_and_evaluation_spans(tmp_path: Path, store: RunStore) -> None:
    pytest.importorskip("assay.tracing")
    suite = _write_suite(tmp_path, "{type: scripted, default: {kind: answer, fact: f}}")
    result = run_suite(suite, store, selection=Selection(limit=2))
    records = store.records(result.run_id)
    assert all(r.trace_id and len(r.trace_id) == 32 for r in records)
    spans = store.spans(result.run_id, "C0", 1)
    by_name = {s.name: s for s in spans}
    root, evaluation = by_name["assay.request"], by_name["assay.evaluation"]
    assert root.trace_id == records[0].trace_id and root.parent_id is None
    assert root.attributes["assay.run.id"] == result.run_id
    assert root.attributes["assay.trial"] == 1
    assert evaluation.parent_id == root.span_id
    assert evaluation.attributes["assay.judgment.status"] == "passed"
    assert evaluation.attributes["assay.grader.name"] == "structured"


def test_resume_runs_only_what_is_missing(tmp_path: Path, store: RunStore) -> None:
    suite = _write_suite(
        tmp_path, "{type: scripted, default: {kind: answer, fact: f}}", "trace: false\n"
    )
    first = run_suite(suite, store)
    # Simulate a run cut short: keep only the first two records.
    kept = store.records(first.run_id)[:2]
    with store.engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM records")
        conn.exec_driver_sql("DELETE FROM judgments")
    store.add_records(first.run_id, kept)
    again = resume_run(store, first.run_id[:12])
    assert again.run_id == first.run_id and again.ran == 4 and again.skipped == 2
    assert [r.case_id for r in store.records(first.run_id)] == [c["id"] for c in CASES]
    assert report_for_run(store, first.run_id).success == 6


def test_resume_refuses_a_changed_target_or_trial_count(tmp_path: Path, store: RunStore) -> None:
    suite = _write_suite(
        tmp_path, "{type: scripted, default: {kind: answer, fact: f}}", "trace: false\n"
    )
    run_id = run_suite(suite, store).run_id
    with pytest.raises(AssayConfigError, match="keeps its trial count"):
        resume_run(store, run_id, overrides=Overrides(trials=3))
    _write_suite(tmp_path, "{type: scripted, default: {kind: abstain}}", "trace: false\n")
    with pytest.raises(AssayConfigError, match="has changed since run"):
        resume_run(store, run_id)


def test_a_failing_store_write_marks_the_run_failed(tmp_path: Path, store: RunStore) -> None:
    suite = _write_suite(
        tmp_path, "{type: scripted, default: {kind: answer, fact: f}}", "trace: false\n"
    )

    class Broken(Exception):
        pass

    def refuse(run_id: str, batch: list[Record], judged: list[object]) -> None:
        raise Broken("disk full")

    store.add_results = refuse  # type: ignore[method-assign,assignment]
    with pytest.raises(Broken):
        run_suite(suite, store)
    (info,) = store.list_runs()
    assert info.status == "failed"


def test_function_targets_get_the_case(tmp_path: Path, store: RunStore) -> None:
    (tmp_path / "sut_for_runner_test.py").write_text(
        "def answer(case):\n    return {'kind': 'answer', 'fact': 'f', 'text': case.id}\n"
    )
    suite = _write_suite(
        tmp_path, "{type: function, callable: sut_for_runner_test:answer}", "trace: false\n"
    )
    result = run_suite(suite, store, selection=Selection(ids=("C4",)))
    (record,) = store.records(result.run_id)
    assert record.outcome == Answer(fact="f", text="C4")
    assert record.attempts == 1 and record.latency_ms is not None


def test_a_traced_target_gets_the_traceparent_of_its_case_trial(
    tmp_path: Path, store: RunStore
) -> None:
    pytest.importorskip("assay.tracing")
    (tmp_path / "sut_traceparent.py").write_text(
        "def answer(case, ctx):\n"
        "    return {'kind': 'answer', 'fact': 'f', 'text': ctx.traceparent}\n"
    )
    suite = _write_suite(tmp_path, "{type: function, callable: sut_traceparent:answer}")
    result = run_suite(suite, store, selection=Selection(limit=2))
    for record in store.records(result.run_id):
        assert isinstance(record.outcome, Answer) and record.outcome.text is not None
        version, trace_id, span_id, flags = record.outcome.text.split("-")
        assert (version, trace_id) == ("00", record.trace_id)
        assert int(flags, 16) & 1  # sampled
        (root,) = [s for s in store.spans(result.run_id, record.case_id) if s.parent_id is None]
        assert root.span_id == span_id


def test_a_target_gets_the_tracestate_of_the_trace_the_run_continues(
    tmp_path: Path, store: RunStore
) -> None:
    pytest.importorskip("assay.tracing")
    from opentelemetry import context, trace
    from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, TraceState

    (tmp_path / "sut_tracestate.py").write_text(
        "def answer(case, ctx):\n"
        "    return {'kind': 'answer', 'fact': 'f', 'text': str(ctx.tracestate)}\n"
    )
    suite = _write_suite(tmp_path, "{type: function, callable: sut_tracestate:answer}")
    incoming = SpanContext(
        trace_id=0xA * 2**100,
        span_id=0xB,
        is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
        trace_state=TraceState([("congo", "t61rcWkgMzE")]),
    )
    token = context.attach(trace.set_span_in_context(NonRecordingSpan(incoming)))
    try:
        continued = run_suite(suite, store, selection=Selection(limit=1))
    finally:
        context.detach(token)
    (record,) = store.records(continued.run_id)
    assert isinstance(record.outcome, Answer) and record.outcome.text == "congo=t61rcWkgMzE"
    alone = run_suite(suite, store, selection=Selection(limit=1))
    (record,) = store.records(alone.run_id)
    assert isinstance(record.outcome, Answer) and record.outcome.text == "None"


def test_resuming_a_completed_run_runs_nothing_and_changes_nothing(
    tmp_path: Path, store: RunStore
) -> None:
    suite = _write_suite(
        tmp_path, "{type: scripted, default: {kind: answer, fact: f}}", "trace: false\n"
    )
    first = run_suite(suite, store)
    before = store.get_run(first.run_id)
    again = resume_run(store, first.run_id)
    assert (again.status, again.ran, again.skipped) == ("completed", 0, 6)
    assert again.report.success == 6
    assert store.get_run(first.run_id) == before  # not even its end time moved


def test_resuming_without_the_suite_file_says_how_to_give_it(
    tmp_path: Path, store: RunStore
) -> None:
    suite = _write_suite(
        tmp_path, "{type: scripted, default: {kind: answer, fact: f}}", "trace: false\n"
    )
    run_id = run_suite(suite, store).run_id
    suite.rename(tmp_path / "moved.yaml")
    with pytest.raises(AssayConfigError, match=f"no longer exists; give the suite: .*{run_id}"):
        resume_run(store, run_id)
    assert resume_run(store, run_id, suite=tmp_path / "moved.yaml").ran == 0
