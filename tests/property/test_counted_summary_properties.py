"""Any stored run's summary and figures-only report counted by the database equal those
made by grading every case-trial read back: arbitrary slices, synthetic flags, splits,
trials, outcomes, stored verdicts (or none) and trial policies."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from assay.cases import Case, Dataset
from assay.grading import Judgment, grade
from assay.metrics import IntervalSetting, TrialPolicy, summarize_results
from assay.outcomes import Abstain, Answer, Error, Record, Results
from assay.runs import report_for_run
from assay.runs._figures import counted_report
from assay.runs._run_settings import StoredGrader, run_grader, trial_policy
from assay.runs._summary import counted_summary
from assay.store import RunInfo, open_store

# What happened to one case-trial: nothing recorded, an error, an abstention or an
# answer, and the verdict stored on it (None: none).
_EVENTS = st.sampled_from(["missing", "error", "abstain", "right", "wrong"])
_VERDICTS = st.sampled_from([None, "passed", "failed", "ungraded", "missing", "error"])


@st.composite
def _runs(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(0, 12))
    trials = draw(st.integers(1, 3))
    cases = [
        {
            "slice": draw(st.sampled_from(["a", "b", "c d"])),
            "synthetic": draw(st.booleans()),
            "split": draw(st.sampled_from(["dev", "heldout"])),
            "abstain": draw(st.booleans()),
            "trials": [(draw(_EVENTS), draw(_VERDICTS)) for _ in range(trials)],
        }
        for _ in range(n)
    ]
    policy = draw(st.sampled_from([None, "mean", "majority", "pass@1", "pass^k"]))
    installed = draw(st.booleans())
    return {"cases": cases, "trials": trials, "policy": policy, "installed": installed}


def _store_run(path: Path, run: dict[str, Any]) -> Any:
    store = open_store(f"sqlite:///{path}")
    cases = [
        Case(
            id=f"K{i}",
            slice=c["slice"],
            question="q",
            expected_behavior="abstain" if c["abstain"] else "answer",
            expected_fact=None if c["abstain"] else "f",
            synthetic=c["synthetic"],
            split=c["split"],
        )
        for i, c in enumerate(run["cases"])
    ]
    grader = (
        {"name": "structured", "version": "1"}
        if run["installed"]
        else {"name": "absent-plugin", "version": "2"}
    )
    dataset = Dataset("prop", tuple(cases))
    info = RunInfo(
        id="r",
        started_at=datetime(2026, 11, 1, tzinfo=UTC),
        dataset_name=dataset.name,
        dataset_version=dataset.version,
        target={"type": "scripted"},
        graders=[grader],
        trials=run["trials"],
        assay_version="0.1.0",
    )
    store.create_run(info, dataset)
    records: list[Record] = []
    judged: list[Judgment] = []
    outcomes = {
        "error": Error(error_class="E", message="m"),
        "abstain": Abstain(),
        "right": Answer(fact="f"),
        "wrong": Answer(fact="g"),
    }
    for case, spec in zip(cases, run["cases"], strict=True):
        for trial, (event, verdict) in enumerate(spec["trials"], start=1):
            if event == "missing":
                continue
            records.append(Record(case_id=case.id, trial=trial, outcome=outcomes[event]))
            if verdict is not None:
                judged.append(
                    Judgment(
                        case_id=case.id,
                        trial=trial,
                        status=verdict,
                        reason="r",
                        grader=grader["name"],
                        grader_version=grader["version"],
                    )
                )
    store.add_results("r", records, judged)
    return store


@settings(max_examples=60, deadline=None)
@given(_runs())
def test_counted_figures_equal_graded_ones(run: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = _store_run(Path(tmp) / "assay.db", run)
        try:
            info = store.get_run("r")
            policy = TrialPolicy.parse(run["policy"]) if run["policy"] else None
            if policy is not None and run["trials"] < 2:
                policy = None
            chosen = policy if policy is not None else trial_policy(info)
            fallback = run_grader(info)
            graded = grade(
                store.load_dataset("r").cases,
                Results(tuple(store.records("r"))),
                StoredGrader(
                    store.graders_judgments("r", fallback.name, fallback.version), fallback
                ),
                trials=info.trials,
            )
            level = IntervalSetting()
            counted = counted_summary(store, info, interval=level, policy=chosen)
            if counted is not None:
                assert counted == summarize_results(graded, interval=level, policy=chosen)
            report = counted_report(store, info, interval=level, policy=policy)
            if report is not None:
                records = store.records("r")
                judgments = store.graders_judgments("r", fallback.name, fallback.version)
                reference = report_for_run(
                    store, "r", rows=False, policy=policy, results=(records, judgments)
                )
                assert report.model_dump() == reference.model_dump()
            # a run stored before the case index existed is counted from its snapshot
            with store.engine.begin() as conn:
                conn.execute(text("DELETE FROM case_index"))
            assert counted_summary(store, info, interval=level, policy=chosen) == counted
            unindexed = counted_report(store, info, interval=level, policy=policy)
            assert (unindexed and unindexed.model_dump()) == (report and report.model_dump())
            # every recorded answer judged (or no grader to judge it): always counted
            unjudged = any(
                event in ("abstain", "right", "wrong") and verdict is None
                for c in run["cases"]
                for event, verdict in c["trials"]
            )
            assert (counted is None) == (unjudged and run["installed"])
        finally:
            store.close()
