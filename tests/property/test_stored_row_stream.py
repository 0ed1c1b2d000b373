"""A stored run's case rows read from the store as they are written (``StoredRows``)
equal the rows ``report_for_run`` builds through the validated records, judgments and
cases, row for row and value for value: any cases (text fields alone or not), outcomes,
usage, latency, transcripts and tracebacks, stored verdicts of the run's grader, of
another or none, an installed grader or a missing plugin, a judge's score, trials. A
report so made renders byte for byte as the one built whole, in every streamed format; the
rows a report lists are picked the same, whole or as briefs, whatever it lists."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import Case, Dataset
from assay.grading import Judgment
from assay.outcomes import Abstain, Answer, Error, Record, Usage
from assay.render import render
from assay.report._rows import CaseRows, brief_of, rows_of, rows_where
from assay.runs import report_for_run
from assay.runs._run_settings import run_grader
from assay.runs._streamed import StoredRows, streamed_report
from assay.store import RunInfo, RunStore, open_store

_EVENTS = st.sampled_from(["missing", "error", "abstain", "right", "wrong", "text"])
_VERDICTS = st.sampled_from([None, "passed", "failed", "ungraded", "missing", "error"])
_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=6)


@st.composite
def _case(draw: Any, i: int) -> dict[str, Any]:
    abstain = draw(st.booleans())
    return {
        "id": f"K{i}" + draw(st.sampled_from(["", "é", '"q"'])),
        "slice": draw(st.sampled_from(["a", "b", "c d"])),
        "synthetic": draw(st.booleans()),
        "split": draw(st.sampled_from(["dev", "heldout"])),
        "abstain": abstain,
        "question": draw(_TEXT),
        "rationale": draw(st.none() | _TEXT),
        "source_revision": draw(st.none() | st.just("rev-1")),
        "group": draw(st.none() | st.just("g")),
        "metadata": draw(st.sampled_from([{}, {"n": 1}])),
        "messages": draw(st.booleans()),
        "accepted": [] if abstain else draw(st.sampled_from([[], ["f2"]])),
    }


@st.composite
def _runs(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(0, 8))
    trials = draw(st.integers(1, 3))
    cases = [draw(_case(i)) for i in range(n)]
    events = [
        [
            {
                "event": draw(_EVENTS),
                "verdict": draw(_VERDICTS),
                "other": draw(st.booleans()),
                "latency": draw(st.none() | st.floats(0, 1e7, allow_nan=False)),
                "tokens": draw(st.none() | st.integers(0, 10**6)),
                "extra": draw(st.sampled_from([None, "transcript", "traceback"])),
                "score": draw(st.none() | st.sampled_from([0.0, 1.0, 2.0])),
            }
            for _ in range(trials)
        ]
        for _ in cases
    ]
    grader = draw(
        st.sampled_from(
            [
                {"name": "structured", "version": "1"},
                {"name": "absent-plugin", "version": "2"},
                {"name": "judge", "version": "3"},
            ]
        )
    )
    return {"cases": cases, "events": events, "trials": trials, "grader": grader}


def _made_case(c: dict[str, Any]) -> Case:
    question = c["question"] or "q"
    return Case(
        id=c["id"],
        slice=c["slice"],
        question=None if c["messages"] else question,
        messages=[{"role": "user", "content": question}] if c["messages"] else None,
        expected_behavior="abstain" if c["abstain"] else "answer",
        expected_fact=None if c["abstain"] else "f",
        accepted_facts=c["accepted"],
        rationale=c["rationale"],
        source_revision=c["source_revision"],
        group=c["group"],
        synthetic=c["synthetic"],
        split=c["split"],
        metadata=c["metadata"],
    )


def _store_run(path: Path, run: dict[str, Any]) -> RunStore:
    store = open_store(f"sqlite:///{path}")
    cases = [_made_case(c) for c in run["cases"]]
    dataset = Dataset("prop", tuple(cases))
    info = RunInfo(
        id="r",
        started_at=datetime(2026, 11, 1, tzinfo=UTC),
        dataset_name=dataset.name,
        dataset_version=dataset.version,
        target={"type": "scripted"},
        graders=[run["grader"]],
        trials=run["trials"],
        assay_version="0.1.0",
    )
    store.create_run(info, dataset)
    outcomes = {
        "error": Error(error_class="E", message="m", raw="raw reply"),
        "abstain": Abstain(reason="unsure", text="I cannot say"),
        "right": Answer(fact="f"),
        "wrong": Answer(fact="g", text="maybe g"),
        "text": Answer(text="free text only"),
    }
    records: list[Record] = []
    judged: list[Judgment] = []
    for case, spec in zip(cases, run["events"], strict=True):
        for trial, e in enumerate(spec, start=1):
            if e["event"] == "missing":
                continue
            extra: dict[str, Any] = {}
            if e["extra"] == "transcript":
                extra = {"transcript": {"messages": [{"role": "user", "content": "q"}]}}
            elif e["extra"] == "traceback":
                extra = {"traceback": "file.py:1"}
            records.append(
                Record(
                    case_id=case.id,
                    trial=trial,
                    outcome=outcomes[e["event"]],
                    latency_ms=e["latency"],
                    usage=(
                        Usage(input_tokens=e["tokens"], output_tokens=1)
                        if e["tokens"] is not None
                        else None
                    ),
                    extra=extra,
                )
            )
            grader = run["grader"] if not e["other"] else {"name": "other", "version": "1"}
            if e["verdict"] is not None:
                judged.append(
                    Judgment(
                        case_id=case.id,
                        trial=trial,
                        status=e["verdict"],
                        reason="stored verdict",
                        grader=grader["name"],
                        grader_version=grader["version"],
                        score=e["score"],
                    )
                )
    store.add_results("r", records, judged)
    return store


def _not_passed(status: str, synthetic: bool) -> bool:
    return not synthetic and status != "passed"


_KEEPS: tuple[Callable[[str, bool], bool], ...] = (
    lambda status, synthetic: status in ("failed", "ungraded"),
    lambda status, synthetic: synthetic,
    lambda status, synthetic: status in ("error", "missing") and not synthetic,
    lambda status, synthetic: status != "failed",
)
"""Which rows a report lists: each leaves different statuses in the store."""


@settings(max_examples=80, deadline=None)
@given(_runs())
def test_streamed_rows_equal_the_validated_ones(run: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = _store_run(Path(tmp) / "assay.db", run)
        try:
            info = store.get_run("r")
            whole = report_for_run(store, "r")
            compact = report_for_run(store, "r", compact=True)
            assert isinstance(compact.cases, CaseRows)
            rows = StoredRows(store, info, run_grader(info), len(whole.cases))
            assert list(rows.values()) == list(compact.cases._values)
            assert list(rows) == list(whole.cases)
            assert [r.model_dump() for r in rows] == [r.model_dump() for r in whole.cases]
            assert list(rows.where(_not_passed)) == list(rows_where(whole.cases, _not_passed))
            for keep in _KEEPS:
                wanted = list(rows_where(whole.cases, keep))
                assert list(rows.where(keep)) == wanted
                told = list(rows.briefs_where(keep))
                assert told == [brief_of(r) for r in wanted]
                # the rows of the first briefs (a short list of cases)
                assert rows.rows_at(told[:3]) == wanted[:3]
                assert rows_of(whole.cases, keep, told[:3]) == wanted[:3]
            streamed = streamed_report(store, "r")
            if streamed is not None:
                assert len(streamed.cases) == len(whole.cases)
                for fmt in ("json", "text", "markdown"):
                    assert render(streamed, fmt) == render(compact, fmt), fmt
        finally:
            store.close()
