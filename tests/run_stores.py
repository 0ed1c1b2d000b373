"""Two recorded runs of the seed dataset in any run store, for the viewer's tests."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import text

from assay.cases import Dataset
from assay.load import load_dataset, load_results
from assay.outcomes import Abstain, Answer, Record, Span
from assay.store import RunInfo, RunStore, open_store

POLICY = Path(__file__).resolve().parents[1] / "examples" / "policy"


def _spans(run_id: str) -> list[Span]:
    ms = 1_000_000
    base = 1_700_000_000_000 * ms
    attrs = {"assay.run.id": run_id, "assay.case.id": "E2", "assay.trial": 1}
    return [
        Span(trace_id="t1", span_id="root", name="assay.request", start_ns=base,
             end_ns=base + 120 * ms, case_id="E2", trial=1, attributes=attrs),
        Span(trace_id="t1", span_id="ret", parent_id="root", name="retrieve",
             start_ns=base + 5 * ms, end_ns=base + 40 * ms, case_id="E2", trial=1,
             attributes={"retrieval.selected_ids": ["standard-window"]}),
        Span(trace_id="t1", span_id="gen", parent_id="root", name="generate",
             start_ns=base + 40 * ms, end_ns=base + 118 * ms, case_id="E2", trial=1,
             attributes={"gen_ai.request.model": "demo"}),
    ]  # fmt: skip


def fill_store(url: str) -> str:
    """The store at ``url`` (created and migrated) holding run ``base`` (the seed results)
    and run ``cand`` (E2, E4 and E6 fixed, E3 broken, E5 now missing). Returns ``url``."""
    dataset = load_dataset(POLICY / "policy.jsonl")
    seed = list(load_results(POLICY / "results.jsonl").records)
    fixed = {
        "E2": Answer(fact="custom_excluded", text="Custom-printed items are excluded."),
        "E3": Answer(fact="gift_wrap_free"),
        "E4": Abstain(reason="no fee is stated"),
        "E6": Answer(fact="custom_excluded"),
    }
    candidate = [
        Record(case_id=r.case_id, outcome=fixed.get(r.case_id, r.outcome))
        for r in seed
        if r.case_id != "E5"
    ]
    store = open_store(url)
    try:
        for run_id, day, records in (("base", 1, seed), ("cand", 2, candidate)):
            _store_run(store, run_id, day, dataset, records)
    finally:
        store.close()
    return url


def add_edited_run(
    url: str,
    run_id: str = "edited",
    synthetic: bool = False,
    change: dict[str, object] | None = None,
) -> None:
    """Add run ``run_id``: the seed results on a dataset whose E1 was reworded, or, with
    ``synthetic``, whose E1 is marked synthetic, or whose E1 has the fields in ``change``."""
    dataset = load_dataset(POLICY / "policy.jsonl")
    if change is None:
        change = {"synthetic": True} if synthetic else {"question": "(reworded)"}
    cases = tuple(c.model_copy(update=change) if c.id == "E1" else c for c in dataset.cases)
    edited = Dataset(name=dataset.name, cases=cases)
    store = open_store(url)
    try:
        _store_run(store, run_id, 3, edited, list(load_results(POLICY / "results.jsonl").records))
    finally:
        store.close()


def _store_run(
    store: RunStore, run_id: str, day: int, dataset: Dataset, records: list[Record]
) -> None:
    info = RunInfo(
        id=run_id,
        started_at=datetime(2026, 11, day, 9, 30, tzinfo=UTC),
        dataset_name=dataset.name,
        dataset_version=dataset.version,
        target={"type": "scripted", "model": f"demo-{run_id}"},
        graders=[{"name": "structured", "version": "1"}],
        assay_version="0.1.0",
    )
    store.create_run(info, dataset.cases)
    store.add_records(run_id, records)
    store.add_spans(run_id, _spans(run_id))
    store.finish_run(run_id, "completed")


def store_beyond_trials(store: RunStore, run_id: str, case_id: str, trial: int) -> None:
    """A record of ``case_id`` at ``trial``, past run ``run_id``'s trial count, written as a
    hand edit or an older assay could have left it (``add_records`` refuses it): for the
    readers' tests that such a record counts nowhere."""
    position = store.load_dataset(run_id).ids.index(case_id)
    row = {"run": run_id, "case": case_id, "trial": trial, "position": position}
    with store.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO records (run_id, case_id, trial, position, outcome, attempts, kind)"
                " VALUES (:run, :case, :trial, :position,"
                ' \'{"kind":"answer","fact":"x"}\', 1, \'answer\')'
            ),
            row,
        )
