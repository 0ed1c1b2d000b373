"""``assay report RUN -f html`` and ``-f junit`` write the case rows they read from the
store as they go: the page (plain or packed) and the XML are byte for byte those of the
report built whole from the validated records, judgments and cases, for runs with every
status, several trials under each policy, slices, synthetic and held-out cases, a declared
policy and a grader that is not installed, and a run whose figures need grading (built
whole as before)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import RunAssay
from tests.e2e.conftest import STREAMED_RUNS

from assay.metrics import TrialPolicy
from assay.render import html as html_module
from assay.render import packed as packed_module
from assay.render import render, render_chunks
from assay.report import TracedReport
from assay.runs import report_for_run
from assay.runs._streamed import StoredRows, streamed_report
from assay.store import open_store


@pytest.mark.parametrize("run_id", STREAMED_RUNS)
@pytest.mark.parametrize("fmt", ["html", "junit"])
def test_page_and_xml_are_those_of_the_report_built_whole(
    run_assay: RunAssay, streamed_store: str, run_id: str, fmt: str, tmp_path: Path
) -> None:
    policies = [None] if run_id in ("one", "unjudged") else [None, "majority", "pass@1"]
    for spec in policies:
        given = ["--trial-policy", spec] if spec else []
        out = tmp_path / f"r.{fmt}"
        command = ["report", run_id, "--store", streamed_store, "-f", fmt, "-o", str(out)]
        done = run_assay(*command, *given)
        assert done.returncode == 0, done.stderr
        store = open_store(streamed_store, read_only=True)
        try:
            policy = TrialPolicy.parse(spec) if spec else None
            whole = report_for_run(store, run_id, policy=policy, compact=True)
            shown = TracedReport(whole, tuple(store.spans(run_id))) if fmt == "html" else whole
            assert out.read_text(encoding="utf-8") == render(shown, fmt), (run_id, spec)
        finally:
            store.close()


@pytest.mark.parametrize("run_id", ["one", "three", "declared", "plugin"])
def test_a_packed_page_from_the_store_is_the_packed_page_built_whole(
    streamed_store: str, run_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(html_module, "PACKED_ABOVE", 10)
    monkeypatch.setattr(packed_module, "PACKED_PART_ROWS", 8)
    monkeypatch.setattr(packed_module, "SEARCH_PART_ROWS", 16)  # parts and chunks end mid-run
    store = open_store(streamed_store, read_only=True)
    try:
        streamed = streamed_report(store, run_id)
        assert streamed is not None and isinstance(streamed.cases, StoredRows)
        whole = report_for_run(store, run_id, compact=True)
        page = "".join(render_chunks(streamed, "html"))
        assert 'id="assay-rows-1"' in page and 'id="assay-search-1"' in page
        assert page == render(whole, "html")
        assert "".join(render_chunks(streamed, "junit")) == render(whole, "junit")
    finally:
        store.close()
