"""A stored run's case rows streamed from the store (``StoredRows``) equal the rows
``report_for_run`` builds, on SQLite and PostgreSQL: every status, several trials, slices,
synthetic and held-out cases, cases with metadata, an unavailable grader, answers
without the grader's judgment; and the report made with them renders as the one built
whole."""

from __future__ import annotations

import pytest
from tests.unit.runs.test_stored_summary import _cases, _fill

from assay.render import render
from assay.runs import report_for_run
from assay.runs._run_settings import run_grader
from assay.runs._streamed import StoredRows, streamed_report
from assay.store import open_store


def _not_passed(status: str, synthetic: bool) -> bool:
    return not synthetic and status != "passed"


@pytest.mark.parametrize("metadata", [False, True])
def test_streamed_rows_equal_built_ones(store_url: str, metadata: bool) -> None:
    store = open_store(store_url)
    try:
        cases = _cases(40, metadata)
        _fill(store, "one", 1, cases, 1)
        _fill(store, "three", 2, cases, 3)
        _fill(store, "plugin", 4, cases, 2, grader={"name": "not-installed", "version": "7"})
        _fill(store, "unjudged", 5, cases, 1, unjudged=True)
        for run_id in ("one", "three", "plugin", "unjudged"):
            info = store.get_run(run_id)
            whole = report_for_run(store, run_id)
            rows = StoredRows(store, info, run_grader(info), len(whole.cases))
            assert list(rows) == list(whole.cases), run_id
            wanted = [r for r in whole.cases if _not_passed(r.status, r.synthetic)]
            assert list(rows.where(_not_passed)) == wanted, run_id
            streamed = streamed_report(store, run_id)
            assert (streamed is None) == (run_id == "unjudged")
            if streamed is not None:
                compact = report_for_run(store, run_id, compact=True)
                for fmt in ("json", "text", "markdown"):
                    assert render(streamed, fmt) == render(compact, fmt), (run_id, fmt)
        # a run stored before the case index: its cases read off their snapshot
        with store.engine.begin() as conn:
            conn.exec_driver_sql("DELETE FROM case_index")
        for run_id in ("one", "three"):
            info = store.get_run(run_id)
            whole = report_for_run(store, run_id)
            rows = StoredRows(store, info, run_grader(info), len(whole.cases))
            assert list(rows) == list(whole.cases), run_id
            wanted = [r for r in whole.cases if _not_passed(r.status, r.synthetic)]
            assert list(rows.where(_not_passed)) == wanted, run_id
            told = list(rows.briefs_where(_not_passed))
            assert rows.rows_at(told[:5]) == wanted[:5], run_id
    finally:
        store.close()
