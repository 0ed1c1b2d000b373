"""``assay report RUN`` writes the case rows it reads from the store as it goes (JSON,
text, Markdown): its output is byte for byte the report built whole from the validated
records, judgments and cases, for runs with every status, several trials under each
policy, slices, synthetic and held-out cases, a declared policy and a grader that is not
installed; and for a run whose figures need grading (a recorded answer without the run
grader's judgment), which is built whole as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import RunAssay
from tests.e2e.conftest import STREAMED_RUNS
from tests.unit.runs.test_stored_summary import _cases, _fill

from assay.metrics import TrialPolicy
from assay.render import render
from assay.runs import report_for_run
from assay.runs._streamed import StoredRows, streamed_report
from assay.store import open_store


@pytest.mark.parametrize("run_id", STREAMED_RUNS)
@pytest.mark.parametrize("fmt", ["json", "text", "markdown"])
def test_report_is_the_report_built_whole(
    run_assay: RunAssay, streamed_store: str, run_id: str, fmt: str
) -> None:
    policies = [None] if run_id in ("one", "unjudged") else [None, "majority", "pass@1"]
    for spec in policies:
        given = ["--trial-policy", spec] if spec else []
        done = run_assay("report", run_id, "--store", streamed_store, "-f", fmt, *given)
        assert done.returncode == 0, done.stderr
        store = open_store(streamed_store, read_only=True)
        try:
            policy = TrialPolicy.parse(spec) if spec else None
            whole = report_for_run(store, run_id, policy=policy, compact=True)
            assert done.stdout == render(whole, fmt), (run_id, spec)
            streamed = streamed_report(store, run_id, policy=policy)
            # only the run whose answers need grading is built whole
            assert (streamed is None) == (run_id == "unjudged")
            if streamed is not None:
                assert isinstance(streamed.cases, StoredRows)
        finally:
            store.close()


def test_report_to_a_file_is_the_same(
    run_assay: RunAssay, streamed_store: str, tmp_path: Path
) -> None:
    out = tmp_path / "r.json"
    done = run_assay("report", "three", "--store", streamed_store, "-f", "json", "-o", str(out))
    assert done.returncode == 0, done.stderr
    printed = run_assay("report", "three", "--store", streamed_store, "-f", "json")
    assert out.read_text(encoding="utf-8") == printed.stdout


def test_a_record_out_of_its_place_is_named_not_reported(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'assay.db'}"
    store = open_store(url)
    try:
        _fill(store, "one", 1, _cases(10, False), 1)
        with store.engine.begin() as conn:
            conn.exec_driver_sql(
                "UPDATE records SET position = 0 WHERE run_id = 'one' AND case_id = 'C001'"
            )
            conn.exec_driver_sql(
                "UPDATE records SET position = 1 WHERE run_id = 'one' AND case_id = 'C000'"
            )
    finally:
        store.close()
    out = tmp_path / "r.json"
    done = run_assay("report", "one", "--store", url, "-f", "json", "-o", str(out))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "'C001' at the position of case 'C000'" in done.stderr
    assert "changed outside assay or is damaged" in done.stderr
    assert not out.exists()
