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
from tests.unit.stored.test_stored_summary import _cases, _fill

from assay.metrics import TrialPolicy
from assay.report import TracedReport
from assay.report.render import html as html_module
from assay.report.render import render, render_chunks
from assay.store import open_store
from assay.stored import stored_report
from assay.stored._streamed import StoredRows, streamed_report

RUNS = ("one", "three", "declared", "plugin", "unjudged")


@pytest.fixture(scope="module")
def store_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('pages') / 'assay.db'}"
    store = open_store(url)
    try:
        cases = _cases(60, True)
        _fill(store, "one", 1, cases, 1)
        _fill(store, "three", 2, cases, 3)
        _fill(store, "declared", 3, cases, 4, policy="pass^k")
        _fill(store, "plugin", 4, cases, 2, grader={"name": "not-installed", "version": "7"})
        _fill(store, "unjudged", 5, cases, 1, unjudged=True)
    finally:
        store.close()
    return url


@pytest.mark.parametrize("run_id", RUNS)
@pytest.mark.parametrize("fmt", ["html", "junit"])
def test_page_and_xml_are_those_of_the_report_built_whole(
    run_assay: RunAssay, store_url: str, run_id: str, fmt: str, tmp_path: Path
) -> None:
    policies = [None] if run_id in ("one", "unjudged") else [None, "majority", "pass@1"]
    for spec in policies:
        given = ["--trial-policy", spec] if spec else []
        out = tmp_path / f"r.{fmt}"
        done = run_assay("report", run_id, "--store", store_url, "-f", fmt, "-o", str(out), *given)
        assert done.returncode == 0, done.stderr
        store = open_store(store_url, read_only=True)
        try:
            policy = TrialPolicy.parse(spec) if spec else None
            whole = stored_report(store, run_id, policy=policy, compact=True)
            shown = TracedReport(whole, tuple(store.spans(run_id))) if fmt == "html" else whole
            assert out.read_text(encoding="utf-8") == render(shown, fmt), (run_id, spec)
        finally:
            store.close()


@pytest.mark.parametrize("run_id", ["one", "three", "declared", "plugin"])
def test_a_packed_page_from_the_store_is_the_packed_page_built_whole(
    store_url: str, run_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(html_module, "PACKED_ABOVE", 10)
    monkeypatch.setattr(html_module, "PACKED_PART_ROWS", 8)
    monkeypatch.setattr(html_module, "SEARCH_PART_ROWS", 16)  # parts and chunks end mid-run
    store = open_store(store_url, read_only=True)
    try:
        streamed = streamed_report(store, run_id)
        assert streamed is not None and isinstance(streamed.cases, StoredRows)
        whole = stored_report(store, run_id, compact=True)
        page = "".join(render_chunks(streamed, "html"))
        assert 'id="assay-rows-1"' in page and 'id="assay-search-1"' in page
        assert page == render(whole, "html")
        assert "".join(render_chunks(streamed, "junit")) == render(whole, "junit")
    finally:
        store.close()
